//! From a read question to ranked symbols. Requested symbols (names the
//! question spells, `file:line` anchors, named files) come first in the
//! order asked; then phrase hits found in the source; then symbols matched
//! by words (names, signatures, comments and explanations, in falling
//! weight, scaled by rarity) and their call neighbours, by score.

use analyzer::CodeGraph;
use hashbrown::{HashMap, HashSet};
use model::EdgeKind;
use serde::Serialize;
use sources::SourceReader;

use crate::index::{qualified_name, Channel, Class, ExploreIndex};
use crate::query::{NameToken, Parsed};
use crate::text::code;

/// Definitions one name may request before the rest are left to ranking.
const MAX_DEFINITIONS: usize = 4;
/// Symbols one anchor range may request.
const MAX_RANGE_SYMBOLS: usize = 6;
/// Files one path may match before it is ambiguous.
const MAX_PATH_FILES: usize = 3;
/// Requested symbols per question.
pub(crate) const MAX_REQUESTED: usize = 40;
/// Symbols kept after ranking (the rest are only counted).
const MAX_KEPT: usize = 200;
/// A phrase hit's score: above any word match, below a requested symbol.
const PHRASE_SCORE: f64 = 500.0;
/// Phrase hits kept per phrase.
const MAX_PHRASE_HITS: usize = 8;
/// Source scanned for phrases, at most.
const MAX_SCAN_BYTES: usize = 64 << 20;
const MAX_SCAN_FILES: usize = 16_000;
/// Matches below this share of the best one are dropped…
const FLOOR_FRACTION: f64 = 0.2;
/// …unless fewer than this many would remain.
const FLOOR_KEEP_MIN: usize = 3;

/// Characters of a name, anchor or path of the question repeated in the map.
const SHOWN_CHARS: usize = 80;

/// A part of the question as the map repeats it: one line, bounded.
fn shown(s: &str) -> String {
    crate::text::one_line(s, SHOWN_CHARS)
}

/// Why a symbol is on the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Why {
    /// The question names it.
    Named,
    /// A `file:line` anchor or a named file points at it.
    Anchor,
    /// A quoted phrase was found in its source.
    Phrase,
    /// Question words match its name, signature, comment or explanation.
    Match,
    /// It calls or is called by a requested or top symbol.
    Adjacent,
}

impl Why {
    pub(crate) fn requested(self) -> bool {
        matches!(self, Why::Named | Why::Anchor)
    }
}

/// One ranked symbol.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ranked {
    pub entity: u32,
    pub why: Why,
    pub score: f64,
}

/// The outcome of gathering.
#[derive(Debug, Default)]
pub(crate) struct Gathered {
    /// Requested first (in question order), then the rest by score.
    pub ranked: Vec<Ranked>,
    /// Symbols that matched, counting those beyond [`MAX_KEPT`].
    pub matched: usize,
    /// Distinct files of the matched symbols that were kept.
    pub files: usize,
    /// Names, anchors and paths that resolve to nothing.
    pub not_found: Vec<String>,
    pub notes: Vec<String>,
}

/// Per symbol: score, why, and for a requested one its place in the question.
struct Scores {
    map: HashMap<u32, (f64, Why, u32)>,
    order: u32,
}

/// Places left after a requested symbol for the members promoted after it.
const PROMOTED: u32 = 256;

impl Scores {
    fn request(&mut self, i: u32, why: Why) -> bool {
        self.order += PROMOTED;
        self.request_at(i, why, self.order)
    }
    fn request_at(&mut self, i: u32, why: Why, order: u32) -> bool {
        if self.map.get(&i).is_some_and(|(_, w, _)| w.requested()) {
            return false;
        }
        self.map.insert(i, (f64::INFINITY, why, order));
        true
    }
    fn add(&mut self, i: u32, score: f64, why: Why) {
        let e = self.map.entry(i).or_insert((0.0, why, u32::MAX));
        if !e.1.requested() {
            e.0 += score;
            if why < e.1 {
                e.1 = why;
            }
        }
    }
    fn requested_count(&self) -> usize {
        self.map.values().filter(|v| v.1.requested()).count()
    }
}

pub(crate) struct Gatherer<'a, 'm> {
    pub graph: &'a CodeGraph<'m>,
    pub index: &'a ExploreIndex,
    pub sources: Option<&'a dyn SourceReader>,
}

impl Gatherer<'_, '_> {
    pub(crate) fn gather(&self, q: &Parsed) -> Gathered {
        let mut out = Gathered { notes: q.notes.clone(), ..Gathered::default() };
        let mut s = Scores { map: HashMap::new(), order: 0 };
        self.names(q, &mut s, &mut out);
        self.anchors(q, &mut s, &mut out);
        self.phrases(q, &mut s, &mut out);
        self.promote_members(q, &mut s);
        self.words(q, &mut s);
        self.adjacent(&mut s);
        if q.dropped > 0 {
            out.notes.push(format!(
                "{} of the question's names, phrases or words were beyond what one question looks up",
                q.dropped
            ));
        }
        self.rank(s, &mut out);
        out
    }

    /// Whether `i`'s name is spelled exactly `text` (case-sensitively).
    fn spelled(&self, i: u32, text: &str) -> bool {
        let q = qualified_name(self.graph, i);
        if !text.contains('.') {
            let simple = match self.index.class(i) {
                Some(Class::Module) => q.rsplit('.').next(),
                _ => self.graph.entity_name(i),
            };
            return simple == Some(text);
        }
        let e = self.graph.entity(i);
        q == text
            || q.ends_with(&format!(".{text}"))
            || format!(".{}.{q}", e.module_path()).ends_with(&format!(".{text}"))
    }

    fn definitions(&self, t: &NameToken) -> Vec<u32> {
        let lower = t.text.to_lowercase();
        let all: Vec<u32> = if lower.contains('.') {
            // `com.acme.Order.total`: the longest suffix the index knows
            // (module paths are not part of symbols' keys), then checked whole.
            let mut key = lower.as_str();
            let hits = loop {
                let hits = if key.contains('.') { self.index.by_qualified(key) } else { self.index.by_name(key) };
                match key.split_once('.') {
                    Some((_, rest)) if hits.is_empty() => key = rest,
                    _ => break hits,
                }
            };
            if key.len() == lower.len() {
                hits.to_vec()
            } else {
                let module_qualified = |i: u32| {
                    let e = self.graph.entity(i);
                    format!(".{}.{}", e.module_path(), qualified_name(self.graph, i)).to_lowercase()
                };
                hits.iter().copied().filter(|&i| module_qualified(i).ends_with(&format!(".{lower}"))).collect()
            }
        } else {
            self.index.by_name(&lower).to_vec()
        };
        let exact: Vec<u32> = all.iter().copied().filter(|&i| self.spelled(i, &t.text)).collect();
        if !t.precise {
            // A capitalized prose word names a type only when spelled exactly.
            return exact.into_iter().filter(|&i| self.index.class(i) == Some(Class::Type)).collect();
        }
        if exact.is_empty() {
            all
        } else {
            exact
        }
    }

    /// Sorts definitions: types and operations before fields and modules,
    /// more callers first, then id order.
    fn substantive_first(&self, defs: &mut [u32]) {
        let weight = |i: u32| self.index.class(i).map_or(0.0, Class::weight);
        defs.sort_by(|&a, &b| {
            weight(b)
                .total_cmp(&weight(a))
                .then(self.graph.callers_of(b).len().cmp(&self.graph.callers_of(a).len()))
                .then(self.graph.cmp(a, b))
        });
    }

    fn names(&self, q: &Parsed, s: &mut Scores, out: &mut Gathered) {
        let others: Vec<String> = q.names.iter().map(|n| n.text.to_lowercase()).collect();
        for t in &q.names {
            let mut defs = self.definitions(t);
            if defs.is_empty() {
                if t.precise {
                    out.not_found.push(shown(&t.text));
                }
                continue;
            }
            let total = defs.len();
            if total > MAX_DEFINITIONS {
                // Keep the definitions whose type or file the question also names.
                let co_named: Vec<u32> = defs
                    .iter()
                    .copied()
                    .filter(|&i| {
                        let owner = self.graph.containing_type(i).filter(|&o| o != i);
                        let owner_named = owner
                            .and_then(|o| self.graph.entity_name(o))
                            .is_some_and(|n| others.contains(&n.to_lowercase()));
                        let file_named = self.graph.entity(i).anchor().is_some_and(|a| {
                            let path = self.graph.file(a.file);
                            let base = path.rsplit('/').next().unwrap_or(path);
                            let stem = base.split('.').next().unwrap_or(base).to_lowercase();
                            others.contains(&stem)
                        });
                        owner_named || file_named
                    })
                    .collect();
                if !co_named.is_empty() {
                    defs = co_named;
                }
                self.substantive_first(&mut defs);
                defs.truncate(MAX_DEFINITIONS);
                out.notes.push(format!(
                    "{} has {total} definitions; {} of them are requested (name the type or the file to pick others)",
                    code(&shown(&t.text)),
                    defs.len()
                ));
            } else {
                self.substantive_first(&mut defs);
            }
            for i in defs {
                if s.requested_count() < MAX_REQUESTED {
                    s.request(i, Why::Named);
                }
            }
        }
    }

    fn anchors(&self, q: &Parsed, s: &mut Scores, out: &mut Gathered) {
        for a in &q.anchors {
            let files = self.index.files_for(&a.path);
            if files.is_empty() {
                out.not_found.push(shown(&a.text));
                continue;
            }
            if files.len() > MAX_PATH_FILES {
                out.notes.push(format!(
                    "{} matches {} files; name more of its path",
                    code(&shown(&a.path)),
                    files.len()
                ));
                continue;
            }
            for f in files {
                let mut hits = Vec::new();
                if let Some(i) = self
                    .index
                    .innermost(f, a.start)
                    .filter(|&i| self.graph.entity(i).anchor().is_some_and(|an| an.start <= a.start && a.end <= an.end))
                {
                    hits.push(i);
                } else if a.end > a.start {
                    let mut inside = self.index.starting_in(f, a.start, a.end);
                    let ops: Vec<u32> =
                        inside.iter().copied().filter(|&i| self.index.class(i) == Some(Class::Operation)).collect();
                    if !ops.is_empty() {
                        inside = ops;
                    }
                    if inside.len() > MAX_RANGE_SYMBOLS {
                        out.notes.push(format!(
                            "{} holds {} symbols; the first {MAX_RANGE_SYMBOLS} are requested",
                            code(&shown(&a.text)),
                            inside.len()
                        ));
                        inside.truncate(MAX_RANGE_SYMBOLS);
                    }
                    hits = inside;
                }
                if hits.is_empty() {
                    out.notes.push(format!(
                        "{}: no symbol of the model is at {} of {}",
                        code(&shown(&a.text)),
                        if a.start == a.end {
                            format!("line {}", a.start)
                        } else {
                            format!("lines {}–{}", a.start, a.end)
                        },
                        self.graph.file(f)
                    ));
                }
                for i in hits {
                    if s.requested_count() < MAX_REQUESTED {
                        s.request(i, Why::Anchor);
                    }
                }
            }
        }
        for path in &q.paths {
            let files = self.index.files_for(path);
            if files.is_empty() {
                out.not_found.push(shown(path));
                continue;
            }
            if files.len() > MAX_PATH_FILES {
                out.notes.push(format!("{} matches {} files; name more of its path", code(&shown(path)), files.len()));
                continue;
            }
            for f in files {
                for i in self.index.top_level(f).into_iter().take(MAX_DEFINITIONS) {
                    if s.requested_count() < MAX_REQUESTED {
                        s.request(i, Why::Anchor);
                    }
                }
            }
        }
    }

    /// Quoted phrases, searched in the source when it is loaded.
    fn phrases(&self, q: &Parsed, s: &mut Scores, out: &mut Gathered) {
        if q.phrases.is_empty() {
            return;
        }
        let Some(sources) = self.sources else {
            for p in &q.phrases {
                out.notes.push(format!(
                    "the phrase \"{p}\" was not searched for: no source is loaded here (its words were matched instead)"
                ));
            }
            return;
        };
        let model = self.graph.model();
        let needles: Vec<String> = q.phrases.iter().map(|p| p.to_lowercase()).collect();
        let mut hits: Vec<Vec<(u32, u32)>> = vec![Vec::new(); needles.len()];
        let (mut bytes, mut files, mut complete) = (0usize, 0usize, true);
        for f in 0..model.files().len() as u32 {
            if hits.iter().all(|h| h.len() >= MAX_PHRASE_HITS) {
                break;
            }
            if bytes >= MAX_SCAN_BYTES || files >= MAX_SCAN_FILES {
                complete = false;
                break;
            }
            let Some(text) = sources.read(model.file(f)).text().cloned() else { continue };
            files += 1;
            bytes += text.len();
            let lower = text.to_lowercase();
            for (k, needle) in needles.iter().enumerate() {
                let mut from = 0;
                while hits[k].len() < MAX_PHRASE_HITS {
                    let Some(at) = lower[from..].find(needle.as_str()) else { break };
                    let line = lower[..from + at].matches('\n').count() as u32 + 1;
                    hits[k].push((f, line));
                    from += at + needle.len().max(1);
                }
            }
        }
        for (k, phrase) in q.phrases.iter().enumerate() {
            let mut symbols = 0;
            for &(f, line) in &hits[k] {
                if let Some(i) = self.index.innermost(f, line) {
                    s.add(i, PHRASE_SCORE, Why::Phrase);
                    symbols += 1;
                }
            }
            let scope = if complete { String::new() } else { format!(" (only {files} files were searched)") };
            out.notes.push(match hits[k].len() {
                0 => format!("the phrase \"{phrase}\" is not in the source{scope}"),
                n => format!(
                    "the phrase \"{phrase}\" is in the source {}{}, inside {}{scope}",
                    crate::text::plural(n, "time", "times"),
                    if n >= MAX_PHRASE_HITS { " or more" } else { "" },
                    crate::text::plural(symbols, "symbol", "symbols")
                ),
            });
        }
    }

    /// A lowercase word naming a member of a requested type requests it
    /// (`finish in RentalService`).
    fn promote_members(&self, q: &Parsed, s: &mut Scores) {
        let mut types: Vec<(u32, u32)> = s
            .map
            .iter()
            .filter(|(&i, v)| v.1 == Why::Named && self.index.class(i) == Some(Class::Type))
            .map(|(&i, v)| (i, v.2))
            .collect();
        types.sort_by_key(|t| t.1);
        for (t, order) in types {
            for (k, &c) in self.graph.children_of(t).iter().enumerate().take(PROMOTED as usize - 1) {
                let named =
                    self.graph.entity_name(c).is_some_and(|n| q.words.iter().any(|w| w.lower.eq_ignore_ascii_case(n)));
                if named
                    && matches!(self.index.class(c), Some(Class::Operation | Class::Field))
                    && s.requested_count() < MAX_REQUESTED
                {
                    s.request_at(c, Why::Named, order + 1 + k as u32);
                }
            }
        }
    }

    fn words(&self, q: &Parsed, s: &mut Scores) {
        let total = self.index.symbols().max(1) as f64;
        let mut words: Vec<(String, String)> = q.words.iter().map(|w| (w.lower.clone(), w.stem.clone())).collect();
        // Capitalized words that named nothing are words too.
        for n in q.names.iter().filter(|n| !n.precise) {
            let lower = n.text.to_lowercase();
            let stem = crate::text::stem(&lower);
            if !crate::text::is_stop_word(&lower) && !words.iter().any(|w| w.1 == stem) {
                words.push((lower, stem));
            }
        }
        // Parts of precise names that named nothing.
        for n in q.names.iter().filter(|n| n.precise && self.definitions(n).is_empty()) {
            crate::text::segments(&n.text, |seg| {
                let stem = crate::text::stem(seg);
                if seg.len() >= 3 && !crate::text::is_stop_word(seg) && !words.iter().any(|w| w.1 == stem) {
                    words.push((seg.to_owned(), stem));
                }
            });
        }
        const CHANNELS: [(Channel, f64); 4] =
            [(Channel::Name, 10.0), (Channel::Signature, 4.0), (Channel::Comment, 4.0), (Channel::Explanation, 3.0)];
        // Per symbol: summed term scores and the number of terms matched.
        let mut acc: HashMap<u32, (f64, u32)> = HashMap::new();
        for (lower, stem) in &words {
            let df = CHANNELS.iter().map(|(c, _)| self.index.by_term(*c, stem).len()).max().unwrap_or(0);
            if df == 0 {
                continue;
            }
            let idf = (1.0 + total / df as f64).ln();
            let mut best: HashMap<u32, f64> = HashMap::new();
            for (channel, weight) in CHANNELS {
                for &i in self.index.by_term(channel, stem) {
                    let v = best.entry(i).or_insert(0.0);
                    *v = v.max(weight * idf);
                }
            }
            for (i, mut v) in best {
                // A whole-name match (`rental` for `Rental`) counts more.
                if self
                    .graph
                    .entity_name(i)
                    .is_some_and(|n| n.eq_ignore_ascii_case(lower) || crate::text::stem(n) == *stem)
                {
                    v += 5.0 * idf;
                }
                let e = acc.entry(i).or_insert((0.0, 0));
                e.0 += v;
                e.1 += 1;
            }
        }
        for (i, (sum, terms)) in acc {
            let weight = self.index.class(i).map_or(0.0, Class::weight);
            s.add(i, sum * f64::from(terms) * weight, Why::Match);
        }
    }

    /// Callers and callees of requested operations, and of the three best
    /// matched ones, join at a low score.
    fn adjacent(&self, s: &mut Scores) {
        let mut seeds: Vec<(u32, f64)> = s
            .map
            .iter()
            .filter(|(&i, v)| v.1.requested() && self.index.class(i) == Some(Class::Operation))
            .map(|(&i, _)| (i, 3.0))
            .collect();
        let mut matched: Vec<(u32, f64)> = s
            .map
            .iter()
            .filter(|(&i, v)| !v.1.requested() && self.index.class(i) == Some(Class::Operation))
            .map(|(&i, v)| (i, v.0))
            .collect();
        matched.sort_by(|a, b| b.1.total_cmp(&a.1).then(self.graph.cmp(a.0, b.0)));
        seeds.extend(matched.into_iter().take(3).map(|(i, v)| (i, 0.25 * v)));
        seeds.sort_by(|a, b| self.graph.cmp(a.0, b.0));
        let edges = self.graph.model().edges();
        for (seed, gain) in seeds {
            let mut seen = HashSet::new();
            let out = self.graph.outgoing_of_kind(seed, EdgeKind::Invocation).map(|e| edges[e as usize].to);
            let callers = self.graph.callers_of(seed).iter().copied();
            for n in out.chain(callers).take(40) {
                let Some(o) = self.index.owner(n) else { continue };
                if o != seed && self.index.class(o) == Some(Class::Operation) && seen.insert(o) {
                    s.add(o, gain * self.index.class(o).map_or(0.0, Class::weight), Why::Adjacent);
                }
            }
        }
    }

    fn rank(&self, s: Scores, out: &mut Gathered) {
        let mut requested: Vec<(u32, Why, u32)> =
            s.map.iter().filter(|(_, v)| v.1.requested()).map(|(&i, v)| (i, v.1, v.2)).collect();
        requested.sort_by_key(|r| r.2);
        let mut others: Vec<Ranked> = s
            .map
            .iter()
            .filter(|(_, v)| !v.1.requested() && v.0 > 0.0)
            .map(|(&i, v)| Ranked { entity: i, why: v.1, score: v.0 })
            .collect();
        others.sort_by(|a, b| b.score.total_cmp(&a.score).then(self.graph.cmp(a.entity, b.entity)));
        if let Some(top) = others.first().map(|r| r.score) {
            let floor = top * FLOOR_FRACTION;
            let keep = others.iter().take_while(|r| r.score >= floor).count().max(FLOOR_KEEP_MIN.min(others.len()));
            others.truncate(keep);
        }
        out.matched = requested.len() + others.len();
        others.truncate(MAX_KEPT.saturating_sub(requested.len()));
        out.ranked = requested.into_iter().map(|(i, why, _)| Ranked { entity: i, why, score: 0.0 }).collect();
        out.ranked.extend(others);
        let files: HashSet<u32> =
            out.ranked.iter().filter_map(|r| self.graph.entity(r.entity).anchor().map(|a| a.file)).collect();
        out.files = files.len();
    }
}
