//! Words and Markdown: identifier segments, the light stemmer and stop words
//! of query matching, and the text hygiene of the rendered map (one-line
//! folding, inline code and fences that corpus text cannot close).

/// Splits an identifier into lowercase segments at camelCase humps, digits
/// and separators: `getHTTPServer2` → `get`, `http`, `server`, `2`;
/// `MAX_MINUTES` → `max`, `minutes`.
pub(crate) fn segments(name: &str, mut out: impl FnMut(&str)) {
    let chars: Vec<char> = name.chars().collect();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut dyn FnMut(&str)| {
        if !word.is_empty() {
            out(word);
            word.clear();
        }
    };
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            flush(&mut word, &mut out);
            continue;
        }
        if let Some(&prev) = i.checked_sub(1).and_then(|p| chars.get(p)) {
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let boundary = (c.is_uppercase() && (prev.is_lowercase() || prev.is_ascii_digit()))
                || (c.is_uppercase() && prev.is_uppercase() && next_lower)
                || (c.is_ascii_digit() != prev.is_ascii_digit() && prev.is_alphanumeric());
            if boundary {
                flush(&mut word, &mut out);
            }
        }
        word.extend(c.to_lowercase());
    }
    flush(&mut word, &mut out);
}

/// A light English stemmer, the same for the question and the index:
/// `price`, `prices`, `priced`, `pricing` → `pric`; `policies`, `policy` →
/// `policy`; `rentals` → `rental`. Words shorter than four letters stay.
pub(crate) fn stem(word: &str) -> String {
    let w = word.to_lowercase();
    if w.chars().count() < 4 || !w.is_ascii() {
        return w;
    }
    let keep = |s: &str, cut: usize| s.len() - cut >= 3;
    let mut s: &str = &w;
    let mut owned;
    if (s.ends_with("ies") || s.ends_with("ied")) && keep(s, 3) {
        owned = s[..s.len() - 3].to_owned();
        owned.push('y');
        return owned;
    }
    for suffix in ["ing", "ed", "es"] {
        if s.ends_with(suffix) && keep(s, suffix.len()) {
            s = &s[..s.len() - suffix.len()];
            break;
        }
    }
    if s.len() == w.len() && s.ends_with('s') && !s.ends_with("ss") && !s.ends_with("us") && !s.ends_with("is") {
        s = &s[..s.len() - 1];
    }
    owned = s.to_owned();
    if owned.ends_with('e') && owned.len() > 3 {
        owned.pop();
    }
    owned
}

/// Words a question is made of that say nothing about the code.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "before", "being",
    "between", "but", "by", "can", "class", "code", "could", "did", "do", "does", "done", "each", "else", "every",
    "explain", "find", "for", "from", "function", "get", "gets", "happen", "happens", "has", "have", "he", "her",
    "here", "his", "how", "i", "if", "in", "into", "is", "it", "its", "just", "like", "may", "me", "method", "might",
    "must", "my", "no", "not", "of", "on", "only", "or", "our", "set", "sets", "shall", "she", "should", "show", "so",
    "some", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "through", "to",
    "use", "used", "uses", "using", "via", "was", "we", "were", "what", "when", "where", "which", "who", "whom",
    "whose", "why", "will", "with", "without", "work", "works", "would", "you", "your",
];

/// True for a word a question is made of that says nothing about the code.
pub(crate) fn is_stop_word(lower: &str) -> bool {
    STOP_WORDS.binary_search(&lower).is_ok()
}

/// The matching terms of free text (comments, explanations): segments of
/// every word, stemmed, stop words and words under three letters dropped.
pub(crate) fn text_terms(text: &str, mut out: impl FnMut(String)) {
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        segments(word, |seg| {
            if seg.chars().count() >= 3 && !is_stop_word(seg) && !seg.chars().all(|c| c.is_ascii_digit()) {
                out(stem(seg));
            }
        });
    }
}

/// A control character shown as a symbol (U+2400…), never sent to a
/// terminal or a chat; other characters unchanged.
pub fn visible(c: char) -> char {
    match c as u32 {
        n @ 0x00..=0x1f => char::from_u32(0x2400 + n).expect("control pictures"),
        0x7f => '\u{2421}',
        0x80..=0x9f => '\u{fffd}',
        _ => c,
    }
}

/// Text folded onto one line (line breaks, tabs and runs of white space
/// become one space; control characters are shown as symbols) and cut to
/// `max` characters, the cut marked with `…`.
pub(crate) fn one_line(s: &str, max: usize) -> String {
    let mut out = String::new();
    let mut count = 0usize;
    let mut pending_space = false;
    for c in s.trim().chars() {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        let need = if pending_space { 2 } else { 1 };
        if count + need > max {
            out.pop();
            while out.ends_with(' ') {
                out.pop();
            }
            out.push('…');
            return out;
        }
        if pending_space {
            out.push(' ');
            count += 1;
            pending_space = false;
        }
        out.push(visible(c));
        count += 1;
    }
    out
}

/// The first sentence of a description, on one line, at most `max` characters.
pub(crate) fn first_sentence(s: &str, max: usize) -> String {
    let line = s.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let end = line.match_indices(". ").map(|(i, _)| i + 1).find(|&i| i >= 12).unwrap_or(line.len());
    one_line(&line[..end], max)
}

/// The longest run of backticks in `s`.
pub(crate) fn longest_backtick_run(s: &str) -> usize {
    let (mut best, mut run) = (0, 0);
    for c in s.chars() {
        if c == '`' {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}

/// `s` as inline code: a backtick run longer than any inside, padded when
/// `s` starts or ends with a backtick (CommonMark code spans).
pub(crate) fn code(s: &str) -> String {
    let ticks = "`".repeat(longest_backtick_run(s) + 1);
    if s.starts_with('`') || s.ends_with('`') {
        format!("{ticks} {s} {ticks}")
    } else {
        format!("{ticks}{s}{ticks}")
    }
}

/// The fence of a code block holding `content`: backticks, longer than any
/// backtick run inside and at least three, so the content cannot close it.
pub(crate) fn fence_for(content: &str) -> String {
    "`".repeat((longest_backtick_run(content) + 1).max(3))
}

/// The info string of a fenced excerpt, from the file's extension.
pub(crate) fn language_of(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "java" => "java",
        "kt" | "kts" => "kotlin",
        "scala" => "scala",
        "groovy" | "gradle" => "groovy",
        "cs" => "csharp",
        "ts" | "tsx" => "typescript",
        "js" | "jsx" | "mjs" | "cjs" => "javascript",
        "py" => "python",
        "rb" => "ruby",
        "go" => "go",
        "rs" => "rust",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" => "cpp",
        "swift" => "swift",
        "php" => "php",
        "md" => "markdown",
        "xml" => "xml",
        "sql" => "sql",
        _ => "",
    }
}

/// File extensions that make a token path-shaped.
const EXTENSIONS: &[&str] = &[
    "c",
    "cc",
    "cjs",
    "clj",
    "cpp",
    "cs",
    "cxx",
    "dart",
    "erl",
    "ex",
    "exs",
    "fs",
    "go",
    "gradle",
    "groovy",
    "h",
    "hh",
    "hpp",
    "java",
    "js",
    "json",
    "jsx",
    "kt",
    "kts",
    "lua",
    "m",
    "md",
    "mjs",
    "mm",
    "php",
    "pl",
    "properties",
    "py",
    "rb",
    "rs",
    "scala",
    "sql",
    "swift",
    "ts",
    "tsx",
    "vb",
    "xml",
    "yaml",
    "yml",
];

/// True for a file extension that makes a token path-shaped (`Fleet.java`).
pub(crate) fn is_source_extension(ext: &str) -> bool {
    EXTENSIONS.binary_search(&ext.to_ascii_lowercase().as_str()).is_ok()
}

/// `n` with the singular or plural noun.
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(s: &str) -> Vec<String> {
        let mut v = Vec::new();
        segments(s, |x| v.push(x.to_owned()));
        v
    }

    #[test]
    fn identifiers_split_into_segments() {
        assert_eq!(segs("getHTTPServer2"), ["get", "http", "server", "2"]);
        assert_eq!(segs("MAX_MINUTES"), ["max", "minutes"]);
        assert_eq!(segs("RentalService.finish"), ["rental", "service", "finish"]);
        assert_eq!(segs("<init>"), ["init"]);
    }

    #[test]
    fn stems_meet() {
        for w in ["price", "prices", "priced", "pricing"] {
            assert_eq!(stem(w), "pric", "{w}");
        }
        assert_eq!(stem("policies"), "policy");
        assert_eq!(stem("policy"), "policy");
        assert_eq!(stem("rentals"), stem("rental"));
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("services"), stem("service"));
    }

    #[test]
    fn word_lists_are_sorted() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(EXTENSIONS.windows(2).all(|w| w[0] < w[1]));
        assert!(is_source_extension("JAVA") && is_source_extension("yml") && !is_source_extension("finish"));
        assert!(is_stop_word("how") && !is_stop_word("rental"));
    }

    #[test]
    fn one_line_folds_and_cuts() {
        assert_eq!(one_line("a\n\n b\tc\u{1b}", 80), "a b c\u{241b}");
        assert_eq!(one_line("abcdef", 4), "abc…");
        assert_eq!(first_sentence("Closes a rental. Then docks it.\nMore.", 120), "Closes a rental.");
    }

    #[test]
    fn code_and_fences_outrun_backticks() {
        assert_eq!(code("a"), "`a`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x"), "`` `x ``");
        assert_eq!(fence_for("no ticks"), "```");
        assert_eq!(fence_for("```\nx\n````"), "`````");
    }
}
