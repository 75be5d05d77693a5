//! The offline demo: answers any request with a valid, clearly labelled
//! placeholder block built from the prompt alone. No network, no clock, no
//! randomness; works in a browser. Its answers say nothing about the code.

use insights::blocks::{Block, ModuleBlock, OperationBlock, TypeBlock};
use insights::complete::{Completer, Completion, CompletionError, CompletionRequest, LocalFuture};
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
        let result = demo_answer(&request)
            .map(|json| Completion { json, model: DEMO_MODEL.into(), usage: None })
            .map_err(CompletionError::other);
        Box::pin(std::future::ready(result))
    }
}

/// What a prompt asks for, read from the request alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Asked {
    pub level: Level,
    /// The unit id of the `# Unit:` line, when there is one.
    pub unit: Option<String>,
    /// `Some(ids)` for the cycle shape.
    pub cycle: Option<Vec<String>>,
}

/// `# Unit: <level> <id>[ (a cycle of …)]` → (level, id).
pub fn unit_line(user: &str) -> Option<(Level, String)> {
    let line = user.lines().find_map(|l| l.strip_prefix("# Unit: "))?;
    let (level, rest) = line.split_once(' ')?;
    let level = Level::parse(level)?;
    let id = match rest.find(" (a cycle of ") {
        Some(i) => &rest[..i],
        None => rest,
    };
    Some((level, id.trim().to_owned()))
}

/// The ids of `Return one entry per id: a, b.`
pub fn cycle_line(user: &str) -> Option<Vec<String>> {
    let line = user.lines().find_map(|l| l.strip_prefix("Return one entry per id: "))?;
    let line = line.trim_end().strip_suffix('.').unwrap_or(line.trim_end());
    Some(line.split(", ").map(str::to_owned).filter(|s| !s.is_empty()).collect())
}

/// The ids a cycle schema restricts `members[].id` to (exact, unlike the prompt line).
fn schema_ids(schema: &Value) -> Option<Vec<String>> {
    let ids = schema.pointer("/properties/members/items/properties/id/enum")?.as_array()?;
    Some(ids.iter().filter_map(Value::as_str).map(str::to_owned).collect())
}

/// Reads the level (from the schema name, else the `# Unit:` line), the unit
/// id and, for a cycle, the member ids (from the schema's id enum, else the
/// `Return one entry per id:` line).
pub fn asked(request: &CompletionRequest) -> Result<Asked, String> {
    let named = request.schema_name.strip_prefix("codegraph_").and_then(|rest| match rest.strip_suffix("_cycle") {
        Some(level) => Level::parse(level).map(|l| (l, true)),
        None => Level::parse(rest).map(|l| (l, false)),
    });
    let unit = unit_line(&request.user);
    let level = named
        .map(|(l, _)| l)
        .or(unit.as_ref().map(|(l, _)| *l))
        .ok_or("the demo cannot tell the level: no codegraph_<level> schema name and no `# Unit:` line")?;
    let is_cycle = match named {
        Some((_, cycle)) => cycle,
        None => cycle_line(&request.user).is_some(),
    };
    let unit_id = unit.map(|(_, id)| id);
    let cycle = if is_cycle {
        let ids = schema_ids(&request.json_schema)
            .filter(|ids| !ids.is_empty())
            .or_else(|| cycle_line(&request.user))
            .or_else(|| unit_id.clone().map(|id| vec![id]))
            .ok_or("the demo cannot tell the cycle members: no id list in the schema or the prompt")?;
        Some(ids)
    } else {
        None
    };
    if cycle.is_none() && unit_id.is_none() {
        return Err("the demo cannot tell the unit: no `# Unit: <level> <id>` line".into());
    }
    Ok(Asked { level, unit: unit_id, cycle })
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

/// The demo's answer to a request: a block, or `{members: [{id, block}]}`
/// for a cycle.
pub fn demo_answer(request: &CompletionRequest) -> Result<Value, String> {
    let a = asked(request)?;
    let to_value = |b: Block| serde_json::to_value(b).expect("blocks always serialize");
    Ok(match (&a.cycle, &a.unit) {
        (Some(ids), _) => json!({
            "members": ids.iter().map(|id| json!({"id": id, "block": to_value(demo_block(a.level, id))})).collect::<Vec<_>>()
        }),
        (None, Some(id)) => to_value(demo_block(a.level, id)),
        (None, None) => unreachable!("asked() requires a unit id without a cycle"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;
    use insights::schema::{block_schema, block_schema_name, cycle_schema, cycle_schema_name};
    use insights::validate::{validate_block, validate_cycle};

    fn request(level: Level, user: &str, cycle: Option<&[&str]>) -> CompletionRequest {
        let (schema_name, json_schema) = match cycle {
            Some(ids) => (cycle_schema_name(level), cycle_schema(level, ids).to_value()),
            None => (block_schema_name(level), block_schema(level).to_value()),
        };
        CompletionRequest {
            model: "openai/gpt-5.6-luna".into(),
            system: "sys".into(),
            user: user.into(),
            schema_name,
            json_schema,
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
            let user = format!("# Unit: {} {id}\n\n## The unit\n…\n", level.as_str());
            let c = block_on(DemoCompleter.complete(request(level, &user, None))).unwrap();
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
        let user = format!(
            "# Unit: type {} (a cycle of 2 types)\n\n## Cycle members\nReturn one entry per id: {}.\n\n",
            ids[0],
            ids.join(", ")
        );
        for schema_ids in [&ids[..], &[][..]] {
            let mut r = request(Level::Type, &user, Some(&ids));
            if schema_ids.is_empty() {
                r.json_schema = Value::Null; // the prompt line alone
            }
            let c = block_on(DemoCompleter.complete(r)).unwrap();
            let members = validate_cycle(Level::Type, &ids, &c.json).unwrap();
            assert_eq!(members.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ids);
            assert_eq!(members[1].1.name(), "Basket.Cursor");
        }
        // Cycles of the other levels too.
        for level in [Level::Operation, Level::Module] {
            let ids = ["a#f()", "a#g(int, long)"];
            let user = format!("# Unit: {} a#f()\n\nReturn one entry per id: a#f(), a#g(int, long).\n", level.as_str());
            let c = block_on(DemoCompleter.complete(request(level, &user, Some(&ids)))).unwrap();
            assert!(validate_cycle(level, &ids, &c.json).is_ok());
        }
    }

    #[test]
    fn level_and_shape_from_the_prompt_when_the_schema_name_is_foreign() {
        let mut r = request(Level::Module, "# Unit: module m1\n", None);
        r.schema_name = "something_else".into();
        let v = demo_answer(&r).unwrap();
        assert!(validate_block(Level::Module, &v).is_ok());
        let mut r =
            request(Level::Type, "# Unit: type t1 (a cycle of 2 types)\nReturn one entry per id: t1, t2.\n", None);
        r.schema_name = String::new();
        r.json_schema = Value::Null;
        assert!(validate_cycle(Level::Type, &["t1", "t2"], &demo_answer(&r).unwrap()).is_ok());
    }

    #[test]
    fn no_unit_is_an_error() {
        let mut r = request(Level::Operation, "hello", None);
        assert!(block_on(DemoCompleter.complete(r.clone())).unwrap_err().message.contains("# Unit:"));
        r.schema_name = "x".into();
        assert!(demo_answer(&r).is_err());
    }

    #[test]
    fn parses_prompt_lines() {
        assert_eq!(
            unit_line("# Unit: operation a#b() (a cycle of 3 operations)\n"),
            Some((Level::Operation, "a#b()".into()))
        );
        assert_eq!(unit_line("# Unit: galaxy x"), None);
        assert_eq!(
            cycle_line("x\nReturn one entry per id: a, b, c.\n"),
            Some(vec!["a".into(), "b".into(), "c".into()])
        );
        assert_eq!(name_of("java:p/C#m(int)"), "m");
        assert_eq!(name_of("java:p/C"), "C");
        assert_eq!(name_of("plain"), "plain");
    }
}
