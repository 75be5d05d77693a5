//! A [`DomainView`] as Markdown: `index.md` (coverage, the context map as a
//! Mermaid `flowchart`, the contexts, shared kernels and the glossary) and
//! one `<key>.md` per context (its modules, each aggregate as a Mermaid
//! `classDiagram`, each state machine as a `stateDiagram-v2`, the other
//! concepts, commands and events, terms, and what is not explained).
//!
//! Answer and corpus text is data: Markdown punctuation is backslash-escaped
//! ([`text`]), ids go in code spans ([`code`]), and Mermaid labels are quoted
//! with Mermaid's entity codes for `"`, `#`, `<`, `>`, `&`, `%` and
//! backticks ([`label`]); edge and transition labels keep letters, digits,
//! spaces, `_` and `-` only ([`plain`]). Diagram node ids are generated
//! (`c0`, `t1`, `s2`). Every diagram parses and renders with Mermaid 12 in
//! `securityLevel: 'strict'` (tests/e2e/domain-markdown.test.mjs).

use crate::{Aggregate, Concept, Context, DomainView, Tally};
use std::fmt::Write;

/// The folder the files go in for a model file: `model.jsonl` →
/// `model.domain` (the CLI's default `--out-dir`, the page's zip).
pub fn folder_for(model_file: &str) -> String {
    let stem = model_file.strip_suffix(".jsonl").filter(|s| !s.is_empty()).unwrap_or(model_file);
    let stem = if stem.is_empty() { "model" } else { stem };
    format!("{stem}.domain")
}

/// The files of the view: `(file name, Markdown)`, `index.md` first.
pub fn files(view: &DomainView) -> Vec<(String, String)> {
    let mut out = vec![("index.md".to_owned(), index(view))];
    out.extend(view.contexts.iter().map(|c| (format!("{}.md", c.key), context(view, c))));
    out
}

/// Markdown text: punctuation that could make markup is escaped, lines joined.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.split_whitespace().collect::<Vec<_>>().join(" ").chars() {
        if "\\`*_{}[]<>()#+-.!|~&".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A code span holding `s` whatever backticks it has.
pub fn code(s: &str) -> String {
    let s = s.replace(['\n', '\r'], " ");
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// A quoted Mermaid label: whitespace joined, `"`, `#`, `<`, `>`, `&`, a
/// backtick and `%` as Mermaid entity codes (`#quot;`, `#35;`, …), which
/// Mermaid shows as the characters they stand for.
pub fn label(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.split_whitespace().collect::<Vec<_>>().join(" ").chars() {
        match c {
            '#' => out.push_str("#35;"),
            '"' => out.push_str("#quot;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '&' => out.push_str("#amp;"),
            '`' => out.push_str("#96;"),
            // `%%` would start a comment or a `%%{init: …}%%` directive.
            '%' => out.push_str("#37;"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// An edge or transition label: letters, digits, spaces, `_` and `-`.
pub fn plain(s: &str) -> String {
    let kept: String = s.chars().map(|c| if c.is_alphanumeric() || c == '_' || c == '-' { c } else { ' ' }).collect();
    let joined = kept.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.is_empty() {
        "-".into()
    } else {
        joined
    }
}

fn tally(t: &Tally, what: &str) -> String {
    let mut s = format!("{} of {} {what} explained", t.explained, t.units);
    if t.stale > 0 {
        write!(s, ", {} stale", t.stale).unwrap();
    }
    if t.failed > 0 {
        write!(s, ", {} failed", t.failed).unwrap();
    }
    if t.unexplained > 0 {
        write!(s, ", {} not explained yet", t.unexplained).unwrap();
    }
    s
}

/// The context map as a Mermaid `flowchart`.
pub fn context_map(view: &DomainView) -> String {
    let mut m = String::from("flowchart LR\n");
    for (i, c) in view.contexts.iter().enumerate() {
        writeln!(m, "  c{i}[{}]", label(&c.name)).unwrap();
    }
    let at = |key: &str| view.contexts.iter().position(|c| c.key == key);
    for e in &view.context_map {
        let (Some(from), Some(to)) = (at(&e.from), at(&e.to)) else { continue };
        let mut parts = Vec::new();
        if e.depends_on > 0 {
            parts.push(format!("dependsOn {}", e.depends_on));
        }
        if e.calls > 0 {
            parts.push(format!("calls {}", e.calls));
        }
        if e.type_uses > 0 {
            parts.push(format!("uses {}", e.type_uses));
        }
        writeln!(m, "  c{from} -->|\"{}\"| c{to}", plain(&parts.join(" "))).unwrap();
    }
    m
}

/// An aggregate as a Mermaid `classDiagram`: the root, its entities and
/// value types, and what its members relate to.
pub fn aggregate_diagram(a: &Aggregate) -> String {
    let mut m = String::from("classDiagram\n");
    let mut nodes: Vec<(String, String)> = Vec::new(); // (id or name, label)
    let mut node = |key: &str, name: &str, m: &mut String| -> usize {
        if let Some(i) = nodes.iter().position(|(k, _)| k == key) {
            return i;
        }
        nodes.push((key.to_owned(), name.to_owned()));
        let i = nodes.len() - 1;
        writeln!(m, "  class t{i}[{}]", label(name)).unwrap();
        i
    };
    let root = node(&a.root.id, &a.root.name, &mut m);
    writeln!(m, "  <<aggregateRoot>> t{root}").unwrap();
    for e in &a.entities {
        let i = node(&e.id, &e.name, &mut m);
        writeln!(m, "  t{root} *-- t{i} : contains").unwrap();
    }
    for v in &a.value_types {
        node(&v.id, &v.name, &mut m);
    }
    let members: Vec<&Concept> = std::iter::once(&a.root).chain(&a.entities).collect();
    for r in &a.relations {
        let Some(from) = members.iter().find(|c| c.id == r.from) else { continue };
        let f = node(&from.id, &from.name, &mut m);
        let target = r.to.clone().unwrap_or_else(|| format!("name:{}", r.to_name));
        let name = a
            .entities
            .iter()
            .chain(&a.value_types)
            .chain(std::iter::once(&a.root))
            .find(|c| Some(&c.id) == r.to.as_ref())
            .map_or(r.to_name.as_str(), |c| c.name.as_str());
        let t = node(&target, name, &mut m);
        if f != t {
            writeln!(m, "  t{f} --> t{t} : {}", plain(&r.via)).unwrap();
        }
    }
    m
}

/// A state machine as a Mermaid `stateDiagram-v2`.
pub fn state_diagram(states: &[String], transitions: &[(String, String, String)]) -> String {
    let mut m = String::from("stateDiagram-v2\n");
    let mut names: Vec<String> = Vec::new();
    let mut state = |name: &str, m: &mut String| -> usize {
        if let Some(i) = names.iter().position(|n| n == name) {
            return i;
        }
        names.push(name.to_owned());
        let i = names.len() - 1;
        writeln!(m, "  state {} as s{i}", label(name)).unwrap();
        i
    };
    for s in states {
        state(s, &mut m);
    }
    for (from, to, _) in transitions {
        state(from, &mut m);
        state(to, &mut m);
    }
    let any = !states.is_empty() || !transitions.is_empty();
    if any {
        m.push_str("  [*] --> s0\n");
    }
    for (from, to, op) in transitions {
        let (f, t) = (state(from, &mut m), state(to, &mut m));
        writeln!(m, "  s{f} --> s{t} : {}", plain(op)).unwrap();
    }
    m
}

fn fence(diagram: &str) -> String {
    format!("```mermaid\n{diagram}```\n")
}

fn concept_line(c: &Concept) -> String {
    let mut s = format!("- {} {}", text(&c.name), code(&c.id));
    if let Some(k) = &c.event_kind {
        write!(s, " ({})", text(k)).unwrap();
    }
    use insights::vocab::DomainConcept::{Aggregate, Entity, ValueType};
    if !matches!(c.concept, Aggregate | Entity | ValueType) {
        write!(s, " — {}", text(c.concept.as_str())).unwrap();
    }
    write!(s, ", confidence {:.2}", c.confidence).unwrap();
    if c.stale {
        s.push_str(", **stale**");
    }
    s.push('\n');
    s
}

fn index(view: &DomainView) -> String {
    let mut o = String::from("# The domain\n\n");
    let c = &view.coverage;
    writeln!(
        o,
        "{}; {}; {}.\n",
        tally(&c.types, "types"),
        tally(&c.modules, "modules"),
        tally(&c.operations, "operations")
    )
    .unwrap();
    o.push_str("## Context map\n\n");
    o.push_str(&fence(&context_map(view)));
    o.push('\n');
    o.push_str("## Contexts\n\n| context | modules | aggregates | types explained |\n|---|---|---|---|\n");
    for ctx in &view.contexts {
        writeln!(
            o,
            "| [{}]({}.md) | {} | {} | {} of {} |",
            text(&ctx.name),
            ctx.key,
            ctx.modules.len(),
            ctx.aggregates.len(),
            ctx.coverage.types.explained,
            ctx.coverage.types.units
        )
        .unwrap();
    }
    if !view.context_map.is_empty() {
        o.push_str("\n## Dependencies between contexts\n\n| from | to | dependsOn | calls | type uses | for example |\n|---|---|---|---|---|---|\n");
        for e in &view.context_map {
            let sample = e.samples.first().map(|(a, b)| format!("{} → {}", code(a), code(b))).unwrap_or_default();
            writeln!(o, "| {} | {} | {} | {} | {} | {sample} |", e.from, e.to, e.depends_on, e.calls, e.type_uses)
                .unwrap();
        }
    }
    if !view.shared_kernels.is_empty() {
        o.push_str("\n## Shared kernels\n\n");
        for k in &view.shared_kernels {
            let with = if k.with.is_empty() { String::new() } else { format!(" (with {})", k.with.join(", ")) };
            writeln!(o, "- {} in {}{with}: {}", code(&k.module), k.context, text(&k.hint)).unwrap();
        }
    }
    o.push_str("\n## Glossary\n\n");
    if view.glossary.is_empty() {
        o.push_str("No term yet: the explanations name none.\n");
    }
    for g in &view.glossary {
        let flag = if g.conflicting { " — **defined differently in two contexts**" } else { "" };
        writeln!(o, "- **{}**{flag}", text(&g.term)).unwrap();
        for d in &g.definitions {
            writeln!(o, "  - in {}: {}", d.context, text(&d.definition)).unwrap();
        }
        if g.definitions.is_empty() {
            o.push_str("  - not defined by any module\n");
        }
        let units = g.units.iter().take(5).map(|u| code(u)).collect::<Vec<_>>().join(", ");
        let more = (g.unit_count as usize).saturating_sub(g.units.len().min(5));
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        writeln!(
            o,
            "  - used in {}; named by {} unit(s){}{more}",
            g.contexts.join(", "),
            g.unit_count,
            if units.is_empty() { String::new() } else { format!(": {units}") }
        )
        .unwrap();
    }
    o
}

fn context(view: &DomainView, c: &Context) -> String {
    let mut o = format!("# {}\n\n", text(&c.name));
    writeln!(
        o,
        "{}. {}; {}; {}.\n",
        if c.hinted { "Named by the modules' bounded-context hint" } else { "One module, no bounded-context hint" },
        tally(&c.coverage.types, "types"),
        tally(&c.coverage.modules, "modules"),
        tally(&c.coverage.operations, "operations")
    )
    .unwrap();
    o.push_str("## Modules\n\n");
    for m in &c.modules {
        let conf = m.confidence.map(|x| format!(", confidence {x:.2}")).unwrap_or_default();
        let why = m.rationale.as_deref().map(|r| format!(": {}", text(r))).unwrap_or_default();
        writeln!(o, "- {} ({}{conf}){why}", code(&m.id), m.status.as_str()).unwrap();
    }
    for a in &c.aggregates {
        writeln!(o, "\n## Aggregate {}\n", text(&a.root.name)).unwrap();
        o.push_str(&fence(&aggregate_diagram(a)));
        o.push('\n');
        o.push_str(&concept_line(&a.root));
        for e in &a.entities {
            o.push_str(&concept_line(e));
        }
        for v in &a.value_types {
            o.push_str(&concept_line(v));
        }
    }
    for sm in &c.state_machines {
        writeln!(o, "\n## Lifecycle of {} {}\n", text(&sm.name), code(&sm.id)).unwrap();
        o.push_str(&fence(&state_diagram(&sm.states, &sm.transitions)));
    }
    let lists: [(&str, &Vec<Concept>); 6] = [
        ("Entities outside an aggregate", &c.entities),
        ("Value types", &c.value_types),
        ("Repositories", &c.repositories),
        ("Services", &c.services),
        ("Events", &c.events),
        ("Other concepts", &c.other),
    ];
    for (title, list) in lists {
        if list.is_empty() {
            continue;
        }
        writeln!(o, "\n## {title}\n").unwrap();
        for k in list {
            o.push_str(&concept_line(k));
        }
    }
    for (title, list) in
        [("Commands handled", &c.commands), ("Events emitted", &c.emits), ("Events handled", &c.handles)]
    {
        if list.is_empty() {
            continue;
        }
        writeln!(o, "\n## {title}\n").unwrap();
        for msg in list {
            let kind = msg.kind.as_deref().map(|k| format!(" ({})", text(k))).unwrap_or_default();
            let units = msg.units.iter().map(|u| code(u)).collect::<Vec<_>>().join(", ");
            writeln!(o, "- {}{kind}: {units}", text(&msg.name)).unwrap();
        }
    }
    if !c.terms.is_empty() {
        o.push_str("\n## Terms\n\n");
        for t in &c.terms {
            let here = view
                .glossary
                .iter()
                .find(|g| &g.term == t)
                .and_then(|g| g.definitions.iter().find(|d| d.context == c.key).map(|d| text(&d.definition)));
            match here {
                Some(d) => writeln!(o, "- **{}**: {d}", text(t)).unwrap(),
                None => writeln!(o, "- **{}** (used here, defined elsewhere or not at all)", text(t)).unwrap(),
            }
        }
    }
    if !c.unexplained.is_empty() {
        o.push_str("\n## Not explained\n\n");
        for u in &c.unexplained {
            writeln!(o, "- {} {} ({})", u.level.as_str(), code(&u.id), u.status.as_str()).unwrap();
        }
    }
    o
}
