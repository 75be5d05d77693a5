//! The offline demo: answers any request with a valid, clearly labelled
//! placeholder block built from what the request asks ([`Asking`]: the
//! unit, its level, the ids asked), never from the prompt's text. No network, no clock, no
//! randomness; works in a browser. Its answers say nothing about the code.

use insights::blocks::{Block, ModuleBlock, OperationBlock, TypeBlock};
use insights::complete::{Asking, Completer, Completion, CompletionError, CompletionRequest, LocalFuture};
use insights::vocab::{DomainConcept, Level, OperationOwner};
use serde_json::{json, Value};

/// `Completion.model` of every demo answer.
pub const DEMO_MODEL: &str = "demo";
/// How every demo description starts.
pub const DEMO_MARK: &str = "[demo — not written by an LLM]";

/// A [`Completer`] that needs no provider.
#[derive(Clone, Copy, Debug, Default)]
pub struct DemoCompleter;

impl Completer for DemoCompleter {
    fn name(&self) -> String {
        DEMO_MODEL.into()
    }

    fn complete(&self, request: CompletionRequest) -> LocalFuture<'_, Result<Completion, CompletionError>> {
        let json = demo_answer(&request.asking);
        Box::pin(std::future::ready(Ok::<_, CompletionError>(Completion {
            json,
            model: DEMO_MODEL.into(),
            usage: None,
        })))
    }
}

/// A readable name from an id: the member after `#` (without parameters),
/// else the last path segment.
pub fn name_of(id: &str) -> String {
    let name = match id.rsplit_once('#') {
        Some((_, member)) => member.split('(').next().unwrap_or(member),
        None => id.rsplit(['/', ':']).next().unwrap_or(id),
    };
    if name.trim().is_empty() {
        id.to_owned()
    } else {
        name.trim().to_owned()
    }
}

/// The placeholder block of `level` for `id`: name from the id, a description
/// saying it is the offline demo, every list empty, every nullable null,
/// `unknown` where a choice is required, confidence 0.
pub fn demo_block(level: Level, id: &str) -> Block {
    let name = name_of(id);
    let description = format!(
        "{DEMO_MARK} Placeholder for the {} `{id}`, produced offline from the prompt alone; it says nothing about \
         what the code does. Choose a provider to get a real explanation.",
        level.as_str()
    );
    match level {
        Level::Operation => Block::Operation(OperationBlock {
            name,
            description,
            safe: false,
            idempotent: None,
            owner: OperationOwner::Unknown,
            handles_command: None,
            emits: vec![],
            preconditions: vec![],
            postconditions: vec![],
            invariants_enforced: vec![],
            uses_spi: vec![],
            domain_terms: vec![],
            confidence: 0.0,
        }),
        Level::Type => Block::Type(TypeBlock {
            name,
            description,
            concept: DomainConcept::Unknown,
            event_kind: None,
            interface_role: None,
            aggregate_root: None,
            contained_in: None,
            sync_pattern: None,
            identity: None,
            fields: vec![],
            invariants: vec![],
            state_machine: None,
            relates_to: vec![],
            exposes: vec![],
            depends_on: vec![],
            domain_terms: vec![],
            confidence: 0.0,
        }),
        Level::Module => Block::Module(ModuleBlock {
            name,
            description,
            apis: vec![],
            spis: vec![],
            depends_on: vec![],
            concepts: vec![],
            bounded_context_hint: None,
            shared_kernel_hint: None,
            ubiquitous_language: vec![],
            confidence: 0.0,
        }),
    }
}

/// The demo's answer to what is asked: a block, or `{members: [{id, block}]}`
/// for a cycle.
pub fn demo_answer(asking: &Asking) -> Value {
    let to_value = |b: Block| serde_json::to_value(b).expect("blocks always serialize");
    if asking.cycle {
        json!({
            "members": asking.members.iter().map(|id| json!({"id": id, "block": to_value(demo_block(asking.level, id))})).collect::<Vec<_>>()
        })
    } else {
        let id = asking.members.first().unwrap_or(&asking.unit);
        to_value(demo_block(asking.level, id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;
    use insights::schema::{block_schema, block_schema_name, cycle_schema, cycle_schema_name};
    use insights::validate::{validate_block, validate_cycle};

    fn request(level: Level, unit: &str, cycle: Option<&[&str]>) -> CompletionRequest {
        let (schema_name, json_schema) = match cycle {
            Some(ids) => (cycle_schema_name(level), cycle_schema(level, ids)),
            None => (block_schema_name(level), block_schema(level)),
        };
        CompletionRequest {
            asking: Asking {
                unit: unit.into(),
                level,
                members: cycle.map_or_else(|| vec![unit.to_owned()], |ids| ids.iter().map(|s| s.to_string()).collect()),
                cycle: cycle.is_some(),
            },
            model: "openai/gpt-5.6-luna".into(),
            system: "sys".into(),
            // The text is never read: nothing in it names the unit.
            user: "(prompt text)".into(),
            schema_name,
            schema: json_schema,
            max_tokens: None,
        }
    }

    #[test]
    fn every_level_validates() {
        for (level, id, name) in [
            (Level::Operation, "java:com.acme.order/Basket#add(com.acme.Item, int)", "add"),
            (Level::Type, "java:com.acme.order/Basket.Cursor", "Basket.Cursor"),
            (Level::Module, "java:com.acme.order", "com.acme.order"),
        ] {
            let c = block_on(DemoCompleter.complete(request(level, id, None))).unwrap();
            assert_eq!(c.model, "demo");
            assert_eq!(c.usage, None);
            let block = validate_block(level, &c.json).unwrap_or_else(|e| panic!("{level:?}: {e:?}"));
            assert_eq!(block.name(), name);
            assert!(block.description().starts_with(DEMO_MARK), "{}", block.description());
            assert!(block.description().contains(id));
            assert_eq!(block.confidence(), 0.0);
        }
    }

    #[test]
    fn a_cycle_validates() {
        let ids = ["java:com.acme.order/Basket", "java:com.acme.order/Basket.Cursor"];
        let c = block_on(DemoCompleter.complete(request(Level::Type, ids[0], Some(&ids)))).unwrap();
        let members = validate_cycle(Level::Type, &ids, &c.json).unwrap();
        assert_eq!(members.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ids);
        assert_eq!(members[1].1.name(), "Basket.Cursor");
        for level in [Level::Operation, Level::Module] {
            let ids = ["a#f()", "a#g(int, long)"];
            let c = block_on(DemoCompleter.complete(request(level, ids[0], Some(&ids)))).unwrap();
            assert!(validate_cycle(level, &ids, &c.json).is_ok());
        }
    }

    #[test]
    fn names_from_ids() {
        assert_eq!(name_of("java:p/C#m(int)"), "m");
        assert_eq!(name_of("java:p/C"), "C");
        assert_eq!(name_of("plain"), "plain");
    }
}
