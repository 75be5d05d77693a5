//! Language profiles (`docs/formats/model.md` §5, finding `profile`): which
//! traits each kind of a language must and may declare. A mismatch is a
//! finding, not an error; stubs are exempt from the required lower bound.

use crate::vocab::{Trait, Trait::*, TraitMask};

/// `(required, optional)` traits of a Java kind, or `None` for a kind the
/// Java profile does not have.
pub fn java(kind: &str) -> Option<(TraitMask, TraitMask)> {
    let (required, optional): (&[Trait], &[Trait]) = match kind {
        "package" => (&[Named, Module, WithChildren], &[Comment, ChildOf]),
        "class" => {
            (&[Named, Type, WithInheritances, WithImplements, WithChildren, ChildOf, SourceAnchor], &[Comment, Metrics])
        }
        "interface" => (&[Named, Type, WithInheritances, WithChildren, ChildOf, SourceAnchor], &[Comment, Metrics]),
        "enum" | "record" => (&[Named, Type, WithImplements, WithChildren, ChildOf, SourceAnchor], &[Comment, Metrics]),
        "annotation" => (&[Named, Type, WithChildren, ChildOf, SourceAnchor], &[Comment, Metrics]),
        "method" => (
            &[
                Named,
                Invocable,
                WithChildren,
                WithParameters,
                WithLocalVariables,
                WithInvocations,
                WithAccesses,
                TypedEntity,
                ChildOf,
                SourceAnchor,
            ],
            &[Comment, Metrics, WithValue],
        ),
        "constructor" => (
            &[
                Invocable,
                WithChildren,
                WithParameters,
                WithLocalVariables,
                WithInvocations,
                WithAccesses,
                ChildOf,
                SourceAnchor,
            ],
            &[Comment, Metrics],
        ),
        "lambda" => (
            &[
                Invocable,
                WithChildren,
                WithParameters,
                WithLocalVariables,
                WithInvocations,
                WithAccesses,
                ChildOf,
                SourceAnchor,
            ],
            &[TypedEntity, Metrics],
        ),
        "attribute" => (&[Named, Structural, TypedEntity, ChildOf, SourceAnchor], &[Comment, WithValue]),
        "parameter" | "localVariable" => (&[Named, Structural, TypedEntity, ChildOf], &[SourceAnchor]),
        _ => return None,
    };
    Some((TraitMask::of(required), TraitMask::of(optional)))
}

/// Checks one `(kind, trait set, stub)` combination against the profile of
/// `lang`; `None` when it conforms (or the language has no profile here).
pub fn check(lang: &str, kind: &str, traits: TraitMask, is_stub: bool) -> Option<String> {
    if lang != "java" {
        return None;
    }
    let Some((required, optional)) = java(kind) else {
        return Some(format!("kind \"{kind}\" is not a Java kind"));
    };
    let allowed = TraitMask(required.0 | optional.0);
    let extra = TraitMask(traits.0 & !allowed.0);
    let missing = TraitMask(required.0 & !traits.0);
    let names = |m: TraitMask| m.iter().map(Trait::as_str).collect::<Vec<_>>().join(", ");
    if extra.0 != 0 {
        Some(format!("a Java {kind} may not declare {}", names(extra)))
    } else if missing.0 != 0 && !is_stub {
        Some(format!("a Java {kind} must declare {}", names(missing)))
    } else {
        None
    }
}
