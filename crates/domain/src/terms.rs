//! The glossary: the modules' ubiquitous language, and the units whose
//! explanation names a term (among its terms, or in its name or
//! description, word for word).

use crate::{normal, Book, Context, Definition, GlossaryEntry, Spellings};
use analyzer::facts::DomainFacts;
use hashbrown::{HashMap, HashSet};
use insights::blocks::Block;

struct Entry {
    term: Spellings,
    definitions: Vec<Definition>,
    contexts: HashSet<usize>,
    /// Indices into the units, in unit order, each once.
    units: Vec<u32>,
}

impl Entry {
    fn named_by(&mut self, unit: u32, context: usize) {
        // Units are visited in order, each once: a repeat is the last one.
        if self.units.last() != Some(&unit) {
            self.units.push(unit);
        }
        self.contexts.insert(context);
    }
}

/// Lowercase words of letters and digits.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// Units kept per term: the first in unit order (modules, types, then
/// operations), sorted; [`GlossaryEntry::unit_count`] counts them all.
pub const UNITS_LISTED: usize = 25;

pub(crate) fn glossary(
    facts: &DomainFacts,
    book: &Book<'_>,
    module_context: &HashMap<&str, usize>,
    type_context: &HashMap<&str, usize>,
    contexts: &mut [Context],
) -> Vec<GlossaryEntry> {
    let mut entries: Vec<Entry> = Vec::new();
    let mut by_key: HashMap<String, usize> = HashMap::new();
    let mut entry = |term: &str, entries: &mut Vec<Entry>| -> Option<usize> {
        let key = normal(term);
        if key.is_empty() {
            return None;
        }
        let at = *by_key.entry(key).or_insert_with(|| {
            entries.push(Entry {
                term: Spellings::default(),
                definitions: Vec::new(),
                contexts: HashSet::new(),
                units: Vec::new(),
            });
            entries.len() - 1
        });
        entries[at].term.add(&term.split_whitespace().collect::<Vec<_>>().join(" "));
        Some(at)
    };

    // The definitions, module by module.
    for m in &facts.modules {
        let (Some(&at), Some(Block::Module(b))) = (module_context.get(&*m.id), book.block(&m.id)) else { continue };
        for t in &b.ubiquitous_language {
            let Some(e) = entry(&t.term, &mut entries) else { continue };
            let definition = t.definition.split_whitespace().collect::<Vec<_>>().join(" ");
            let e = &mut entries[e];
            e.contexts.insert(at);
            let context = &contexts[at].key;
            if !e.definitions.iter().any(|d| &d.context == context && normal(&d.definition) == normal(&definition)) {
                e.definitions.push(Definition { context: context.clone(), definition, module: m.id.to_string() });
            }
        }
    }

    // Every unit with its context.
    let mut units: Vec<(&str, usize)> = Vec::new();
    for m in &facts.modules {
        if let Some(&at) = module_context.get(&*m.id) {
            units.push((&m.id, at));
        }
    }
    for d in &facts.types {
        let Some(&at) = type_context.get(&*d.id) else { continue };
        units.push((&d.id, at));
        units.extend(d.operations.iter().map(|o| (&*o.id, at)));
    }

    // The terms units list, then every unit once: the terms it lists and
    // those its name or description says, word for word.
    let listed = |id: &str| -> &[String] {
        match book.block(id) {
            Some(Block::Operation(b)) => &b.domain_terms,
            Some(Block::Type(b)) => &b.domain_terms,
            _ => &[],
        }
    };
    for &(id, _) in &units {
        for t in listed(id) {
            entry(t, &mut entries);
        }
    }
    let spelled: Vec<String> = entries.iter().map(|e| e.term.best()).collect();
    let mut first_words: HashMap<String, Vec<(usize, Vec<String>)>> = HashMap::new();
    for (i, term) in spelled.iter().enumerate() {
        let w = words(term);
        if let Some(first) = w.first() {
            first_words.entry(first.clone()).or_default().push((i, w.clone()));
        }
    }
    for (u, &(id, at)) in units.iter().enumerate() {
        let Some(block) = book.block(id) else { continue };
        for t in listed(id) {
            if let Some(&e) = by_key.get(&normal(t)) {
                entries[e].named_by(u as u32, at);
            }
        }
        let text = words(&format!("{} {}", block.name(), block.description()));
        for (i, w) in text.iter().enumerate() {
            let Some(candidates) = first_words.get(w) else { continue };
            for (e, term) in candidates {
                if text[i..].starts_with(term) {
                    entries[*e].named_by(u as u32, at);
                }
            }
        }
    }

    let mut out: Vec<GlossaryEntry> = entries
        .into_iter()
        .zip(spelled)
        .map(|(e, term)| {
            let mut contexts_of: Vec<String> = e.contexts.iter().map(|&c| contexts[c].key.clone()).collect();
            contexts_of.sort();
            for &c in &e.contexts {
                contexts[c].terms.push(term.clone());
            }
            let meanings: HashSet<String> = e.definitions.iter().map(|d| normal(&d.definition)).collect();
            let defining: HashSet<String> = e.definitions.iter().map(|d| d.context.clone()).collect();
            let unit_count = e.units.len() as u64;
            let mut listed: Vec<String> =
                e.units.iter().take(UNITS_LISTED).map(|&u| units[u as usize].0.to_owned()).collect();
            listed.sort();
            let mut definitions = e.definitions;
            definitions.sort_by(|a, b| (&a.context, &a.module).cmp(&(&b.context, &b.module)));
            GlossaryEntry {
                conflicting: meanings.len() > 1 && defining.len() > 1,
                term,
                definitions,
                contexts: contexts_of,
                units: listed,
                unit_count,
            }
        })
        .collect();
    out.sort_by(|a, b| a.term.to_lowercase().cmp(&b.term.to_lowercase()).then_with(|| a.term.cmp(&b.term)));
    for c in contexts.iter_mut() {
        c.terms.sort_by_key(|t| t.to_lowercase());
    }
    out
}
