//! The one way this program writes: artifacts to stdout through [`emit`],
//! narration to stderr through [`say!`](crate::say) / [`say_inline!`](crate::say_inline),
//! and paths quoted for a command line a user can paste.
//!
//! * stdout: a closed pipe (`explain --dry-run | head -1`) ends the process
//!   quietly with the command's own outcome so far (exit 0); any other write
//!   error (`> /dev/full`) is a clear message on stderr and exit 2. Nothing
//!   panics.
//! * stderr: narration never stops a command. A closed or failing stderr
//!   (the terminal went away, `2>&-`, `2> /dev/full`) is ignored, so a run
//!   keeps committing and closes its run in the store whatever happens to
//!   its narration.

use std::io::Write as _;
use std::path::Path;

/// Writes `text` to stderr, ignoring every error (narration never stops work).
pub fn say_text(text: std::fmt::Arguments<'_>, newline: bool) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(text);
    if newline {
        let _ = err.write_all(b"\n");
    }
    let _ = err.flush();
}

/// `eprintln!` that never panics: narration to stderr, errors ignored.
#[macro_export]
macro_rules! say {
    () => { $crate::output::say_text(format_args!(""), true) };
    ($($arg:tt)*) => { $crate::output::say_text(format_args!($($arg)*), true) };
}

/// `eprint!` that never panics.
#[macro_export]
macro_rules! say_inline {
    ($($arg:tt)*) => { $crate::output::say_text(format_args!($($arg)*), false) };
}

/// What a failed stdout write means.
#[derive(Debug, PartialEq, Eq)]
pub enum StdoutError {
    /// The reader went away: stop quietly.
    Closed,
    /// Anything else (a full disk…): say so.
    Failed(String),
}

/// Writes `text` to `out` and flushes it, classifying a failure.
pub fn write_artifact(out: &mut dyn std::io::Write, text: &str) -> Result<(), StdoutError> {
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(StdoutError::Closed),
        Err(e) => Err(StdoutError::Failed(e.to_string())),
    }
}

/// Writes the artifact to stdout. A closed pipe ends the process quietly
/// (exit 0: the reader took what it wanted); any other write error ends it
/// with a message and exit 2.
pub fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    match write_artifact(&mut out, text) {
        Ok(()) => {}
        Err(StdoutError::Closed) => std::process::exit(0),
        Err(StdoutError::Failed(e)) => {
            crate::say!("codegraph-insights: cannot write the output to stdout: {e}");
            std::process::exit(2);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    struct Broken(std::io::ErrorKind);
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::from(self.0))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_pipe_is_quiet_and_other_errors_are_told() {
        assert_eq!(write_artifact(&mut Broken(std::io::ErrorKind::BrokenPipe), "x"), Err(StdoutError::Closed));
        assert!(matches!(
            write_artifact(&mut Broken(std::io::ErrorKind::StorageFull), "x"),
            Err(StdoutError::Failed(_))
        ));
        let mut v = Vec::new();
        assert_eq!(write_artifact(&mut v, "ok"), Ok(()));
        assert_eq!(v, b"ok");
    }
}
