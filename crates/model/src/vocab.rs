//! Core's closed vocabularies (`docs/formats/model.md` §3.1): traits, edge
//! kinds and provenances. A model's header lists the members it uses; a name
//! outside these sets is a read error. Kinds are profile-defined and stay
//! strings.

macro_rules! closed_vocabulary {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $wire:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum $name { $($variant),+ }

        impl $name {
            /// Every member, in core declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The wire name.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $wire),+ }
            }

            /// Looks a wire name up.
            pub fn from_name(name: &str) -> Option<Self> {
                match name { $($wire => Some($name::$variant),)+ _ => None }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

closed_vocabulary! {
    /// A trait: a capability an entity declares, which licenses wire keys.
    Trait {
        Named = "TNamed",
        SourceAnchor = "TSourceAnchor",
        Comment = "TComment",
        WithChildren = "TWithChildren",
        ChildOf = "TChildOf",
        AttachedTo = "TAttachedTo",
        Module = "TModule",
        Type = "TType",
        WithInheritances = "TWithInheritances",
        WithImplements = "TWithImplements",
        TypedEntity = "TTypedEntity",
        Invocable = "TInvocable",
        WithParameters = "TWithParameters",
        WithLocalVariables = "TWithLocalVariables",
        WithInvocations = "TWithInvocations",
        Structural = "TStructural",
        WithAccesses = "TWithAccesses",
        Metrics = "TMetrics",
        WithValue = "TWithValue",
    }
}

closed_vocabulary! {
    /// The kind of a dependency edge, in core declaration order.
    EdgeKind {
        Import = "import",
        Inheritance = "inheritance",
        InterfaceImplementation = "interfaceImplementation",
        Invocation = "invocation",
        Access = "access",
        Reference = "reference",
        Embedding = "embedding",
        TraitUsage = "traitUsage",
        FileInclude = "fileInclude",
        AnnotationUse = "annotationUse",
        Throws = "throws",
    }
}

closed_vocabulary! {
    /// How an edge was established.
    Provenance {
        Declared = "declared",
        Derived = "derived",
        DynamicCandidate = "dynamic-candidate",
        Generated = "generated",
    }
}

/// A set of traits as a bit mask (19 traits fit in a `u32`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TraitMask(pub u32);

impl TraitMask {
    pub fn of(traits: &[Trait]) -> Self {
        TraitMask(traits.iter().fold(0, |m, t| m | (1 << *t as u8)))
    }
    pub fn has(self, t: Trait) -> bool {
        self.0 & (1 << t as u8) != 0
    }
    pub fn contains_all(self, other: TraitMask) -> bool {
        self.0 & other.0 == other.0
    }
    /// The traits of the set, in core order.
    pub fn iter(self) -> impl Iterator<Item = Trait> {
        Trait::ALL.iter().copied().filter(move |t| self.has(*t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert_eq!(Trait::ALL.len(), 19);
        assert_eq!(EdgeKind::ALL.len(), 11);
        assert_eq!(Provenance::ALL.len(), 4);
        for t in Trait::ALL {
            assert_eq!(Trait::from_name(t.as_str()), Some(*t));
        }
        assert_eq!(EdgeKind::from_name("annotationUse"), Some(EdgeKind::AnnotationUse));
        assert_eq!(Provenance::from_name("dynamic-candidate"), Some(Provenance::DynamicCandidate));
        assert_eq!(Trait::from_name("TBogus"), None);
    }
}
