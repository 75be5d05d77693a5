//! Where the side-car and the store live (docs/formats/store.md §1, §12).

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

/// The suffix of every store name in a browser.
pub const STORE_NAME_SUFFIX: &str = ".insights.db";

/// The longest store name the OPFS pool accepts (499 UTF-8 bytes: SQLite
/// appends up to 12 bytes, e.g. `-journal`, within a 511-byte field).
const MAX_STORE_NAME: usize = 499;

/// The store name of a model in a browser (OPFS has no model directory to
/// sit beside): `/<stem>-<hash>.insights.db`, deterministic, a safe file name.
///
/// * `model_root` is the model header's `root` (where the extractor read the
///   sources); `model_name` is what the page knows the model by: a file name,
///   a path or a URL.
/// * `stem` is the last segment of `model_name` (`?query` and `#fragment`
///   dropped, a `.jsonl` suffix removed), reduced to ASCII letters, digits,
///   `-`, `_` and `.` (anything else becomes `_`), without leading dots, at
///   most 40 bytes; `model` if nothing is left.
/// * `hash` is the first 10 hex digits of SHA-256 of `model_root`, a line
///   feed and the unreduced stem: the same model file loaded from a URL or a
///   drop gets the same store; two models named `model.jsonl` with different
///   roots do not.
///
/// `store_name_for("fixtures/java/src", "https://x/y/model.jsonl?v=2")` is
/// `/model-<10 hex>.insights.db`.
pub fn store_name_for(model_root: &str, model_name: &str) -> String {
    let name = model_name.split(['?', '#']).next().unwrap_or_default();
    let last = name.rsplit(['/', '\\']).next().unwrap_or_default();
    let raw = last.strip_suffix(".jsonl").unwrap_or(last);
    let mut stem: String = raw
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' })
        .skip_while(|&c| c == '.')
        .take(40)
        .collect();
    if stem.is_empty() {
        stem.push_str("model");
    }
    let hash = insights::canonical::sha256_hex(&format!("{model_root}\n{raw}"));
    format!("/{stem}-{}{STORE_NAME_SUFFIX}", &hash[..10])
}

/// Whether `name` is a store name in a browser: `/<name>.insights.db`, no NUL,
/// at most 499 bytes (what [`store_name_for`] makes, or a name the page
/// chose in that shape).
pub fn is_store_name(name: &str) -> bool {
    name.len() > 1 + STORE_NAME_SUFFIX.len()
        && name.len() <= MAX_STORE_NAME
        && name.starts_with('/')
        && name.ends_with(STORE_NAME_SUFFIX)
        && !name.contains('\0')
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

    #[test]
    fn store_names_are_safe_deterministic_and_tell_roots_apart() {
        let a = store_name_for("fixtures/java/src", "model.jsonl");
        assert_eq!(a, store_name_for("fixtures/java/src", "https://h/x/model.jsonl?v=2#top"));
        assert_eq!(a, store_name_for("fixtures/java/src", "C:\\models\\model.jsonl"));
        assert!(a.starts_with("/model-") && a.ends_with(".insights.db") && a.len() == "/model-".len() + 10 + 12, "{a}");
        assert_ne!(a, store_name_for("other/src", "model.jsonl"));
        assert_eq!(store_name_for("r", "../.hidden café.jsonl").split('-').next(), Some("/hidden_caf_"));
        assert!(store_name_for("r", "https://h/").starts_with("/model-"));
        let long = store_name_for("r", &"x".repeat(300));
        assert_eq!(long.len(), 1 + 40 + 1 + 10 + 12);
        for n in [&a, &long] {
            assert!(is_store_name(n), "{n}");
        }
        for n in ["model.insights.db", "/.insights.db", "/a.db", "/a\0.insights.db"] {
            assert!(!is_store_name(n), "{n}");
        }
        assert!(!is_store_name(&format!("/{}.insights.db", "x".repeat(490))));
    }
}
