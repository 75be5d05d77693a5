//! Analyzer facts over a [`model::Model`] (pure, no I/O).
