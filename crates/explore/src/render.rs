//! The Markdown form of a map — what the CLI prints and what a user pastes
//! into a chat — and the fitting of the map part to its character cap.
//!
//! Order: the flow (when there is one), the `Exploration` header with the
//! bounded query echo and the summary, the symbols, dispatch notes, the
//! blast radius, the relationships, then (snippets, source) the excerpts,
//! then one closing line about bodies. Names are code spans and corpus text
//! sits in fences it cannot close.

use std::fmt::Write as _;

use crate::map::{Cut, ExploreMap, Hop, SymbolRef};
use crate::query::Mode;
use crate::text::{code, fence_for, language_of, plural};

const FLOW_TITLE: &str = "**Flow (call path among the symbols you queried)**";
const DISPATCH_TITLE: &str = "**Interface dispatch (a named method has many implementations)**";
const BLAST_TITLE: &str = "**Blast radius — what depends on these (update/verify before editing)**";
const RELATIONSHIPS_TITLE: &str = "**Relationships**";
const SOURCE_TITLE: &str = "**Source Code**";

impl ExploreMap {
    /// The whole map as Markdown.
    pub fn to_markdown(&self) -> String {
        let mut out = map_part(self);
        if let Some(source) = &self.source {
            source_part(self, source, &mut out);
        }
        closing(self, &mut out);
        out
    }

    /// The JSON form (one line).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("maps serialize")
    }

    /// Characters of the Markdown form.
    pub fn chars(&self) -> usize {
        self.to_markdown().chars().count()
    }
}

fn at(r: &SymbolRef) -> String {
    match (&r.file, r.line) {
        (Some(f), Some(l)) => format!("{f}:{l}"),
        (Some(f), None) => f.clone(),
        _ => "no source anchor".to_owned(),
    }
}

fn file_name(r: &SymbolRef) -> String {
    match (&r.file, r.line) {
        (Some(f), Some(l)) => format!("{}:{l}", f.rsplit('/').next().unwrap_or(f)),
        _ => at(r),
    }
}

fn more(omitted: usize) -> String {
    format!("… and {omitted} more")
}

/// Everything but the excerpts and the closing line: what the map cap bounds.
fn map_part(m: &ExploreMap) -> String {
    let mut out = String::new();
    if let Some(flow) = &m.flow {
        out.push_str(FLOW_TITLE);
        out.push_str("\n\n");
        for (k, step) in flow.steps.iter().enumerate() {
            match step.via {
                Some(Hop::Calls) => out.push_str("   ↓ calls\n"),
                Some(Hop::Dispatch) => out.push_str(
                    "   ↓ dynamic: interface → implementation (inferred from the type hierarchy, not a static edge)\n",
                ),
                None => {}
            }
            let _ = writeln!(out, "{}. {} ({})", k + 1, code(&step.at.name), at(&step.at));
        }
        if flow.other_paths > 0 {
            let _ = writeln!(
                out,
                "\n{} among these symbols not shown",
                plural(flow.other_paths, "other call path", "other call paths")
            );
        }
        out.push('\n');
    }
    let _ = writeln!(out, "**Exploration: {}**\n", m.query);
    summary(m, &mut out);

    out.push_str("**Symbols**\n\n");
    if m.symbols.items.is_empty() {
        out.push_str("- nothing in the model matches this question\n");
    }
    for s in &m.symbols.items {
        let _ = write!(out, "- {} ({}) {}", code(&s.at.name), s.at.kind, at(&s.at));
        if let Some(sig) = &s.signature {
            let _ = write!(out, " — {}", code(sig));
        }
        out.push('\n');
        if let Some(x) = &s.explanation {
            let mark = match &x.freshness {
                Some(f) if !f.is_current() => "generated, stale (the code changed since it was explained)",
                _ => "generated",
            };
            let _ = writeln!(out, "  - *{mark}:* {}", x.text);
        }
    }
    if m.symbols.omitted > 0 {
        let _ = write!(out, "- {}", more(m.symbols.omitted));
        if !m.more.is_empty() {
            let names: Vec<String> = m.more.iter().map(|n| code(n)).collect();
            let _ = write!(out, ", first: {}", names.join(", "));
        }
        out.push('\n');
    }
    out.push('\n');

    if !m.dispatch.items.is_empty() {
        out.push_str(DISPATCH_TITLE);
        out.push_str("\n\n");
        for d in &m.dispatch.items {
            let impls: Vec<String> =
                d.implementations.items.iter().map(|r| format!("{} ({})", code(&r.name), file_name(r))).collect();
            let mut list = impls.join(", ");
            if d.implementations.omitted > 0 {
                let _ = write!(list, ", {}", more(d.implementations.omitted));
            }
            let types = plural(d.types, "type implementing it", "types implementing it");
            let (types, rest) = types.split_once(' ').expect("a count and a noun");
            let _ = match &d.caller {
                Some(c) => writeln!(
                    out,
                    "- {} calls {}: the static graph stops at {}; at run time the call goes to one of **{types}** {rest} — {list}",
                    code(&c.name),
                    code(&d.callee.name),
                    code(&d.supertype),
                ),
                None => writeln!(
                    out,
                    "- {} is declared by {}: a call to it goes at run time to one of **{types}** {rest} — {list}",
                    code(&d.callee.name),
                    code(&d.supertype),
                ),
            };
        }
        if m.dispatch.omitted > 0 {
            let _ = writeln!(out, "- {}", more(m.dispatch.omitted));
        }
        out.push('\n');
    }

    if !m.blast_radius.items.is_empty() {
        out.push_str(BLAST_TITLE);
        out.push_str("\n\n");
        for b in &m.blast_radius.items {
            let parts: Vec<String> = b
                .groups
                .iter()
                .filter(|g| g.count > 0)
                .map(|g| {
                    let mut names: Vec<String> = g.names.items.iter().map(|n| code(n)).collect();
                    if g.names.omitted > 0 {
                        names.push(more(g.names.omitted));
                    }
                    format!("{}: {}", g.label(code), names.join(", "))
                })
                .collect();
            let deps = if parts.is_empty() {
                let mut nouns: Vec<&str> = b.groups.iter().map(|g| g.relation.noun(0)).collect();
                nouns.dedup();
                match nouns.split_last() {
                    Some((last, [])) => format!("no {last} in the model"),
                    Some((last, rest)) => format!("no {} or {last} in the model", rest.join(", ")),
                    None => "no dependents in the model".to_owned(),
                }
            } else {
                parts.join("; ")
            };
            let _ = writeln!(out, "- {} ({}) — {deps}", code(&b.root.name), file_name(&b.root));
        }
        if m.blast_radius.omitted > 0 {
            let _ = writeln!(out, "- {} (their dependents are not shown)", more(m.blast_radius.omitted));
        }
        out.push('\n');
    }

    let r = &m.relationships;
    if !r.kinds.is_empty() || r.kinds_omitted > 0 {
        out.push_str(RELATIONSHIPS_TITLE);
        out.push_str("\n\n");
        for (n, k) in r.kinds.iter().enumerate() {
            if n > 0 {
                out.push('\n');
            }
            let _ = writeln!(out, "**{}:**", k.label);
            for p in &k.pairs.items {
                let _ = writeln!(out, "- {} → {}", code(&p.from), code(&p.to));
            }
            if k.pairs.omitted > 0 {
                let _ = writeln!(out, "- {}", more(k.pairs.omitted));
            }
        }
        if r.kinds_omitted > 0 {
            let _ = writeln!(
                out,
                "\n{} not shown ({})",
                plural(r.kinds_omitted, "relationship kind", "relationship kinds"),
                plural(r.pairs_in_omitted_kinds, "pair", "pairs")
            );
        }
        out.push('\n');
    }
    out
}

fn summary(m: &ExploreMap, out: &mut String) {
    let s = &m.summary;
    let mut line =
        format!("Found {} across {}.", plural(s.matched, "symbol", "symbols"), plural(s.files, "file", "files"));
    if m.symbols.omitted > 0 {
        let _ = write!(line, " Listed: {}.", m.symbols.items.len());
    }
    if !s.not_found.is_empty() {
        let names: Vec<String> = s.not_found.iter().map(|n| code(n)).collect();
        let _ = write!(line, " Not found in the model: {}.", names.join(", "));
    }
    for note in &s.notes {
        let mut note = note.clone();
        if let Some(first) = note.get(..1) {
            note.replace_range(..1, &first.to_uppercase());
        }
        let _ = write!(line, " {note}.");
    }
    let x = &s.explanations;
    if x.loaded == 0 {
        line.push_str(" No explanations are loaded for this model.");
    } else {
        let _ = write!(
            line,
            " Explanations are generated by an LLM, not read from the code: {} of the {} listed symbols {} one",
            x.listed,
            m.symbols.items.len(),
            if x.listed == 1 { "has" } else { "have" }
        );
        if x.stale > 0 {
            let _ = write!(
                line,
                "; {} stale (the code changed since)",
                if x.stale == 1 { "1 is".to_owned() } else { format!("{} are", x.stale) }
            );
        }
        if x.unchecked > 0 {
            let _ = write!(line, "; {} not checked against the current code", x.unchecked);
        } else if x.stale == 0 && x.listed > 0 {
            line.push_str("; none is stale");
        }
        line.push('.');
    }
    out.push_str(&line);
    out.push_str("\n\n");
}

fn source_part(m: &ExploreMap, s: &crate::map::SourceSection, out: &mut String) {
    out.push_str(SOURCE_TITLE);
    out.push_str("\n\n");
    let what = match m.mode {
        Mode::Snippets => format!("the first {} lines of each symbol", m.caps.snippet_lines),
        _ => format!("each symbol's lines, within {} characters", s.budget),
    };
    let _ = writeln!(out, "> Verbatim source as read now ({what}), numbered by line.\n");
    for x in &s.excerpts {
        let names: Vec<String> = x.names.iter().map(|n| code(n)).collect();
        let _ = writeln!(out, "**{}** lines {}–{} — {}", code(&x.file), x.start, x.end, names.join(", "));
        let mut body = String::new();
        for (k, line) in x.text.split('\n').enumerate() {
            let _ = writeln!(body, "{}\t{line}", x.start + k as u32);
        }
        let fence = fence_for(&body);
        let _ = write!(out, "{fence}{}\n{body}{fence}\n", language_of(&x.file));
        if x.omitted_lines > 0 {
            let why = match x.cut {
                Some(Cut::Budget) => format!(", to keep the source within {} characters", s.budget),
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "… {} not shown (lines {}–{}){why}",
                plural(x.omitted_lines, "more line", "more lines"),
                x.shown_end + 1,
                x.end
            );
        }
        out.push('\n');
    }
    if !s.not_shown.is_empty() {
        out.push_str("Source not shown:\n");
        for n in &s.not_shown {
            let _ = writeln!(out, "- {} ({}:{}–{}): {}", code(&n.name), n.file, n.start, n.end, n.reason);
        }
        out.push('\n');
    }
}

fn closing(m: &ExploreMap, out: &mut String) {
    let cut =
        m.source.as_ref().is_some_and(|s| !s.not_shown.is_empty() || s.excerpts.iter().any(|x| x.omitted_lines > 0));
    let lead = match m.mode {
        Mode::Map => "Bodies are not included.",
        _ if cut => "Some bodies are cut or left out, as marked.",
        _ => "The listed symbols' bodies are above.",
    };
    let follow = match (&m.body_hint, m.source_loaded) {
        (Some(hint), true) if m.mode == Mode::Map || cut => format!(" For one symbol's body: {}.", code(hint)),
        (_, false) => " No source is loaded here, so no body can be shown.".to_owned(),
        _ => String::new(),
    };
    let _ = writeln!(out, "> {lead}{follow}");
}

/// Drops the lowest-priority rows until the map part fits `caps.map_chars`:
/// relationship pairs first (a kind emptied is counted as a kind not shown),
/// then blast radius entries, dispatch notes, listed symbols that were not
/// requested, and last the requested ones (one always stays). The flow,
/// the echo and the summary are never dropped. Every drop is counted.
pub(crate) fn fit(m: &mut ExploreMap) {
    let cap = m.caps.map_chars;
    while map_part(m).chars().count() > cap && drop_one(m) {}
}

fn drop_one(m: &mut ExploreMap) -> bool {
    let r = &mut m.relationships;
    if let Some(k) = r.kinds.last_mut() {
        if k.pairs.items.len() > 1 {
            k.pairs.items.pop();
            k.pairs.omitted += 1;
        } else {
            let k = r.kinds.pop().expect("a kind");
            r.kinds_omitted += 1;
            r.pairs_in_omitted_kinds += k.pairs.total();
        }
        return true;
    }
    if m.blast_radius.items.pop().is_some() {
        m.blast_radius.omitted += 1;
        return true;
    }
    if m.dispatch.items.pop().is_some() {
        m.dispatch.omitted += 1;
        return true;
    }
    let last_other = m.symbols.items.iter().rposition(|s| !s.why.requested());
    let drop = match last_other {
        Some(k) => Some(k),
        None if m.symbols.items.len() > 1 => Some(m.symbols.items.len() - 1),
        None => None,
    };
    if let Some(k) = drop {
        let s = m.symbols.items.remove(k);
        m.symbols.omitted += 1;
        m.more.insert(0, s.at.name);
        m.more.truncate(5);
        return true;
    }
    false
}
