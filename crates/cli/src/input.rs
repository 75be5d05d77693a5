//! Opening inputs: files with a progress line on a terminal.

use std::fs::File;
use std::io::{BufReader, IsTerminal, Write};
use std::path::Path;

/// The name errors use for `path`: as the user typed it.
pub fn display_name(path: &Path) -> String {
    path.display().to_string()
}

/// Reads a model from a file; on a terminal, shows how far reading got.
pub fn read_model_file(path: &Path) -> Result<model::Model, model::ModelError> {
    let name = display_name(path);
    let file = File::open(path).map_err(|e| model::ModelError {
        source_name: name.clone(),
        line: 0,
        record: None,
        rule: model::Rule::Io,
        message: format!("cannot be opened: {e}"),
    })?;
    let total = file.metadata().map(|m| m.len()).unwrap_or(0);
    let show = std::io::stderr().is_terminal() && total > (16 << 20);
    let result = model::read_model_with_progress(BufReader::with_capacity(1 << 20, file), &name, |done| {
        if show {
            let pct = done as f64 * 100.0 / total.max(1) as f64;
            crate::say_inline!("\rreading {name}: {pct:5.1}% of {} MB", total >> 20);
            let _ = std::io::stderr().flush();
        }
    });
    if show {
        crate::say_inline!("\r{}\r", " ".repeat(name.len() + 40));
    }
    result
}
