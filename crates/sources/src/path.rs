//! Relative source paths: normalization and the escape check shared by every
//! reader and by archive entries.

/// Normalizes a relative path, or says why it is refused.
///
/// Backslashes become `/`, empty and `.` components are dropped
/// (`./src//A.java` → `src/A.java`). Refused: an empty path, an absolute path
/// (`/x`, `\x`, `C:…`), and any `..` component — such a path could leave the
/// root, so it is never looked up.
pub fn normalize(path: &str) -> Result<String, String> {
    if path.is_empty() {
        return Err("the path is empty".to_owned());
    }
    let unified = path.replace('\\', "/");
    if unified.starts_with('/') {
        return Err(format!("`{path}` is absolute; only paths relative to the source root are read"));
    }
    let bytes = unified.as_bytes();
    if bytes.len() >= 2 && bytes[1] == b':' && bytes[0].is_ascii_alphabetic() {
        return Err(format!("`{path}` starts with a drive letter; only paths relative to the source root are read"));
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in unified.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(format!("`{path}` contains `..` and could leave the source root")),
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err(format!("`{path}` names no file"));
    }
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_paths_are_cleaned() {
        assert_eq!(normalize("src/A.java").unwrap(), "src/A.java");
        assert_eq!(normalize("./src//main/./A.java").unwrap(), "src/main/A.java");
        assert_eq!(normalize("src\\main\\A.java").unwrap(), "src/main/A.java");
        assert_eq!(normalize("a..b/c.java").unwrap(), "a..b/c.java");
    }

    #[test]
    fn escaping_paths_are_refused_with_a_reason() {
        for p in ["", "/etc/passwd", "\\x", "C:/x", "c:x", "../x", "a/../../x", "a/..", ".", "./"] {
            let err = normalize(p).unwrap_err();
            assert!(!err.is_empty(), "{p}");
        }
        assert!(normalize("../x").unwrap_err().contains(".."));
        assert!(normalize("/etc/passwd").unwrap_err().contains("absolute"));
    }
}
