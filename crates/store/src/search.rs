//! Full-text search over explanations (store format version 2): an FTS5
//! index `insight_text` over every record's id, name, concept, description,
//! the rest of its block's text, and its name, id and concept cut at
//! capitals; its content is the view `insight_text_source` (the text is not
//! stored twice) and triggers keep it in the transaction that writes a
//! record (the migration ladder, `open.rs`). Words match by their stem
//! (`porter`), so "pricing" finds "prices" and "priced".
//!
//! A user's words are never FTS5 syntax: each whitespace-separated chunk
//! becomes a quoted phrase of its letters and digits (so `NEAR`, `AND`,
//! `*`, `"` and parentheses are plain words or nothing), the last one
//! prefix-matched; the chunks are joined with `AND`, and with `OR` when
//! `AND` finds nothing. Common English words (`where`, `is`, `the`…) are
//! dropped when other words remain.

use insights::vocab::Level;
use serde::Serialize;

use crate::rows;
use crate::store::{concept_label, json_string};
use crate::{Store, StoreError};

/// One record found by [`Store::search_text`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TextHit {
    pub id: String,
    pub level: Level,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The concept label (docs/formats/blocks.md §8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concept: Option<String>,
    /// A short excerpt (16 words at most) of the description, else of the
    /// first column that matches, each match between `«` and `»`, cuts
    /// marked `…`. Plain text (never HTML): render it as text.
    pub snippet: String,
    /// FTS5's BM25 score with the column weights of [`WEIGHTS`]: the smaller
    /// (more negative), the better. Hits come best first.
    pub rank: f64,
}

/// BM25 weights of the columns `id, name, concept, description, body,
/// words`: a word of the name counts most, then the description, then the
/// concept, the id and the name's words cut at capitals; the rest of the
/// block least.
pub const WEIGHTS: [f64; 6] = [2.0, 4.0, 2.0, 3.0, 1.0, 2.0];

/// The columns a snippet is cut from, the first with a match: the
/// description, the rest of the block, the name, the concept, else the one
/// FTS5 finds best (the id, or the words cut at capitals).
const SNIPPET_COLUMNS: [i32; 5] = [3, 4, 1, 2, -1];

/// The start and end of a match in [`TextHit::snippet`].
pub const MATCH_OPEN: char = '«';
pub const MATCH_CLOSE: char = '»';

/// Words a question is made of that say nothing about the code; dropped from
/// a query unless nothing else is left.
const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "been", "by", "can", "could", "did", "do",
    "does", "done", "for", "from", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of",
    "on", "or", "our", "should", "so", "than", "that", "the", "their", "them", "then", "there", "these", "they",
    "this", "those", "to", "was", "we", "were", "what", "when", "where", "which", "who", "whom", "why", "will", "with",
    "would", "you", "your",
];

/// The FTS5 queries for a user's words: `(all words, any word)`, or `None`
/// when there is no word at all. Each chunk of the text between whitespace
/// becomes a quoted phrase of its letters and digits; the last phrase is a
/// prefix. The second query is `None` when it would equal the first.
pub fn match_queries(text: &str) -> Option<(String, Option<String>)> {
    let phrases: Vec<String> = text
        .split_whitespace()
        .map(|chunk| {
            // Everything but letters and digits becomes a separator, as the
            // tokenizer would make it: no quote or operator survives.
            let words: Vec<&str> = chunk.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
            words.join(" ")
        })
        .filter(|p| !p.is_empty())
        .collect();
    let is_stop = |p: &String| STOP_WORDS.binary_search(&p.to_lowercase().as_str()).is_ok();
    let kept: Vec<&String> = if phrases.iter().all(is_stop) {
        phrases.iter().collect()
    } else {
        phrases.iter().filter(|p| !is_stop(p)).collect()
    };
    let (last, rest) = kept.split_last()?;
    let mut terms: Vec<String> = rest.iter().map(|p| format!("\"{p}\"")).collect();
    terms.push(format!("\"{last}\"*"));
    let all = terms.join(" AND ");
    let any = (terms.len() > 1).then(|| terms.join(" OR "));
    Some((all, any))
}

/// Inside a transaction that replaces every record: stops the triggers
/// that keep the text index, and empties it ([`index_all_text`] rebuilds
/// it and restarts them before the transaction ends).
pub(crate) fn pause_text_index(tx: &rusqlite::Connection) -> rusqlite::Result<()> {
    tx.execute_batch(
        "INSERT INTO meta (key, value) VALUES ('textIndexPaused', 'true'); \
         INSERT INTO insight_text (insight_text) VALUES ('delete-all');",
    )
}

/// Indexes every record in one statement (FTS5 keeps its pending index in
/// memory within a statement) and restarts the triggers.
pub(crate) fn index_all_text(tx: &rusqlite::Connection) -> rusqlite::Result<()> {
    tx.execute_batch(
        "INSERT INTO insight_text (rowid, id, name, concept, description, body, words) \
         SELECT * FROM insight_text_source; \
         DELETE FROM meta WHERE key = 'textIndexPaused';",
    )
}

impl Store {
    /// Records whose explanation matches `query` (free text: never parsed
    /// as FTS5 syntax), best first, at most `limit`: every word, or any word
    /// when no record has them all (see [`match_queries`]). An empty query
    /// (no letter or digit) finds nothing.
    pub fn search_text(&self, query: &str, limit: usize) -> Result<Vec<TextHit>, StoreError> {
        // The text index came with format version 2; an older store read
        // without migrating has none.
        self.needs_format(2)?;
        let Some((all, any)) = match_queries(query) else { return Ok(Vec::new()) };
        if limit == 0 {
            return Ok(Vec::new());
        }
        let hits = self.text_hits(&all, limit)?;
        match any {
            Some(any) if hits.is_empty() => self.text_hits(&any, limit),
            _ => Ok(hits),
        }
    }

    fn text_hits(&self, fts_query: &str, limit: usize) -> Result<Vec<TextHit>, StoreError> {
        let op = "searching explanations";
        let [w0, w1, w2, w3, w4, w5] = WEIGHTS;
        let snippets: Vec<String> = SNIPPET_COLUMNS
            .iter()
            .map(|c| format!("snippet(insight_text, {c}, '{MATCH_OPEN}', '{MATCH_CLOSE}', '…', 16)"))
            .collect();
        let sql = format!(
            "SELECT i.id, i.level, i.name, i.block -> '$.owner', i.concept, i.block -> '$.boundedContextHint.name', \
             bm25(insight_text, {w0:?}, {w1:?}, {w2:?}, {w3:?}, {w4:?}, {w5:?}) AS r, {} \
             FROM insight_text JOIN insight AS i ON i.rowid = insight_text.rowid \
             WHERE insight_text MATCH ?1 ORDER BY r LIMIT ?2",
            snippets.join(", ")
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(self.sql(op))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut rows = stmt.query(rusqlite::params![fts_query, limit]).map_err(self.sql(op))?;
        let mut hits = Vec::new();
        while let Some(r) = rows.next().map_err(self.sql(op))? {
            let sql = self.sql(op);
            let id: String = r.get(0).map_err(&sql)?;
            let rank: i64 = r.get(1).map_err(&sql)?;
            let level = rows::level_of(rank).ok_or_else(|| StoreError::Corrupt {
                path: self.path.clone(),
                what: "record",
                id: id.clone(),
                message: format!("level rank {rank}"),
            })?;
            let owner: Option<String> = r.get(3).map_err(&sql)?;
            let concept: Option<String> = r.get(4).map_err(&sql)?;
            let context: Option<String> = r.get(5).map_err(&sql)?;
            let mut snippet = String::new();
            for at in 7..7 + SNIPPET_COLUMNS.len() {
                snippet = r.get(at).map_err(&sql)?;
                if snippet.contains(MATCH_OPEN) {
                    break;
                }
            }
            hits.push(TextHit {
                level,
                name: r.get(2).map_err(&sql)?,
                concept: concept_label(rank, json_string(owner.as_deref()), concept, json_string(context.as_deref())),
                snippet,
                rank: r.get(6).map_err(&sql)?,
                id,
            });
        }
        // Equal scores in UTF-16 id order (SQLite would compare bytes).
        hits.sort_by(|a, b| a.rank.total_cmp(&b.rank).then_with(|| model::cmp_utf16(&a.id, &b.id)));
        Ok(hits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn words_become_quoted_phrases_the_last_a_prefix() {
        let q = |t: &str| match_queries(t);
        assert_eq!(
            q("where is pricing decided?"),
            Some(("\"pricing\" AND \"decided\"*".into(), Some("\"pricing\" OR \"decided\"*".into())))
        );
        assert_eq!(q("Rental"), Some(("\"Rental\"*".into(), None)));
        assert_eq!(q("the"), Some(("\"the\"*".into(), None)), "only stop words: kept");
        assert_eq!(
            q("NEAR(a b) \"x* OR"),
            Some(("\"NEAR a\" AND \"b\" AND \"x\"*".into(), Some("\"NEAR a\" OR \"b\" OR \"x\"*".into())))
        );
        assert_eq!(q("java:p/A.f()"), Some(("\"java p A f\"*".into(), None)));
        assert_eq!(q("  ( ) * \" - "), None);
        assert_eq!(q(""), None);
        assert_eq!(q("a\u{0}b"), Some(("\"a b\"*".into(), None)));
        assert_eq!(q("café Straße"), Some(("\"café\" AND \"Straße\"*".into(), Some("\"café\" OR \"Straße\"*".into()))));
    }
}
