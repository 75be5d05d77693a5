//! Source text for prompts (pure, no I/O): bytes in, files out.
