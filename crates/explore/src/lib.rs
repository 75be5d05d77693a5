//! Explore: a question in, a compact map out (issue 7; outputs: `docs/formats/cli.md` §5).
//!
//! The map lists the symbols that matter with `file:line` and signatures,
//! the call path among them, where interface dispatch leaves the static
//! graph, what depends on them, the relationships among them and, beside
//! each, the one-line explanation already paid for. It is what a user
//! pastes into a chat, so it is small, and every capped list says what it
//! left out: a map never reads as complete when it is not.
//!
//! Pure: no files, clock or network; source comes through the
//! [`sources::SourceReader`] port and explanations through [`Explanations`].
//!
//! * [`ExploreIndex`] — the name index, built once per model and kept.
//! * [`Explorer::answer`] — one question → an [`ExploreMap`]: query reading
//!   (`query`), gathering and ranking (`gather`), the graph around the
//!   result (`relations`), excerpts (`source`), fitted to [`Caps`].
//! * [`ExploreMap::to_markdown`] / [`ExploreMap::to_json`] — the two forms.
//! * [`Mode`] — `map` (default), `snippets`, `source`; [`Mode::resolve`]
//!   applies the precedence per-query → flag → setting → `map`.
//!
//! ```ignore
//! let graph = analyzer::CodeGraph::new(&model);
//! let index = explore::ExploreIndex::build(&graph);           // once
//! let explorer = explore::Explorer { graph: &graph, index: &index, sources: None, explanations: &explore::NoExplanations };
//! let map = explorer.answer(&explore::Request { question: "how is a rental priced?", ..Default::default() });
//! println!("{}", map.to_markdown());
//! ```
//!
//! **Must never:** write anything, read a clock, or read files (source comes
//! through `SourceReader`, explanations through `Explanations`); present a
//! capped list as complete.

mod explanations;
mod gather;
mod index;
mod map;
mod query;
mod relations;
mod render;
mod source;
mod text;

pub use explanations::{
    current_fingerprints, plan_verdict, Explanation, Explanations, NoExplanations, RecordExplanations,
};
pub use gather::Why;
pub use index::{qualified_name, Class, ExploreIndex};
pub use map::{
    Blast, BlastGroup, Caps, Cut, DispatchNote, Excerpt, ExplanationCounts, ExplanationLine, ExploreMap, Explorer,
    Flow, FlowStep, Hop, Listing, NotShown, Pair, Relation, RelationshipKind, Relationships, Request, SourceSection,
    Summary, Symbol, SymbolRef, EXPLANATION_CHARS, MAP_KIND,
};
pub use query::{Mode, ECHO_CHARS, MAX_QUESTION_CHARS};
pub use text::visible;

/// Estimated tokens of a text: ⌈UTF-16 length / 4⌉, the engine's rule.
pub fn estimate_tokens(text: &str) -> u64 {
    insights::estimate::estimate_tokens(text)
}
