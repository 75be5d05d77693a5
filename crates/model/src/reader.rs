//! The streaming reader: lines (or raw chunks) in, a validated [`Model`] out.
//!
//! Single pass, section by section (`header → f* → e* → x* → eof`), never
//! holding the file as one string. Every rule of `docs/formats/model.md` §1–§5
//! is enforced as the line arrives, except what needs every entity: forward
//! entity references, and that no entity is its own parent and no parents
//! form a ring (§4.4), both checked when the entity section ends. The first
//! broken rule stops the read with an error naming the line, the record and
//! what was expected.

use crate::error::{FindingKind, Findings, ModelError, Record, Rule};
use crate::graph::{Anchor, Csr, Edge, EdgeExtra, EntityRec, Header, Model, Rare, Span, TraitSet, NONE};
use crate::literal::{Literal, NamedArgument};
use crate::order::cmp_utf16;
use crate::strings::{Str, Strings};
use crate::vocab::{EdgeKind, Provenance, Trait, TraitMask};
use crate::wire::{self, EdgeLine, EntityLine, EofLine, Extensions, FileLine, HeaderLine, Index, RawAnchor};
use hashbrown::{HashMap, HashSet};
use serde_json::value::RawValue;
use std::cmp::Ordering;
use std::io::BufRead;

/// Reads a whole model from `input`. `source_name` names the input in errors
/// (`model.jsonl:412: …`).
pub fn read_model<R: BufRead>(input: R, source_name: &str) -> Result<Model, ModelError> {
    read_model_with_progress(input, source_name, |_| {})
}

/// [`read_model`], calling `progress` with the bytes consumed so far about
/// every 4 MiB.
pub fn read_model_with_progress<R: BufRead>(
    mut input: R,
    source_name: &str,
    mut progress: impl FnMut(u64),
) -> Result<Model, ModelError> {
    let mut reader = ModelReader::new(source_name);
    let mut buf = Vec::with_capacity(4096);
    let mut next_report = 0u64;
    loop {
        buf.clear();
        let n = input.read_until(b'\n', &mut buf).map_err(|e| ModelError {
            source_name: source_name.to_owned(),
            line: reader.line + 1,
            record: None,
            rule: Rule::Io,
            message: format!("could not be read: {e}"),
        })?;
        if n == 0 {
            break;
        }
        let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
        reader.push_line(line)?;
        if reader.bytes >= next_report {
            progress(reader.bytes);
            next_report = reader.bytes + (4 << 20);
        }
    }
    progress(reader.bytes);
    reader.finish()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Section {
    Start,
    Header,
    Files,
    Entities,
    Edges,
    Done,
}

impl Section {
    fn of(record: Record) -> Section {
        match record {
            Record::Header => Section::Header,
            Record::File => Section::Files,
            Record::Entity => Section::Entities,
            Record::Edge => Section::Edges,
            Record::Eof => Section::Done,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Section::Start | Section::Header => "header",
            Section::Files => "file",
            Section::Entities => "entity",
            Section::Edges => "edge",
            Section::Done => "eof",
        }
    }
}

/// Why a string holding U+0000 is refused: the insights store keeps names,
/// kinds, natural-key parts and paths as SQLite text columns, and the format
/// reserves NUL in all of them (`docs/formats/model.md` §4.5).
const HOLDS_NUL: &str = "holds U+0000 (NUL), which no name, kind, natural-key part or path may contain";

/// The largest forward entity reference seen, where, and under which key.
#[derive(Clone, Copy)]
struct ForwardRef {
    target: u64,
    key: &'static str,
    line: u64,
}

/// A push parser: feed it lines ([`ModelReader::push_line`]) or arbitrary
/// byte chunks ([`ModelReader::push_chunk`]), then [`ModelReader::finish`].
pub struct ModelReader {
    source_name: String,
    line: u64,
    bytes: u64,
    section: Section,
    partial: Vec<u8>,
    failed: Option<ModelError>,
    m: Model,
    empty: Str,
    forward: Option<ForwardRef>,
    trait_set_ids: HashMap<Vec<u8>, u32>,
    natural_keys: HashSet<(Str, Str, u32)>,
    prev_key: Option<(Str, Str, u32)>,
    prev_edge: Option<Edge>,
    /// Where entities sit in the file: `(surrogate, line)` at the first
    /// entity and wherever a blank line breaks the run of consecutive lines.
    entity_lines: Vec<(u32, u64)>,
    profile_checked: HashMap<(u16, u32, bool), Option<String>>,
}

impl ModelReader {
    pub fn new(source_name: &str) -> Self {
        let mut strings = Strings::default();
        let empty = strings.intern("");
        ModelReader {
            source_name: source_name.to_owned(),
            line: 0,
            bytes: 0,
            section: Section::Start,
            partial: Vec::new(),
            failed: None,
            m: Model {
                header: Header::default(),
                files: Vec::new(),
                file_extensions: Vec::new(),
                strings,
                trait_sets: Vec::new(),
                entities: Vec::new(),
                rare: Vec::new(),
                entity_refs: Vec::new(),
                file_refs: Vec::new(),
                metrics: Vec::new(),
                edges: Vec::new(),
                edge_extras: Vec::new(),
                outgoing: Csr::default(),
                incoming: Csr::default(),
                children: Csr::default(),
                findings: Findings::default(),
            },
            empty,
            forward: None,
            trait_set_ids: HashMap::new(),
            natural_keys: HashSet::new(),
            prev_key: None,
            prev_edge: None,
            entity_lines: Vec::new(),
            profile_checked: HashMap::new(),
        }
    }

    /// Physical lines consumed so far.
    pub fn lines(&self) -> u64 {
        self.line
    }

    /// Bytes consumed so far (including line ends).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Entities read so far (for progress displays).
    pub fn entities_read(&self) -> u32 {
        self.m.entities.len() as u32
    }

    /// Edges read so far.
    pub fn edges_read(&self) -> u32 {
        self.m.edges.len() as u32
    }

    /// Feeds raw bytes; lines may be split anywhere, even inside a UTF-8
    /// character. Complete lines are processed at once.
    pub fn push_chunk(&mut self, chunk: &[u8]) -> Result<(), ModelError> {
        let mut rest = chunk;
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            if self.partial.is_empty() {
                self.push_line(&rest[..nl])?;
            } else {
                let mut line = std::mem::take(&mut self.partial);
                line.extend_from_slice(&rest[..nl]);
                let r = self.push_line(&line);
                line.clear();
                self.partial = line;
                r?;
            }
            rest = &rest[nl + 1..];
        }
        self.partial.extend_from_slice(rest);
        Ok(())
    }

    /// Feeds one physical line (without its `\n`).
    pub fn push_line(&mut self, raw: &[u8]) -> Result<(), ModelError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        self.line += 1;
        self.bytes += raw.len() as u64 + 1;
        let r = self.line_inner(raw);
        if let Err(e) = &r {
            self.failed = Some(e.clone());
        }
        r
    }

    /// Ends the input: checks the trailer and forward references, builds the
    /// adjacency, and hands over the model.
    pub fn finish(mut self) -> Result<Model, ModelError> {
        if !self.partial.is_empty() {
            let last = std::mem::take(&mut self.partial);
            self.push_line(&last)?;
            self.bytes -= 1; // no line end after the last line
        }
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        match self.section {
            Section::Done => {}
            Section::Start => {
                return Err(self.error(
                    0,
                    None,
                    Rule::SectionOrder,
                    "is empty: a model starts with a header record on line 1",
                ));
            }
            s => {
                return Err(self.error(
                    0,
                    None,
                    Rule::Trailer,
                    format!(
                        "ends after line {} inside the {} section, without an \"eof\" record: the file is truncated",
                        self.line,
                        s.name()
                    ),
                ));
            }
        }
        let mut m = self.m;
        let n = m.entities.len();
        m.outgoing = Csr::build(n, m.edges.iter().enumerate().map(|(i, e)| (e.from, i as u32)));
        m.incoming = Csr::build(n, m.edges.iter().enumerate().map(|(i, e)| (e.to, i as u32)));
        m.children = Csr::build(
            n,
            m.entities.iter().enumerate().filter(|(_, e)| e.parent != NONE).map(|(i, e)| (e.parent, i as u32)),
        );
        m.strings.shrink();
        m.entities.shrink_to_fit();
        m.edges.shrink_to_fit();
        m.entity_refs.shrink_to_fit();
        m.file_refs.shrink_to_fit();
        m.metrics.shrink_to_fit();
        Ok(m)
    }

    fn error(&self, line: u64, record: Option<Record>, rule: Rule, message: impl Into<String>) -> ModelError {
        ModelError { source_name: self.source_name.clone(), line, record, rule, message: message.into() }
    }

    fn line_inner(&mut self, raw: &[u8]) -> Result<(), ModelError> {
        let line_no = self.line;
        let text = std::str::from_utf8(raw).map_err(|e| {
            self.error(line_no, None, Rule::Utf8, format!("is not valid UTF-8 (at byte {})", e.valid_up_to() + 1))
        })?;
        let text = if line_no == 1 { text.strip_prefix('\u{feff}').unwrap_or(text) } else { text };
        let text = text.trim();
        if text.is_empty() {
            if line_no == 1 {
                return Err(self.error(1, None, Rule::SectionOrder, "is blank, but line 1 must be the header record"));
            }
            return Ok(());
        }
        if !text.starts_with('{') {
            return Err(self.error(line_no, None, Rule::Json, "is not a JSON object (each line holds one record)"));
        }
        let t = wire::peek_type(text).map_err(|e| self.json_error(None, &e))?;
        let Some(t) = t else {
            return Err(self.error(line_no, None, Rule::Schema, "has no string \"t\" key naming the record type"));
        };
        let record = match &*t {
            "header" => Record::Header,
            "f" => Record::File,
            "e" => Record::Entity,
            "x" => Record::Edge,
            "eof" => Record::Eof,
            other => {
                if line_no == 1 {
                    return Err(self.error(
                        1,
                        None,
                        Rule::SectionOrder,
                        format!("is a \"{other}\" record, but line 1 must be the header record"),
                    ));
                }
                let other = other.to_owned();
                self.m.findings.push(line_no, FindingKind::UnknownRecordType, || {
                    format!("unknown record type \"{other}\"; the line was skipped")
                });
                return Ok(());
            }
        };
        self.enter(record)?;
        match record {
            Record::Header => {
                let h: HeaderLine = self.parse(record, text)?;
                self.header(h)
            }
            Record::File => {
                let f: FileLine = self.parse(record, text)?;
                self.file(f)
            }
            Record::Entity => {
                let e: EntityLine = self.parse(record, text)?;
                self.entity(e)
            }
            Record::Edge => {
                let x: EdgeLine = self.parse(record, text)?;
                self.edge(x)
            }
            Record::Eof => {
                let x: EofLine = self.parse(record, text)?;
                self.eof(x)
            }
        }
    }

    fn parse<'a, T: serde::Deserialize<'a>>(&self, record: Record, text: &'a str) -> Result<T, ModelError> {
        wire::parse(text).map_err(|e| {
            // A syntax error inside a value surfaces as a data error naming the
            // key; report the line's JSON syntax error instead.
            match serde_json::from_str::<serde::de::IgnoredAny>(text) {
                Err(syntax) if !syntax.is_data() => self.json_error(None, &syntax),
                _ => self.json_error(Some(record), &e),
            }
        })
    }

    fn json_error(&self, record: Option<Record>, e: &serde_json::Error) -> ModelError {
        if e.is_data() {
            self.error(self.line, record, Rule::Schema, wire::describe(e))
        } else {
            self.error(self.line, None, Rule::Json, format!("is not valid JSON: {}", wire::describe(e)))
        }
    }

    /// Section order: header on line 1, then files, entities, edges, eof.
    fn enter(&mut self, record: Record) -> Result<(), ModelError> {
        let line = self.line;
        let next = Section::of(record);
        if line == 1 && record != Record::Header {
            return Err(self.error(
                1,
                Some(record),
                Rule::SectionOrder,
                "is on line 1, but line 1 must be the header record",
            ));
        }
        if record == Record::Header && line != 1 {
            let msg = if self.section == Section::Start {
                "must be on line 1".to_owned()
            } else {
                "appears a second time (a model has exactly one header, on line 1)".to_owned()
            };
            return Err(self.error(line, Some(record), Rule::SectionOrder, msg));
        }
        if self.section == Section::Done {
            return Err(self.error(
                line,
                Some(record),
                Rule::SectionOrder,
                "comes after the eof record, which must be last",
            ));
        }
        if next < self.section {
            return Err(self.error(
                line,
                Some(record),
                Rule::SectionOrder,
                format!(
                    "comes after the {} records began (the order is header, files, entities, edges, eof)",
                    self.section.name()
                ),
            ));
        }
        if self.section <= Section::Entities && next > Section::Entities {
            self.check_forward_refs()?;
            self.check_parent_rings()?;
        }
        self.section = next;
        Ok(())
    }

    fn check_forward_refs(&self) -> Result<(), ModelError> {
        if let Some(f) = self.forward {
            let n = self.m.entities.len() as u64;
            if f.target >= n {
                return Err(self.error(
                    f.line,
                    Some(Record::Entity),
                    Rule::Closure,
                    format!("\"{}\" refers to entity {}, but the model has {n} entities", f.key, f.target),
                ));
            }
        }
        Ok(())
    }

    /// Containment is a forest (`docs/formats/model.md` §4.4): no entity is its
    /// own parent and no chain of parents comes back to where it started.
    /// Parents may point forward, so this runs once the entity section has
    /// ended (after [`Self::check_forward_refs`], so every parent is in range).
    /// Each entity is walked once: linear time, no recursion.
    fn check_parent_rings(&self) -> Result<(), ModelError> {
        const UNSEEN: u8 = 0;
        const ON_WALK: u8 = 1;
        const ROOTED: u8 = 2;
        let ents = &self.m.entities;
        let mut state = vec![UNSEEN; ents.len()];
        let mut walk: Vec<u32> = Vec::new();
        for start in 0..ents.len() as u32 {
            if state[start as usize] != UNSEEN {
                continue;
            }
            let mut at = start;
            // Up the parents until a root or an entity known to reach one.
            while at != NONE && state[at as usize] != ROOTED {
                if state[at as usize] == ON_WALK {
                    // Every finished walk is marked ROOTED, so `at` is on this one.
                    let from = walk.iter().position(|&w| w == at).unwrap_or(0);
                    return Err(self.parent_ring(&walk[from..]));
                }
                state[at as usize] = ON_WALK;
                walk.push(at);
                at = ents[at as usize].parent;
            }
            for &w in &walk {
                state[w as usize] = ROOTED;
            }
            walk.clear();
        }
        Ok(())
    }

    /// The error for a ring of parents (`ring[k]`'s parent is `ring[k + 1]`,
    /// the last one's is the first). It names the line of the member read
    /// last, the one that closes the ring, and lists the ring from there.
    fn parent_ring(&self, ring: &[u32]) -> ModelError {
        let at = ring.iter().enumerate().max_by_key(|&(_, &e)| e).map_or(0, |(k, _)| k);
        let closer = ring[at];
        let line = self.entity_line(closer);
        let id = self.m.id(closer);
        let rec = Some(Record::Entity);
        if ring.len() == 1 {
            return self.error(
                line,
                rec,
                Rule::Containment,
                format!("{id} is its own parent (\"parent\" is {closer}, its own \"i\")"),
            );
        }
        // A long ring shows its first entities and how many more there are.
        const SHOWN: usize = 8;
        let mut text = String::new();
        for (k, &e) in ring[at..].iter().chain(&ring[..at]).enumerate() {
            if ring.len() > SHOWN && k == SHOWN - 1 {
                text.push_str(&format!("… ({} more) → ", ring.len() - k));
                break;
            }
            self.m.write_id(e, &mut text);
            text.push_str(" → ");
        }
        text.push_str(&id);
        self.error(
            line,
            rec,
            Rule::Containment,
            format!("\"parent\" never reaches a root: the parents of {id} form a ring: {text}"),
        )
    }

    /// The physical line entity `i` was read from.
    fn entity_line(&self, i: u32) -> u64 {
        let at = self.entity_lines.partition_point(|&(e, _)| e <= i);
        match at.checked_sub(1).map(|k| self.entity_lines[k]) {
            Some((e, line)) => line + (i - e) as u64,
            None => 0,
        }
    }

    /// Remembers the line of entity `i`, about to be pushed.
    fn note_entity_line(&mut self, i: u32) {
        let line = self.line;
        if self.entity_lines.last().is_none_or(|&(e, l)| l + (i - e) as u64 != line) {
            self.entity_lines.push((i, line));
        }
    }

    // ---- header -------------------------------------------------------

    fn header(&mut self, h: HeaderLine) -> Result<(), ModelError> {
        let r = Some(Record::Header);
        let e = |rule, msg: String| self.error(1, r, rule, msg);
        let lang = h.lang.ok_or_else(|| e(Rule::Schema, "lacks \"lang\" (the language id, e.g. \"java\")".into()))?;
        if lang.is_empty() || lang.contains(':') || lang.contains('\0') {
            return Err(e(
                Rule::Identity,
                format!("\"lang\" is {:?}: it must be non-empty, without ':' or NUL", &*lang),
            ));
        }
        let schema_version = h.schema_version.ok_or_else(|| e(Rule::Schema, "lacks \"schemaVersion\"".into()))?;
        let extractor = h
            .extractor
            .ok_or_else(|| e(Rule::Schema, "lacks \"extractor\" (an object naming the extractor)".into()))?;
        if !extractor.get().starts_with('{') {
            return Err(e(Rule::Schema, "\"extractor\" must be an object".into()));
        }
        let root = h.root.ok_or_else(|| e(Rule::Schema, "lacks \"root\" (the analysed source root)".into()))?;
        if let Some(repo) = h.repository {
            if !repo.get().starts_with('{') {
                return Err(e(Rule::Schema, "\"repository\" must be an object".into()));
            }
        }
        let dict = h.dict.ok_or_else(|| {
            e(Rule::Schema, "lacks \"dict\" (the kinds, traits, edges and provenance dictionaries)".into())
        })?;
        if dict.kinds.len() > u16::MAX as usize {
            return Err(e(
                Rule::Dictionary,
                format!("dict.kinds has {} entries; at most {} are supported", dict.kinds.len(), u16::MAX),
            ));
        }
        if let Some(k) = dict.kinds.iter().find(|k| k.contains('\0')) {
            return Err(e(Rule::Dictionary, format!("dict.kinds lists {k:?}: it {HOLDS_NUL}")));
        }
        let mut seen = HashSet::new();
        if let Some(k) = dict.kinds.iter().find(|k| !seen.insert(k.as_str())) {
            return Err(e(Rule::Dictionary, format!("dict.kinds lists \"{k}\" twice")));
        }
        drop(seen);
        fn closed<T: Copy + PartialEq>(
            names: &[String],
            what: &str,
            all: &[T],
            lookup: fn(&str) -> Option<T>,
            as_str: fn(T) -> &'static str,
        ) -> Result<Vec<T>, String> {
            let mut out: Vec<T> = Vec::with_capacity(names.len());
            for n in names {
                let v = lookup(n).ok_or_else(|| {
                    let known: Vec<_> = all.iter().map(|t| as_str(*t)).collect();
                    format!(
                        "dict.{what} lists \"{n}\", which is not one of the {} known: {}",
                        known.len(),
                        known.join(", ")
                    )
                })?;
                if out.contains(&v) {
                    return Err(format!("dict.{what} lists \"{n}\" twice"));
                }
                out.push(v);
            }
            Ok(out)
        }
        let traits = closed(&dict.traits, "traits", Trait::ALL, Trait::from_name, Trait::as_str)
            .map_err(|m| e(Rule::Dictionary, m))?;
        let edges = closed(&dict.edges, "edges", EdgeKind::ALL, EdgeKind::from_name, EdgeKind::as_str)
            .map_err(|m| e(Rule::Dictionary, m))?;
        let provenance =
            closed(&dict.provenance, "provenance", Provenance::ALL, Provenance::from_name, Provenance::as_str)
                .map_err(|m| e(Rule::Dictionary, m))?;
        self.m.header = Header {
            schema_version: schema_version.0.into_owned(),
            lang: lang.0.into_owned(),
            extractor: extractor.get().to_owned(),
            root: root.0.into_owned(),
            repository: h.repository.map(|r| r.get().to_owned()),
            kinds: dict.kinds,
            traits,
            edges,
            provenance,
            extensions: owned_extensions(h.extensions),
        };
        Ok(())
    }

    // ---- files ----------------------------------------------------------

    fn file(&mut self, f: FileLine) -> Result<(), ModelError> {
        let r = Some(Record::File);
        let expected = self.m.files.len() as u64;
        let i = f.i.ok_or_else(|| self.error(self.line, r, Rule::Schema, "lacks \"i\" (its file index)"))?;
        if i.0 != expected {
            return Err(self.error(
                self.line,
                r,
                Rule::Dense,
                format!("\"i\" is {}, but the next file must be {expected} (file indexes are dense from 0)", i.0),
            ));
        }
        let path = f.path.ok_or_else(|| self.error(self.line, r, Rule::Schema, "lacks \"path\""))?;
        if path.is_empty() || path.contains('\0') {
            return Err(self.error(self.line, r, Rule::Schema, "\"path\" must be a non-empty path without NUL"));
        }
        if !f.extensions.is_empty() {
            self.m.file_extensions.push((i.0 as u32, owned_extensions(f.extensions)));
        }
        self.m.files.push(path.0.into_owned());
        Ok(())
    }

    fn file_ref(&self, record: Record, key: &str, v: Index) -> Result<u32, ModelError> {
        let n = self.m.files.len() as u64;
        if v.0 >= n {
            return Err(self.error(
                self.line,
                Some(record),
                Rule::Closure,
                format!("\"{key}\" refers to file {}, but the model has {n} files", v.0),
            ));
        }
        Ok(v.0 as u32)
    }

    fn anchor(&self, record: Record, key: &str, a: RawAnchor) -> Result<Anchor, ModelError> {
        let file = self.file_ref(record, key, a[0])?;
        let (start, end) = (a[1].0, a[2].0);
        if start == 0 || start > end || end > u32::MAX as u64 {
            return Err(self.error(
                self.line,
                Some(record),
                Rule::Schema,
                format!("\"{key}\" spans lines {start} to {end}: lines are 1-based and the start may not pass the end"),
            ));
        }
        Ok(Anchor { file, start: start as u32, end: end as u32 })
    }

    // ---- entities -------------------------------------------------------

    fn entity(&mut self, e: EntityLine) -> Result<(), ModelError> {
        let line = self.line;
        let rec = Some(Record::Entity);
        let schema = |me: &Self, msg: String| me.error(line, rec, Rule::Schema, msg);
        let i = self.m.entities.len() as u64;
        let got = e.i.ok_or_else(|| schema(self, "lacks \"i\" (its surrogate)".into()))?;
        if got.0 != i {
            return Err(self.error(
                line,
                rec,
                Rule::Dense,
                format!("\"i\" is {}, but the next entity must be {i} (surrogates are dense from 0)", got.0),
            ));
        }
        if i >= NONE as u64 {
            return Err(schema(self, "the model has more entities than this reader can hold (2^32 − 1)".into()));
        }
        let k = e.k.ok_or_else(|| schema(self, "lacks \"k\" (its kind, an index into dict.kinds)".into()))?;
        let nk = self.m.header.kinds.len() as u64;
        if k.0 >= nk {
            return Err(self.error(
                line,
                rec,
                Rule::Dictionary,
                format!("\"k\" is {}, but dict.kinds has {nk} entries", k.0),
            ));
        }
        let tr =
            e.tr.as_ref().ok_or_else(|| schema(self, "lacks \"tr\" (its traits, indexes into dict.traits)".into()))?;
        let (trait_set, mask) = self.trait_set(tr)?;
        let m = e.m.ok_or_else(|| schema(self, "lacks \"m\" (the surrogate of its module)".into()))?;
        if m.0 > i {
            return Err(self.error(
                line,
                rec,
                Rule::Closure,
                format!("\"m\" is {}, after its own \"i\" {i}: a module comes before what it holds", m.0),
            ));
        }
        if m.0 < i && self.m.entities[m.0 as usize].module != m.0 as u32 {
            return Err(self.error(
                line,
                rec,
                Rule::Closure,
                format!("\"m\" refers to entity {}, which is not a module (its own \"m\" is not itself)", m.0),
            ));
        }
        let s =
            e.s.as_ref()
                .ok_or_else(|| schema(self, "lacks \"s\" (its symbol, or the module path for a module)".into()))?;
        let is_module = m.0 == i;
        if s.contains('\0') {
            return Err(self.error(line, rec, Rule::Identity, "\"s\" contains NUL"));
        }
        if is_module && (s.contains('/') || s.contains('#')) {
            return Err(self.error(
                line,
                rec,
                Rule::Identity,
                format!("module path {:?} may not contain '/' or '#'", &**s),
            ));
        }
        if !is_module && s.contains('#') {
            return Err(self.error(line, rec, Rule::Identity, format!("symbol {:?} may not contain '#'", &**s)));
        }
        let symbol = self.m.strings.intern(s);
        let disambiguator = match &e.d {
            None => NONE,
            Some(d) if d.is_empty() || d.contains('\0') => {
                return Err(self.error(
                    line,
                    rec,
                    Rule::Identity,
                    "\"d\" must be non-empty and without NUL when present",
                ));
            }
            Some(d) => self.m.strings.intern(d).index(),
        };

        // Trait-contributed keys: each declared trait's keys must be present.
        let need = |t: Trait, present: bool, key: &str, what: &str| -> Result<(), ModelError> {
            if mask.has(t) && !present {
                return Err(self.error(
                    line,
                    rec,
                    Rule::TraitKey,
                    format!("declares {t} but lacks \"{key}\" ({what})"),
                ));
            }
            Ok(())
        };
        need(Trait::Named, e.name.is_some(), "name", "a non-empty string")?;
        need(Trait::SourceAnchor, e.anchor.is_some(), "anchor", "[file, start, end]")?;
        need(Trait::Comment, e.comments.is_some(), "comments", "an array of strings")?;
        need(Trait::ChildOf, e.parent.is_some(), "parent", "a surrogate")?;
        need(Trait::AttachedTo, e.attached_to.is_some(), "attachedTo", "a surrogate")?;
        need(Trait::Module, e.defined_in.is_some(), "definedIn", "an array of file indexes")?;
        need(Trait::Module, e.is_stub.is_some(), "isStub", "a boolean")?;
        need(Trait::Type, e.is_stub.is_some(), "isStub", "a boolean")?;
        need(Trait::Invocable, e.signature.is_some(), "signature", "a string")?;
        need(Trait::WithParameters, e.parameters.is_some(), "parameters", "an array of surrogates")?;
        need(Trait::WithLocalVariables, e.local_variables.is_some(), "localVariables", "an array of surrogates")?;
        need(Trait::Metrics, e.metrics.is_some(), "metrics", "an object of measures")?;
        if e.name.as_ref().is_some_and(|n| n.is_empty()) {
            return Err(self.error(line, rec, Rule::TraitKey, "\"name\" must be a non-empty string"));
        }
        if let Some(n) = e.name.as_ref().filter(|n| n.contains('\0')) {
            return Err(schema(self, format!("\"name\" {:?} {HOLDS_NUL}", &**n)));
        }
        self.keys_without_traits(&e, mask);

        // File references are checked now; entity references may point forward.
        let anchor = match e.anchor {
            Some(a) => self.anchor(Record::Entity, "anchor", a)?,
            None => Anchor { file: NONE, start: 0, end: 0 },
        };
        let defined_in = match &e.defined_in {
            Some(list) => {
                let start = self.m.file_refs.len() as u32;
                for v in list {
                    let f = self.file_ref(Record::Entity, "definedIn", *v)?;
                    self.m.file_refs.push(f);
                }
                Span { start, len: list.len() as u32 }
            }
            None => Span::ABSENT,
        };
        let declared_type = self.entity_ref("declaredType", e.declared_type);
        let parent = self.entity_ref("parent", e.parent);
        let parameters = self.entity_refs("parameters", e.parameters.as_deref());
        let local_variables = self.entity_refs("localVariables", e.local_variables.as_deref());
        let metrics = match &e.metrics {
            Some(ms) => {
                let start = self.m.metrics.len() as u32;
                for (k, v) in &ms.0 {
                    if !v.is_finite() {
                        return Err(schema(self, format!("measure \"{}\" is not a finite number", &**k)));
                    }
                    let k = self.m.strings.intern(k);
                    self.m.metrics.push((k, *v));
                }
                Span { start, len: ms.0.len() as u32 }
            }
            None => Span::ABSENT,
        };
        let mut rare = Rare::default();
        if let Some(a) = e.attached_to {
            rare.attached_to = Some(self.entity_ref("attachedTo", Some(a)));
        }
        rare.comments = e.comments.map(|c| c.into_iter().map(|t| t.0.into_owned()).collect());
        rare.space = e.space.map(|c| c.into_iter().map(|t| t.0.into_owned()).collect());
        if let Some(v) = e.value {
            let lit = decode_literal(v).map_err(|msg| schema(self, format!("\"value\": {msg}")))?;
            let mut max = None::<u64>;
            lit.for_each_ref(&mut |r| max = max.max(Some(*r as u64)));
            if let Some(t) = max {
                self.note_forward("value", t);
            }
            rare.value = Some(lit);
        }
        rare.extensions = owned_extensions(e.extensions);
        let rare_index = if rare.attached_to.is_some()
            || rare.comments.is_some()
            || rare.value.is_some()
            || rare.space.is_some()
            || !rare.extensions.is_empty()
        {
            self.m.rare.push(rare);
            self.m.rare.len() as u32 - 1
        } else {
            NONE
        };

        let module_path = if is_module { symbol } else { self.m.entities[m.0 as usize].symbol };
        let key_symbol = if is_module { self.empty } else { symbol };
        self.natural_key(module_path, key_symbol, disambiguator);
        let is_stub = match e.is_stub {
            None => 0,
            Some(false) => 1,
            Some(true) => 2,
        };
        let stub = is_stub == 2 && (mask.has(Trait::Type) || mask.has(Trait::Module));
        self.profile(k.0 as u16, mask, stub);

        self.note_entity_line(i as u32);
        self.m.entities.push(EntityRec {
            kind: k.0 as u16,
            trait_set,
            is_stub,
            module: m.0 as u32,
            symbol,
            disambiguator,
            name: e.name.map_or(NONE, |n| self.m.strings.intern(&n).index()),
            signature: e.signature.map_or(NONE, |n| self.m.strings.intern(&n).index()),
            declared_type,
            parent,
            anchor,
            parameters,
            local_variables,
            defined_in,
            metrics,
            rare: rare_index,
        });
        Ok(())
    }

    fn trait_set(&mut self, tr: &[Index]) -> Result<(u32, TraitMask), ModelError> {
        let n = self.m.header.traits.len() as u64;
        let mut key = Vec::with_capacity(tr.len());
        for t in tr {
            if t.0 >= n {
                return Err(self.error(
                    self.line,
                    Some(Record::Entity),
                    Rule::Dictionary,
                    format!("\"tr\" lists {}, but dict.traits has {n} entries", t.0),
                ));
            }
            if key.contains(&(t.0 as u8)) {
                let name = self.m.header.traits[t.0 as usize];
                return Err(self.error(
                    self.line,
                    Some(Record::Entity),
                    Rule::Schema,
                    format!("\"tr\" lists {name} twice"),
                ));
            }
            key.push(t.0 as u8);
        }
        if let Some(&id) = self.trait_set_ids.get(&key) {
            return Ok((id, self.m.trait_sets[id as usize].mask));
        }
        let list: Vec<Trait> = key.iter().map(|&t| self.m.header.traits[t as usize]).collect();
        let mask = TraitMask::of(&list);
        let id = self.m.trait_sets.len() as u32;
        self.m.trait_sets.push(TraitSet { list, mask });
        self.trait_set_ids.insert(key, id);
        Ok((id, mask))
    }

    fn note_forward(&mut self, key: &'static str, target: u64) {
        if self.forward.is_none_or(|f| target > f.target) {
            self.forward = Some(ForwardRef { target, key, line: self.line });
        }
    }

    fn entity_ref(&mut self, key: &'static str, v: Option<Index>) -> u32 {
        match v {
            Some(v) => {
                self.note_forward(key, v.0);
                v.0.min(NONE as u64 - 1) as u32
            }
            None => NONE,
        }
    }

    fn entity_refs(&mut self, key: &'static str, list: Option<&[Index]>) -> Span {
        let Some(list) = list else { return Span::ABSENT };
        let start = self.m.entity_refs.len() as u32;
        for v in list {
            let r = self.entity_ref(key, Some(*v));
            self.m.entity_refs.push(r);
        }
        Span { start, len: list.len() as u32 }
    }

    fn keys_without_traits(&mut self, e: &EntityLine, mask: TraitMask) {
        let checks: [(bool, &str, &[Trait]); 13] = [
            (e.name.is_some(), "name", &[Trait::Named]),
            (e.anchor.is_some(), "anchor", &[Trait::SourceAnchor]),
            (e.comments.is_some(), "comments", &[Trait::Comment]),
            (e.parent.is_some(), "parent", &[Trait::ChildOf]),
            (e.attached_to.is_some(), "attachedTo", &[Trait::AttachedTo]),
            (e.defined_in.is_some(), "definedIn", &[Trait::Module]),
            (e.is_stub.is_some(), "isStub", &[Trait::Type, Trait::Module]),
            (e.declared_type.is_some(), "declaredType", &[Trait::TypedEntity]),
            (e.signature.is_some(), "signature", &[Trait::Invocable]),
            (e.parameters.is_some(), "parameters", &[Trait::WithParameters]),
            (e.local_variables.is_some(), "localVariables", &[Trait::WithLocalVariables]),
            (e.metrics.is_some(), "metrics", &[Trait::Metrics]),
            (e.value.is_some(), "value", &[Trait::WithValue]),
        ];
        for (present, key, traits) in checks {
            if present && !traits.iter().any(|t| mask.has(*t)) {
                let names: Vec<_> = traits.iter().map(|t| t.as_str()).collect();
                self.m.findings.push(self.line, FindingKind::KeyWithoutTrait, || {
                    format!("entity has \"{key}\" without declaring {}", names.join(" or "))
                });
            }
        }
    }

    fn natural_key(&mut self, module: Str, symbol: Str, d: u32) {
        let key = (module, symbol, d);
        let line = self.line;
        if let Some(prev) = self.prev_key {
            let s = &self.m.strings;
            let text = |d: u32| (d != NONE).then(|| s.get(Str::from_raw(d)));
            let ord = cmp_utf16(s.get(prev.0), s.get(module))
                .then_with(|| cmp_utf16(s.get(prev.1), s.get(symbol)))
                .then_with(|| match (text(prev.2), text(d)) {
                    (None, None) => Ordering::Equal,
                    (None, Some(_)) => Ordering::Less,
                    (Some(_), None) => Ordering::Greater,
                    (Some(a), Some(b)) => cmp_utf16(a, b),
                });
            if ord == Ordering::Greater {
                self.m.findings.push(line, FindingKind::NotCanonical, || {
                    "entity is out of canonical natural-key order (lang, module, symbol, disambiguator)".into()
                });
            }
        }
        self.prev_key = Some(key);
        if !self.natural_keys.insert(key) {
            let id = render(&self.m, module, symbol, d);
            self.m.findings.push(line, FindingKind::DuplicateKey, || format!("natural key {id} is declared twice"));
        }
    }

    fn profile(&mut self, kind: u16, mask: TraitMask, stub: bool) {
        let (lang, kinds) = (&self.m.header.lang, &self.m.header.kinds);
        let verdict = self
            .profile_checked
            .entry((kind, mask.0, stub))
            .or_insert_with(|| crate::profile::check(lang, &kinds[kind as usize], mask, stub));
        if let Some(msg) = verdict.clone() {
            self.m.findings.push(self.line, FindingKind::Profile, || msg);
        }
    }

    // ---- edges ----------------------------------------------------------

    fn edge(&mut self, x: EdgeLine) -> Result<(), ModelError> {
        let line = self.line;
        let rec = Some(Record::Edge);
        let schema = |me: &Self, msg: &str| me.error(line, rec, Rule::Schema, msg.to_owned());
        let n = self.m.entities.len() as u64;
        let closure = |me: &Self, key: &str, v: u64| -> Result<u32, ModelError> {
            if v >= n {
                return Err(me.error(
                    line,
                    rec,
                    Rule::Closure,
                    format!("\"{key}\" refers to entity {v}, but the model has {n} entities"),
                ));
            }
            Ok(v as u32)
        };
        let k = x.k.ok_or_else(|| schema(self, "lacks \"k\" (its kind, an index into dict.edges)"))?;
        let nk = self.m.header.edges.len() as u64;
        if k.0 >= nk {
            return Err(self.error(
                line,
                rec,
                Rule::Dictionary,
                format!("\"k\" is {}, but dict.edges has {nk} entries", k.0),
            ));
        }
        let kind = self.m.header.edges[k.0 as usize];
        let from = closure(self, "f", x.f.ok_or_else(|| schema(self, "lacks \"f\" (the source entity)"))?.0)?;
        let to = closure(self, "o", x.o.ok_or_else(|| schema(self, "lacks \"o\" (the target entity)"))?.0)?;
        let p = x.p.ok_or_else(|| schema(self, "lacks \"p\" (its provenance, an index into dict.provenance)"))?;
        let np = self.m.header.provenance.len() as u64;
        if p.0 >= np {
            return Err(self.error(
                line,
                rec,
                Rule::Dictionary,
                format!("\"p\" is {}, but dict.provenance has {np} entries", p.0),
            ));
        }
        let provenance = self.m.header.provenance[p.0 as usize];
        let anchor = self.anchor(
            Record::Edge,
            "anchor",
            x.anchor.ok_or_else(|| schema(self, "lacks \"anchor\" ([file, start, end])"))?,
        )?;
        let access = match (kind, x.is_read, x.is_write) {
            (EdgeKind::Access, Some(r), Some(w)) => 1 | (r as u8) << 1 | (w as u8) << 2,
            (EdgeKind::Access, _, _) => {
                return Err(schema(self, "is an access but lacks \"isRead\" or \"isWrite\" (both are always written)"))
            }
            (_, None, None) => 0,
            _ => return Err(schema(self, "has \"isRead\"/\"isWrite\", which only access edges carry")),
        };
        let mut extra = EdgeExtra::default();
        if let Some(c) = &x.candidates {
            let mut list = Vec::with_capacity(c.len());
            for v in c {
                list.push(closure(self, "candidates", v.0)?);
            }
            if list.is_empty() {
                self.m
                    .findings
                    .push(line, FindingKind::EmptyCandidates, || "\"candidates\" is present but empty".into());
            }
            extra.candidates = Some(list);
        }
        if let Some(args) = x.arguments {
            if kind != EdgeKind::AnnotationUse {
                return Err(schema(self, "has \"arguments\", which only annotationUse edges carry"));
            }
            let decoded = decode_arguments(args).map_err(|m| schema(self, &format!("\"arguments\": {m}")))?;
            let mut bad = None;
            for a in &decoded {
                a.value.for_each_ref(&mut |r| {
                    if *r as u64 >= n && bad.is_none() {
                        bad = Some(*r);
                    }
                });
            }
            if let Some(b) = bad {
                closure(self, "arguments", b as u64)?;
            }
            extra.arguments = Some(decoded);
        }
        if let Some(sf) = x.source_file {
            extra.source_file = Some(self.file_ref(Record::Edge, "sourceFile", sf)?);
        }
        extra.extensions = owned_extensions(x.extensions);
        let extra_index = if extra.candidates.is_some()
            || extra.arguments.is_some()
            || extra.source_file.is_some()
            || !extra.extensions.is_empty()
        {
            self.m.edge_extras.push(extra);
            self.m.edge_extras.len() as u32 - 1
        } else {
            NONE
        };
        let edge = Edge { from, to, kind, provenance, access, anchor, extra: extra_index };
        if from == to {
            let id = self.m.id(from);
            self.m.findings.push(line, FindingKind::SelfEdge, || format!("{kind} edge from {id} to itself"));
        }
        if let Some(prev) = &self.prev_edge {
            if canonical_edge_order(prev, &edge) == Ordering::Greater {
                self.m.findings.push(line, FindingKind::NotCanonical, || {
                    "edge is out of canonical order (from, to, kind, anchor, provenance)".into()
                });
            }
        }
        self.prev_edge = Some(edge);
        if self.m.edges.len() as u64 >= NONE as u64 - 1 {
            return Err(schema(self, "the model has more edges than this reader can hold (2^32 − 2)"));
        }
        self.m.edges.push(edge);
        Ok(())
    }

    // ---- eof ------------------------------------------------------------

    fn eof(&mut self, x: EofLine) -> Result<(), ModelError> {
        let rec = Some(Record::Eof);
        let c = x
            .counts
            .ok_or_else(|| self.error(self.line, rec, Rule::Schema, "lacks \"counts\" ({files, entities, edges})"))?;
        let have = [
            ("files", c.files, self.m.files.len() as u64),
            ("entities", c.entities, self.m.entities.len() as u64),
            ("edges", c.edges, self.m.edges.len() as u64),
        ];
        for (what, said, got) in have {
            if said != got {
                return Err(self.error(
                    self.line,
                    rec,
                    Rule::Trailer,
                    format!("counts {said} {what}, but the model has {got}: the file was truncated or edited"),
                ));
            }
        }
        Ok(())
    }
}

/// Canonical edge order (`docs/formats/model.md` §4.2): from, to, kind name,
/// anchor, provenance name.
pub fn canonical_edge_order(a: &Edge, b: &Edge) -> Ordering {
    a.from
        .cmp(&b.from)
        .then(a.to.cmp(&b.to))
        .then_with(|| cmp_utf16(a.kind.as_str(), b.kind.as_str()))
        .then(a.anchor.cmp(&b.anchor))
        .then_with(|| cmp_utf16(a.provenance.as_str(), b.provenance.as_str()))
}

fn render(m: &Model, module: Str, symbol: Str, d: u32) -> String {
    let mut s = format!("{}:{}", m.header.lang, m.strings.get(module));
    let sym = m.strings.get(symbol);
    if !sym.is_empty() {
        s.push('/');
        s.push_str(sym);
    }
    if d != NONE {
        s.push('#');
        s.push_str(m.strings.get(Str::from_raw(d)));
    }
    s
}

fn owned_extensions(ext: Extensions) -> Vec<(String, String)> {
    ext.into_iter().map(|(k, v)| (k.0.into_owned(), v.get().to_owned())).collect()
}

/// Decodes a Literal (`docs/formats/model.md` §3.6) with surrogate references.
fn decode_literal(raw: &RawValue) -> Result<Literal<u32>, String> {
    let v: serde_json::Value = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
    literal_from_value(&v)
}

fn decode_arguments(raw: &RawValue) -> Result<Vec<NamedArgument<u32>>, String> {
    let v: serde_json::Value = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
    arguments_from_value(&v)
}

fn arguments_from_value(v: &serde_json::Value) -> Result<Vec<NamedArgument<u32>>, String> {
    let items = v.as_array().ok_or("expected an array of {name, value}")?;
    items
        .iter()
        .map(|a| {
            let name = a.get("name").and_then(|n| n.as_str()).ok_or("an argument lacks a string \"name\"")?;
            let value = a.get("value").ok_or_else(|| format!("argument \"{name}\" lacks \"value\""))?;
            Ok(NamedArgument {
                name: name.to_owned(),
                value: literal_from_value(value).map_err(|m| format!("argument \"{name}\": {m}"))?,
            })
        })
        .collect()
}

fn literal_from_value(v: &serde_json::Value) -> Result<Literal<u32>, String> {
    let k = v.get("k").and_then(|k| k.as_str()).ok_or("a literal is an object with a string \"k\"")?;
    let text = |key: &str| {
        v.get(key)
            .and_then(|s| s.as_str())
            .map(str::to_owned)
            .ok_or_else(|| format!("a {k} literal needs a string \"{key}\""))
    };
    let ty = || -> Result<u32, String> {
        v.get("type")
            .and_then(|t| t.as_u64())
            .filter(|t| *t < NONE as u64)
            .map(|t| t as u32)
            .ok_or_else(|| format!("a {k} literal needs \"type\" (an entity surrogate)"))
    };
    Ok(match k {
        "string" => Literal::String(text("v")?),
        "number" => Literal::Number(text("v")?),
        "boolean" => Literal::Boolean(v.get("v").and_then(|b| b.as_bool()).ok_or("a boolean literal needs a boolean \"v\"")?),
        "null" => Literal::Null,
        "enum" => Literal::Enum { ty: ty()?, name: text("name")? },
        "type" => Literal::Type { ty: ty()? },
        "array" => Literal::Array(
            v.get("items")
                .and_then(|i| i.as_array())
                .ok_or("an array literal needs \"items\"")?
                .iter()
                .map(literal_from_value)
                .collect::<Result<_, _>>()?,
        ),
        "annotation" => Literal::Annotation {
            ty: ty()?,
            arguments: arguments_from_value(v.get("arguments").unwrap_or(&serde_json::Value::Array(vec![])))?,
        },
        "unevaluated" => Literal::Unevaluated(text("source")?),
        other => {
            return Err(format!(
                "unknown literal kind \"{other}\" (expected string, number, boolean, null, enum, type, array, annotation or unevaluated)"
            ))
        }
    })
}
