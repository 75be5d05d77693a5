//! Constants and the closed vocabularies of the insights feature
//! (docs/formats/blocks.md §5).
//!
//! Every vocabulary is a Rust enum whose variants are listed in the spec's
//! exact order, with `as_str()` (the exact wire literal), `ALL` (every value,
//! in that order), `parse`, serde as the literal, and a JSON Schema of
//! `{"type":"string","enum":[…literals in order…]}`.

use std::borrow::Cow;
use std::fmt;

/// `kind` of the side-car header.
pub const INSIGHTS_KIND: &str = "codegraph.insights/1";
/// `generator` of the side-car header.
pub const INSIGHTS_GENERATOR: &str = "@codegraph/insights";
/// The Specy domain metamodel the blocks speak.
pub const INSIGHTS_METAMODEL: &str = "specy.domain/3";
/// Part of every fingerprint and of the side-car header; any change to prompt
/// text or to a block shape requires a new value (docs/formats/prompts.md §9).
pub const PROMPT_VERSION: &str = "1";
/// `kind` of a single insight answer.
pub const INSIGHT_ANSWER_KIND: &str = "codegraph.insight/1";
/// HTTP statuses that abort a run (docs/formats/units-and-walk.md §8).
pub const FATAL_STATUSES: [u16; 3] = [401, 402, 403];
/// SQLite `application_id` of the store: "CGI1".
pub const INSIGHTS_APPLICATION_ID: u32 = 0x4347_4931;
/// SQLite `user_version` of the store: the length of its migration ladder
/// (docs/formats/store.md §4; 1: the tables of its §5; 2: full-text search
/// over explanations).
pub const INSIGHTS_DB_VERSION: u32 = 3;
/// Ids per batched store read.
pub const GET_CHUNK: usize = 500;

macro_rules! vocabulary {
    (
        $(#[$meta:meta])*
        $name:ident { $( $(#[$vmeta:meta])* $variant:ident = $lit:literal ),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every value, in the vocabulary's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The exact wire literal.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $lit),+
                }
            }

            /// The value with this exact literal (case-sensitive).
            pub fn parse(s: &str) -> Option<$name> {
                match s {
                    $($lit => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = UnknownLiteral;
            fn from_str(s: &str) -> Result<Self, UnknownLiteral> {
                $name::parse(s).ok_or_else(|| UnknownLiteral::new(s, stringify!($name), $name::ALL.iter().map(|v| v.as_str())))
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s: Cow<'de, str> = serde::Deserialize::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }

        impl schemars::JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({ "type": "string", "enum": [$($lit),+] })
            }
        }
    };
}

/// A string that is not a literal of the vocabulary it was parsed as.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{literal}` is not a valid {vocabulary}; expected one of: {expected}")]
pub struct UnknownLiteral {
    /// The rejected text.
    pub literal: String,
    /// The vocabulary's Rust name.
    pub vocabulary: &'static str,
    /// Every accepted literal, joined by `, `.
    pub expected: String,
}

impl UnknownLiteral {
    fn new<'a>(literal: &str, vocabulary: &'static str, all: impl Iterator<Item = &'a str>) -> Self {
        UnknownLiteral { literal: literal.to_owned(), vocabulary, expected: all.collect::<Vec<_>>().join(", ") }
    }
}

vocabulary! {
    /// `DOMAIN_CONCEPTS` (25): the Specy section names, plus codegraph's own
    /// `notDomain` and `unknown`.
    DomainConcept {
        BoundedContext = "boundedContext",
        Module = "module",
        Interface = "interface",
        Operation = "operation",
        Command = "command",
        Query = "query",
        Reaction = "reaction",
        Entity = "entity",
        ReadOnlyEntity = "readOnlyEntity",
        Aggregate = "aggregate",
        StateMachine = "stateMachine",
        Repository = "repository",
        Event = "event",
        ValueType = "valueType",
        Enum = "enum",
        DomainService = "domainService",
        ApplicationService = "applicationService",
        InfrastructureService = "infrastructureService",
        Invariant = "invariant",
        Precondition = "precondition",
        Postcondition = "postcondition",
        Agreement = "agreement",
        Reconciliation = "reconciliation",
        NotDomain = "notDomain",
        Unknown = "unknown",
    }
}

vocabulary! {
    /// `EVENT_KINDS`.
    EventKind {
        Internal = "internal",
        External = "external",
        Error = "error",
        Temporal = "temporal",
    }
}

vocabulary! {
    /// `INTERFACE_ROLES`: the driving (API) or driven (SPI) side of a port.
    InterfaceRole {
        Api = "API",
        Spi = "SPI",
    }
}

vocabulary! {
    /// `OPERATION_OWNERS`: the kind of artefact owning an operation.
    OperationOwner {
        Entity = "entity",
        Aggregate = "aggregate",
        DomainService = "domainService",
        ApplicationService = "applicationService",
        InfrastructureService = "infrastructureService",
        Repository = "repository",
        ValueType = "valueType",
        Unknown = "unknown",
    }
}

vocabulary! {
    /// `ENFORCEMENTS`: how an invariant is kept.
    Enforcement {
        Rejection = "rejection",
        Compensation = "compensation",
        Alert = "alert",
    }
}

vocabulary! {
    /// `SYNC_PATTERNS`: how a read-only entity is kept in step.
    SyncPattern {
        SynchronousQuery = "synchronous-query",
        AsynchronousProjection = "asynchronous-projection",
    }
}

vocabulary! {
    /// `FIELD_KINDS`.
    FieldKind {
        Primitive = "primitive",
        ValueType = "valueType",
        EntityReference = "entityReference",
        Enum = "enum",
        Collection = "collection",
        Unknown = "unknown",
    }
}

vocabulary! {
    /// `TEMPLATE_KINDS`: trivial members explained without a call
    /// (docs/formats/blocks.md §9).
    TemplateKind {
        Getter = "getter",
        Setter = "setter",
        ObjectContract = "objectContract",
        TrivialConstructor = "trivialConstructor",
    }
}

vocabulary! {
    /// `FAILURE_KINDS` of failure records (docs/formats/sidecar.md §2).
    FailureKind {
        Provider = "provider",
        InvalidAnswer = "invalid-answer",
        Error = "error",
    }
}

vocabulary! {
    /// `ORIGINS` of an insight record.
    Origin {
        Llm = "llm",
        Template = "template",
    }
}

vocabulary! {
    /// `LEVELS`: what a unit explains. `Level as usize` is 0, 1, 2 in this order.
    Level {
        Operation = "operation",
        Type = "type",
        Module = "module",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literals<T: Copy>(all: &[T], f: fn(T) -> &'static str) -> Vec<&'static str> {
        all.iter().map(|x| f(*x)).collect()
    }

    #[test]
    fn literals_in_spec_order() {
        assert_eq!(
            literals(DomainConcept::ALL, DomainConcept::as_str),
            [
                "boundedContext",
                "module",
                "interface",
                "operation",
                "command",
                "query",
                "reaction",
                "entity",
                "readOnlyEntity",
                "aggregate",
                "stateMachine",
                "repository",
                "event",
                "valueType",
                "enum",
                "domainService",
                "applicationService",
                "infrastructureService",
                "invariant",
                "precondition",
                "postcondition",
                "agreement",
                "reconciliation",
                "notDomain",
                "unknown"
            ]
        );
        assert_eq!(literals(EventKind::ALL, EventKind::as_str), ["internal", "external", "error", "temporal"]);
        assert_eq!(literals(InterfaceRole::ALL, InterfaceRole::as_str), ["API", "SPI"]);
        assert_eq!(
            literals(OperationOwner::ALL, OperationOwner::as_str),
            [
                "entity",
                "aggregate",
                "domainService",
                "applicationService",
                "infrastructureService",
                "repository",
                "valueType",
                "unknown"
            ]
        );
        assert_eq!(literals(Enforcement::ALL, Enforcement::as_str), ["rejection", "compensation", "alert"]);
        assert_eq!(literals(SyncPattern::ALL, SyncPattern::as_str), ["synchronous-query", "asynchronous-projection"]);
        assert_eq!(
            literals(FieldKind::ALL, FieldKind::as_str),
            ["primitive", "valueType", "entityReference", "enum", "collection", "unknown"]
        );
        assert_eq!(
            literals(TemplateKind::ALL, TemplateKind::as_str),
            ["getter", "setter", "objectContract", "trivialConstructor"]
        );
        assert_eq!(literals(FailureKind::ALL, FailureKind::as_str), ["provider", "invalid-answer", "error"]);
        assert_eq!(literals(Origin::ALL, Origin::as_str), ["llm", "template"]);
        assert_eq!(literals(Level::ALL, Level::as_str), ["operation", "type", "module"]);
        assert_eq!([Level::Operation as usize, Level::Type as usize, Level::Module as usize], [0, 1, 2]);
    }

    #[test]
    fn constants() {
        assert_eq!(INSIGHTS_APPLICATION_ID, 1_128_745_265);
        assert_eq!(&INSIGHTS_APPLICATION_ID.to_be_bytes(), b"CGI1");
        assert_eq!(PROMPT_VERSION, "1");
    }

    #[test]
    fn serde_uses_the_exact_literals() {
        assert_eq!(serde_json::to_string(&SyncPattern::AsynchronousProjection).unwrap(), "\"asynchronous-projection\"");
        assert_eq!(serde_json::from_str::<InterfaceRole>("\"SPI\"").unwrap(), InterfaceRole::Spi);
        let err = serde_json::from_str::<InterfaceRole>("\"spi\"").unwrap_err().to_string();
        assert!(err.contains("`spi` is not a valid InterfaceRole; expected one of: API, SPI"), "{err}");
        assert!(serde_json::from_str::<Level>("1").is_err());
        for c in DomainConcept::ALL {
            assert_eq!(DomainConcept::parse(c.as_str()), Some(*c));
            assert_eq!(c.to_string(), c.as_str());
        }
    }
}
