//! Where the side-car and the store live (§16.1).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

fn with_suffix(path: &Path, old: &str, new: &str) -> PathBuf {
    match path.to_str() {
        Some(s) if s.ends_with(old) => PathBuf::from(format!("{}{new}", &s[..s.len() - old.len()])),
        _ => {
            let mut s = OsString::from(path.as_os_str());
            s.push(new);
            PathBuf::from(s)
        }
    }
}

/// The store beside a side-car: `X.jsonl` → `X.db`, anything else + `.db`.
pub fn store_path_for(sidecar: impl AsRef<Path>) -> PathBuf {
    with_suffix(sidecar.as_ref(), ".jsonl", ".db")
}

/// The side-car of a model: `M.jsonl` → `M.insights.jsonl`, anything else +
/// `.insights.jsonl`.
pub fn sidecar_path_for(model: impl AsRef<Path>) -> PathBuf {
    with_suffix(model.as_ref(), ".jsonl", ".insights.jsonl")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_rules() {
        assert_eq!(store_path_for("/x/model.insights.jsonl"), PathBuf::from("/x/model.insights.db"));
        assert_eq!(store_path_for("/x/custom.out"), PathBuf::from("/x/custom.out.db"));
        assert_eq!(sidecar_path_for("/x/M.jsonl"), PathBuf::from("/x/M.insights.jsonl"));
        assert_eq!(sidecar_path_for("/x/M.json"), PathBuf::from("/x/M.json.insights.jsonl"));
        assert_eq!(store_path_for(sidecar_path_for("m.jsonl")), PathBuf::from("m.insights.db"));
    }
}
