//! Reading a question: the bounded echo, a per-query `mode:`, quoted
//! phrases, `file:line` anchors (`Fleet.java:40`, `a/B.java:12-30`,
//! `B.java#L12-L30`, `B.java line 40`), bare paths, symbol-shaped names
//! (`RentalService.finish`, `Rental#finish()`, `` `finish` ``) and the
//! remaining words, stemmed, stop words dropped.

use serde::Serialize;

use crate::text::{is_source_extension, is_stop_word, one_line, segments, stem};

/// The longest question read, in characters; the rest is ignored.
pub const MAX_QUESTION_CHARS: usize = 10_000;
/// The longest query echo, in characters (newlines folded).
pub const ECHO_CHARS: usize = 160;
/// Symbol-shaped names looked up per question.
pub(crate) const MAX_NAME_TOKENS: usize = 16;
/// Words matched per question.
const MAX_WORDS: usize = 24;
/// Quoted phrases searched per question.
const MAX_PHRASES: usize = 4;
/// The longest quoted phrase, in characters.
const MAX_PHRASE_CHARS: usize = 200;

/// How much source a map carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// No bodies: symbols, flow, dispatch, blast radius, relationships.
    #[default]
    Map,
    /// The map plus the first lines of each excerpt.
    Snippets,
    /// The map plus whole excerpts, within a character budget.
    Source,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::Map, Mode::Snippets, Mode::Source];

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Map => "map",
            Mode::Snippets => "snippets",
            Mode::Source => "source",
        }
    }

    /// `map`, `snippets` or `source` (case-insensitive).
    pub fn parse(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.as_str().eq_ignore_ascii_case(s.trim()))
    }

    /// The mode that applies, highest first: the question's own `mode:`,
    /// then the call's (a URL parameter, a CLI flag), then the user's or
    /// project's setting, then `map`.
    pub fn resolve(per_query: Option<Mode>, flag: Option<Mode>, setting: Option<Mode>) -> Mode {
        per_query.or(flag).or(setting).unwrap_or_default()
    }
}

/// A symbol-shaped token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NameToken {
    /// Normalized: `#` and `::` as `.`, no `()`.
    pub text: String,
    /// camelCase, PascalCase with inner capitals, snake_case, qualified, or
    /// quoted: it names a symbol, and is reported when nothing has that name.
    pub precise: bool,
}

/// A `file:line` or `file:start-end` anchor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AnchorToken {
    pub text: String,
    pub path: String,
    pub start: u32,
    pub end: u32,
}

/// A word of the question's prose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Word {
    /// As written, lowercase.
    pub lower: String,
    pub stem: String,
}

/// A question, read.
#[derive(Clone, Debug, Default)]
pub(crate) struct Parsed {
    pub echo: String,
    /// Characters in the question as given.
    pub chars: usize,
    pub mode: Option<Mode>,
    pub names: Vec<NameToken>,
    pub anchors: Vec<AnchorToken>,
    pub paths: Vec<String>,
    pub phrases: Vec<String>,
    pub words: Vec<Word>,
    /// Names, phrases and words beyond the caps.
    pub dropped: usize,
    /// Things read that lead nowhere (e.g. a line number without a file).
    pub notes: Vec<String>,
}

/// Opening and closing quote characters of a phrase.
fn closing_quote(c: char) -> Option<char> {
    match c {
        '"' => Some('"'),
        '“' => Some('”'),
        '`' => Some('`'),
        _ => None,
    }
}

/// Reads a question (see the module docs).
pub(crate) fn parse(question: &str) -> Parsed {
    let chars = question.chars().count();
    let bounded = match question.char_indices().nth(MAX_QUESTION_CHARS) {
        Some((at, _)) => &question[..at],
        None => question,
    };
    let mut p = Parsed { echo: one_line(bounded, ECHO_CHARS), chars, ..Parsed::default() };
    if chars > MAX_QUESTION_CHARS {
        p.notes.push(format!("only the first {MAX_QUESTION_CHARS} characters of the question were read"));
    }
    let mut reader = Reader::default();
    let mut piece = String::new();
    let mut it = bounded.chars().peekable();
    while let Some(c) = it.next() {
        if let Some(close) = closing_quote(c) {
            let inside: String = it.clone().take_while(|&x| x != close && x != '"').collect();
            let closed = it.clone().nth(inside.chars().count()).is_some();
            if closed {
                reader.piece(&mut p, std::mem::take(&mut piece), false);
                for _ in 0..=inside.chars().count() {
                    it.next();
                }
                let inside = inside.trim();
                if inside.chars().any(char::is_whitespace) {
                    if p.phrases.len() < MAX_PHRASES {
                        p.phrases.push(one_line(inside, MAX_PHRASE_CHARS));
                    } else {
                        p.dropped += 1;
                    }
                } else if !inside.is_empty() {
                    reader.piece(&mut p, inside.to_owned(), true);
                }
                continue;
            }
        }
        if c.is_whitespace() {
            reader.piece(&mut p, std::mem::take(&mut piece), false);
        } else {
            piece.push(c);
        }
    }
    reader.piece(&mut p, piece, false);
    reader.finish(&mut p);
    p
}

/// The token reader's state: pending line references.
#[derive(Default)]
struct Reader {
    /// The previous piece was `line` / `lines`.
    line_word: bool,
    line_refs: Vec<(u32, u32, String)>,
}

/// `12` or `12-40` (also `12–40`, `L12-L40`).
fn line_range(s: &str) -> Option<(u32, u32)> {
    let s = s.strip_prefix('L').unwrap_or(s);
    let (a, b) = match s.split_once(['-', '–']) {
        Some((a, b)) => (a, b.strip_prefix('L').unwrap_or(b)),
        None => (s, s),
    };
    let (a, b) = (a.parse::<u32>().ok()?, b.parse::<u32>().ok()?);
    (a >= 1 && b >= a).then_some((a, b))
}

fn path_shaped(s: &str) -> bool {
    if s.contains('/') || s.contains('\\') {
        return s.chars().any(char::is_alphanumeric);
    }
    match s.rsplit_once('.') {
        Some((stem, ext)) => !stem.is_empty() && is_source_extension(ext),
        None => false,
    }
}

fn identifier_shaped(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && s.chars().all(|c| c.is_alphanumeric() || "_$.<>".contains(c))
        && !s.split('.').any(str::is_empty)
}

impl Reader {
    fn piece(&mut self, p: &mut Parsed, raw: String, forced: bool) {
        let t = raw
            .trim_start_matches(['(', '[', '{', '<', '\'', '"', '*', '“'])
            .trim_end_matches([')', ']', '}', '>', '\'', '"', ',', ';', '!', '?', '*', '.', ':', '”']);
        if t.is_empty() {
            return;
        }
        let line_word = std::mem::take(&mut self.line_word);
        if let Some(m) = t.to_ascii_lowercase().strip_prefix("mode:") {
            match Mode::parse(m) {
                Some(mode) => p.mode = Some(mode),
                None => p.notes.push(format!("{} is not a mode (map, snippets or source)", crate::text::code(t))),
            }
            return;
        }
        if t.eq_ignore_ascii_case("line") || t.eq_ignore_ascii_case("lines") {
            self.line_word = true;
            return;
        }
        if line_word || (t.starts_with('L') && t[1..].starts_with(|c: char| c.is_ascii_digit())) {
            if let Some((a, b)) = line_range(t) {
                self.line_refs.push((a, b, t.to_owned()));
                return;
            }
        }
        // `path:12`, `path:12-40`, `path#L12-L40`.
        let anchored = t
            .rsplit_once(':')
            .and_then(|(path, lines)| line_range(lines).map(|r| (path, r)))
            .or_else(|| t.rsplit_once("#L").and_then(|(path, lines)| line_range(lines).map(|r| (path, r))));
        if let Some((path, (start, end))) = anchored {
            if path_shaped(path) {
                p.anchors.push(AnchorToken { text: t.to_owned(), path: path.replace('\\', "/"), start, end });
                return;
            }
        }
        if path_shaped(t) {
            let path = t.replace('\\', "/");
            if !p.paths.contains(&path) {
                p.paths.push(path);
            }
            return;
        }
        let name = t.replace("::", ".").replace(['#'], ".");
        let name = match name.find('(') {
            Some(at) => name[..at].to_owned(),
            None => name,
        };
        // `e.g.`, `i.e.`: prose, not a qualified name.
        let abbreviation = name.contains('.') && name.split('.').all(|s| s.chars().count() <= 1);
        if identifier_shaped(&name) && !abbreviation {
            let first_upper = name.starts_with(char::is_uppercase);
            let inner_upper = name.chars().skip(1).any(char::is_uppercase);
            let precise = forced
                || name.contains('.')
                || name.trim_start_matches('_').contains('_')
                || name.contains('$')
                || inner_upper;
            if precise || first_upper {
                if p.names.iter().any(|n| n.text == name) {
                    return;
                }
                if p.names.len() >= MAX_NAME_TOKENS {
                    p.dropped += 1;
                    return;
                }
                // A capitalized word names a symbol only if one has exactly
                // that name; it also counts as a word.
                p.names.push(NameToken { text: name.clone(), precise });
                if precise {
                    return;
                }
            }
        }
        // Prose: every word of the piece.
        let mut words = Vec::new();
        for w in t.split(|c: char| !c.is_alphanumeric()) {
            segments(w, |s| words.push(s.to_owned()));
        }
        for lower in words {
            if lower.chars().count() < 2 || is_stop_word(&lower) || lower.chars().all(|c| c.is_ascii_digit()) {
                continue;
            }
            let stem = stem(&lower);
            if p.words.iter().any(|w| w.stem == stem) {
                continue;
            }
            if p.words.len() >= MAX_WORDS {
                p.dropped += 1;
                continue;
            }
            p.words.push(Word { lower, stem });
        }
    }

    /// Line references go with the question's one path.
    fn finish(&mut self, p: &mut Parsed) {
        if self.line_refs.is_empty() {
            return;
        }
        if p.paths.len() == 1 {
            let path = p.paths.remove(0);
            for (start, end, text) in self.line_refs.drain(..) {
                p.anchors.push(AnchorToken { text: format!("{path} {text}"), path: path.clone(), start, end });
            }
        } else {
            let refs: Vec<String> = self.line_refs.iter().map(|r| crate::text::code(&r.2)).collect();
            p.notes.push(format!(
                "line {} read without a single file to go with it (write it as File.java:40)",
                refs.join(", ")
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(p: &Parsed) -> Vec<(&str, bool)> {
        p.names.iter().map(|n| (n.text.as_str(), n.precise)).collect()
    }

    #[test]
    fn names_anchors_paths_words() {
        let p = parse("How does `finish` in RentalService.finish() reach Rental#finish and Fleet.java:40?");
        assert_eq!(
            names(&p),
            [("How", false), ("finish", true), ("RentalService.finish", true), ("Rental.finish", true)]
        );
        assert_eq!(
            p.anchors,
            [AnchorToken { text: "Fleet.java:40".into(), path: "Fleet.java".into(), start: 40, end: 40 }]
        );
        assert_eq!(p.words.iter().map(|w| w.lower.as_str()).collect::<Vec<_>>(), ["reach"]);
        assert!(parse("prices, e.g. rates").names.is_empty());
    }

    #[test]
    fn anchor_forms() {
        let p = parse("a/B.java:12-30 B.java#L5-L9 see C.java line 7");
        let got: Vec<(&str, u32, u32)> = p.anchors.iter().map(|a| (a.path.as_str(), a.start, a.end)).collect();
        assert_eq!(got, [("a/B.java", 12, 30), ("B.java", 5, 9), ("C.java", 7, 7)]);
        assert!(p.paths.is_empty());
    }

    #[test]
    fn phrases_and_mode() {
        let p = parse("where is \"no open rental\" raised? mode:snippets");
        assert_eq!(p.phrases, ["no open rental"]);
        assert_eq!(p.mode, Some(Mode::Snippets));
        assert_eq!(p.words.iter().map(|w| w.stem.as_str()).collect::<Vec<_>>(), ["rais"]);
    }

    #[test]
    fn the_echo_is_bounded_and_one_line() {
        let q = format!("RentalService.finish\n{}", "why? ".repeat(800));
        let p = parse(&q);
        assert!(p.echo.chars().count() <= ECHO_CHARS);
        assert!(!p.echo.contains('\n'));
        assert_eq!(p.chars, q.chars().count());
        assert_eq!(names(&p), [("RentalService.finish", true)]);
    }

    #[test]
    fn mode_precedence() {
        use Mode::*;
        assert_eq!(Mode::resolve(None, None, None), Map);
        assert_eq!(Mode::resolve(None, None, Some(Source)), Source);
        assert_eq!(Mode::resolve(None, Some(Snippets), Some(Source)), Snippets);
        assert_eq!(Mode::resolve(Some(Map), Some(Snippets), Some(Source)), Map);
    }
}
