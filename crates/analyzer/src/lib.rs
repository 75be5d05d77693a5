//! Analyzer facts over a [`model::Model`], pure: no I/O, no clock; compiles
//! for wasm32. No document in `docs/formats` describes the analyzer: this
//! crate and its tests are the reference (`docs/formats/units-and-walk.md`
//! §1–§2 says which facts become insight units).
//!
//! What lives where:
//!
//! * [`graph`] — [`CodeGraph`], the indexed graph: rendered ids computed
//!   once, id ↔ surrogate lookup, the UTF-16 id order ([`CodeGraph::sorted`],
//!   [`CodeGraph::rank`]), sorted `childrenOf`, outgoing / incoming, the
//!   derived inverse sets (`callersOf`, `accessorsOf`, `subtypesOf`,
//!   `implementersOf`, `importersOf`) and the folder
//!   ([`CodeGraph::containing_type`], [`CodeGraph::containing_module`],
//!   iterative and computed once). Entities are `u32` surrogates inside;
//!   every result keyed by ids carries shared rendered id strings ([`Id`]).
//! * [`view`] — [`View`]: `all`, `internalOnly`, `declaredOnly`,
//!   `provenanceOnly`, `compose`, with the descriptor `{name, filters}`.
//! * [`fold`] — `foldGraph` → [`FoldedGraph`], the type dependency graph,
//!   the module import graph with `importDiagnostics` and coupling.
//! * [`facts`] — the domain-facts dossier, `codegraph.domainFacts/1`,
//!   with [`DomainFacts::to_json_string`] writing the artifact byte-exactly.
//! * [`framework`] — the opt-in Spring layer: roles, stereotypes,
//!   entry points, injection points and their candidates.
//! * [`scc`] — iterative Tarjan and `condense` over index graphs, plus
//!   [`scc::condense_ids`] over string ids.
//! * [`cycles`] — the cycle report and the weighted Eades–Lin–Smyth
//!   feedback arc set with its minimality pass.
//! * [`json`] — anchors, metrics in JavaScript number form, Literals with
//!   rendered ids.
//!
//! Every list is sorted with [`model::cmp_utf16`] (JavaScript string order)
//! once, where it is produced.
//!
//! Decisions on the spec's open points:
//! 1. `importGraph`'s node set is every module with members (as `foldGraph`
//!    produces it).
//! 3. A type-level entry-point annotation lands in the role set but has no
//!    visible effect: only `OperationFact` exposes `entryPoint`.
//! 4. C# properties / indexers stay in `fields` (upstream parity).
//! 5. `implementersOf` follows `interfaceImplementation` only (upstream parity).
//!
//! **Must never:** do I/O or read a clock; depend on the insights engine, a
//! store or a provider; change a model it is given.

pub mod cycles;
pub mod facts;
pub mod fold;
pub mod framework;
pub mod graph;
pub mod json;
pub mod scc;
pub mod view;

/// A rendered id (or other shared string) as results carry it: cheap to clone.
pub type Id = std::sync::Arc<str>;

pub use cycles::{cycles, feedback_arc_set, CycleComponent, CycleEdge, CycleReport, Tangle};
pub use facts::{build_domain_facts, DomainFacts, OperationFact, TypeDossier};
pub use fold::{
    coupling, fold_graph, import_graph, type_dependency_graph, FoldOptions, FoldedEdge, FoldedGraph, FoldedNode,
    ImportGraph,
};
pub use framework::Framework;
pub use graph::{CodeGraph, Level};
pub use scc::{condense, condense_ids, tarjan, Condensation};
pub use view::{View, ViewDescriptor};
