//! Writing artifacts: stdout that tolerates a closed pipe, and paths quoted
//! for a command line a user can paste.

use std::io::Write as _;
use std::path::Path;

/// Writes the artifact to stdout; a closed pipe is not an error, any other
/// write error ends the process with exit 1.
pub fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("codegraph-insights: cannot write to stdout: {e}");
            std::process::exit(1);
        }
        _ => {}
    }
}

/// A path as one shell word: as is when safe, else single-quoted.
pub fn shell_word(p: &Path) -> String {
    let s = p.display().to_string();
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c)) {
        s
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}
