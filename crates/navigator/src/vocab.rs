//! The navigator's closed vocabularies: node categories and dependency roles
//! (the views carrying them: `docs/formats/protocol.md` §5).

use model::{EdgeKind, Trait, TraitMask};

/// What a node is, derived from traits (never from `kind`). The declaration
/// order is the tree's sort order: modules, types, operations, attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Category {
    Module,
    Type,
    Operation,
    Attribute,
}

impl Category {
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Module => "module",
            Category::Type => "type",
            Category::Operation => "operation",
            Category::Attribute => "attribute",
        }
    }

    /// Owners (rows are `from` / `to` them): modules and types.
    pub fn is_owner(self) -> bool {
        matches!(self, Category::Module | Category::Type)
    }

    /// The category of a container (module or type) by its traits.
    pub(crate) fn of_container(mask: TraitMask) -> Option<Category> {
        if mask.has(Trait::Module) {
            Some(Category::Module)
        } else if mask.has(Trait::Type) {
            Some(Category::Type)
        } else {
            None
        }
    }

    /// The category of a member (operation or attribute) by its traits.
    pub(crate) fn of_member(mask: TraitMask) -> Option<Category> {
        if mask.has(Trait::Invocable) {
            Some(Category::Operation)
        } else if mask.has(Trait::Structural) {
            Some(Category::Attribute)
        } else {
            None
        }
    }
}

/// The role of a dependency row, in the spec's fixed order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Role {
    Import,
    Extends,
    Implements,
    Embeds,
    UsesTrait,
    IncludesFile,
    Invokes,
    Reads,
    Writes,
    ReturnType,
    ParameterType,
    LocalVariableType,
    FieldType,
    TypeReference,
}

impl Role {
    /// Every role, in display order.
    pub const ALL: [Role; 14] = [
        Role::Import,
        Role::Extends,
        Role::Implements,
        Role::Embeds,
        Role::UsesTrait,
        Role::IncludesFile,
        Role::Invokes,
        Role::Reads,
        Role::Writes,
        Role::ReturnType,
        Role::ParameterType,
        Role::LocalVariableType,
        Role::FieldType,
        Role::TypeReference,
    ];

    /// The wire name (`DepRow.role`).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Import => "import",
            Role::Extends => "extends",
            Role::Implements => "implements",
            Role::Embeds => "embeds",
            Role::UsesTrait => "usesTrait",
            Role::IncludesFile => "includesFile",
            Role::Invokes => "invokes",
            Role::Reads => "reads",
            Role::Writes => "writes",
            Role::ReturnType => "returnType",
            Role::ParameterType => "parameterType",
            Role::LocalVariableType => "localVariableType",
            Role::FieldType => "fieldType",
            Role::TypeReference => "typeReference",
        }
    }

    /// The section label of the dependency view (a `DepView` group's `label`).
    pub fn label(self) -> &'static str {
        match self {
            Role::Import => "Imports",
            Role::Extends => "Inheritance",
            Role::Implements => "Interface implementation",
            Role::Embeds => "Embedding",
            Role::UsesTrait => "Trait use",
            Role::IncludesFile => "File include",
            Role::Invokes => "Invocations",
            Role::Reads => "Field reads",
            Role::Writes => "Field writes",
            Role::ReturnType => "Return type",
            Role::ParameterType => "Parameter type",
            Role::LocalVariableType => "Local variable type",
            Role::FieldType => "Field type",
            Role::TypeReference => "Type reference",
        }
    }

    /// Looks a wire name up.
    pub fn from_name(name: &str) -> Option<Role> {
        Role::ALL.iter().copied().find(|r| r.as_str() == name)
    }

    /// The role of an edge kind that maps to exactly one role; `None` for
    /// `access` (reads / writes by the flags) and `reference` (by the end it
    /// leaves from).
    pub(crate) fn of_kind(kind: EdgeKind) -> Option<Role> {
        Some(match kind {
            EdgeKind::Import => Role::Import,
            EdgeKind::Inheritance => Role::Extends,
            EdgeKind::InterfaceImplementation => Role::Implements,
            EdgeKind::Embedding => Role::Embeds,
            EdgeKind::TraitUsage => Role::UsesTrait,
            EdgeKind::FileInclude => Role::IncludesFile,
            EdgeKind::Invocation => Role::Invokes,
            // Neither has a role of its own: both are type usages.
            EdgeKind::AnnotationUse | EdgeKind::Throws => Role::TypeReference,
            EdgeKind::Access | EdgeKind::Reference => return None,
        })
    }
}

/// A set of roles (bit = [`Role`] discriminant), iterated in role order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct RoleSet(pub u16);

impl RoleSet {
    pub fn insert(&mut self, r: Role) {
        self.0 |= 1 << r as u8;
    }
    pub fn names(self) -> Vec<String> {
        Role::ALL.iter().filter(|r| self.0 & (1 << **r as u8) != 0).map(|r| r.as_str().to_string()).collect()
    }
}
