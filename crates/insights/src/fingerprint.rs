//! The unit fingerprint (docs/formats/fingerprints.md §3): a SHA-256 over the
//! canonical JSON of what a unit's explanation depends on, plus
//! `promptVersion`.
//!
//! Hashed: member ids, shown sources, comments, signatures, the facts digest,
//! the dependencies' (plan-time) fingerprints, the missing dependencies, the
//! model slug, `--depth` and the level. Deliberately not hashed: explanation
//! text, prompt text, `--max-scc`, `--max-tokens`, the provider, display names.

use crate::canonical::{sha256_hex, write_object};
use crate::vocab::{Level, PROMPT_VERSION};

/// Everything a unit fingerprint covers except `promptVersion` (added by
/// [`fingerprint_of`]). Field names follow the wire keys (camelCase there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FingerprintInputs {
    /// All members' comments, concatenated in member order.
    pub comments: Vec<String>,
    /// The unit fingerprints of every dependency unit (`""` if unknown);
    /// sorted when hashed.
    pub dependency_fingerprints: Vec<String>,
    /// The `--depth` value.
    pub depth: u32,
    /// `digestOf(factsProjection)` (§2).
    pub facts_digest: String,
    /// The unit's level.
    pub level: Level,
    /// The unit's member ids; sorted (UTF-16) when hashed.
    pub members: Vec<String>,
    /// Ids of dependency units without a record (§4); sorted (UTF-16)
    /// when hashed.
    pub missing_dependencies: Vec<String>,
    /// Model slug: the leaf model for operations, the roll-up model otherwise.
    pub model: String,
    /// Per member: its signature, or `""`.
    pub signatures: Vec<String>,
    /// Per member: the shown (possibly elided) source text, or `""`.
    pub sources: Vec<String>,
}

/// The same inputs, borrowed (what the planner hands over without copying a
/// pack's sources and comments). The id lists may come in any order.
#[derive(Debug, Clone, Copy)]
pub struct FingerprintParts<'a, D: AsRef<str>> {
    pub comments: &'a [String],
    pub dependency_fingerprints: &'a [D],
    pub depth: u32,
    pub facts_digest: &'a str,
    pub level: Level,
    pub members: &'a [String],
    pub missing_dependencies: &'a [D],
    pub model: &'a str,
    pub signatures: &'a [String],
    pub sources: &'a [String],
}

impl FingerprintInputs {
    /// These inputs, borrowed.
    pub fn parts(&self) -> FingerprintParts<'_, String> {
        FingerprintParts {
            comments: &self.comments,
            dependency_fingerprints: &self.dependency_fingerprints,
            depth: self.depth,
            facts_digest: &self.facts_digest,
            level: self.level,
            members: &self.members,
            missing_dependencies: &self.missing_dependencies,
            model: &self.model,
            signatures: &self.signatures,
            sources: &self.sources,
        }
    }
}

fn sorted<D: AsRef<str>>(items: &[D]) -> Vec<&str> {
    let mut v: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    v.sort_by(|a, b| model::cmp_utf16(a, b));
    v
}

impl<D: AsRef<str>> FingerprintParts<'_, D> {
    /// The canonical JSON that is hashed: `{promptVersion: "1", ...inputs}`,
    /// with the three id lists sorted (the spec defines them sorted; sorting
    /// here makes the caller's order irrelevant).
    pub fn canonical(&self) -> String {
        let mut out = String::new();
        write_object(&mut out, |f| {
            f.strings("comments", self.comments.iter().map(String::as_str));
            f.strings("dependencyFingerprints", sorted(self.dependency_fingerprints));
            f.number("depth", f64::from(self.depth));
            f.str("factsDigest", self.facts_digest);
            f.str("level", self.level.as_str());
            f.strings("members", sorted(self.members));
            f.strings("missingDependencies", sorted(self.missing_dependencies));
            f.str("model", self.model);
            f.str("promptVersion", PROMPT_VERSION);
            f.strings("signatures", self.signatures.iter().map(String::as_str));
            f.strings("sources", self.sources.iter().map(String::as_str));
        });
        out
    }

    /// `fingerprintOf(inputs)`: 64 lowercase hex characters.
    pub fn fingerprint(&self) -> String {
        sha256_hex(&self.canonical())
    }
}

/// The canonical string that is hashed (for diagnostics and tests).
pub fn fingerprint_canonical(inputs: &FingerprintInputs) -> String {
    inputs.parts().canonical()
}

/// `fingerprintOf(inputs)`: 64 lowercase hex characters.
pub fn fingerprint_of(inputs: &FingerprintInputs) -> String {
    inputs.parts().fingerprint()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::{canonical_json, digest_of};
    use serde_json::json;

    fn base() -> FingerprintInputs {
        FingerprintInputs {
            comments: vec![],
            dependency_fingerprints: vec![],
            depth: 1,
            facts_digest: digest_of(&json!({"calls": []})),
            level: Level::Operation,
            members: vec!["java:p/A.f()".into()],
            missing_dependencies: vec![],
            model: "m".into(),
            signatures: vec!["f()".into()],
            sources: vec!["int f() { return 1; }".into()],
        }
    }

    #[test]
    fn golden_base_inputs() {
        assert_eq!(
            fingerprint_canonical(&base()),
            r#"{"comments":[],"dependencyFingerprints":[],"depth":1,"factsDigest":"621d51202f38693e32078404ea1baf179547c67ef85fe7f6b3fdb79b22659a63","level":"operation","members":["java:p/A.f()"],"missingDependencies":[],"model":"m","promptVersion":"1","signatures":["f()"],"sources":["int f() { return 1; }"]}"#
        );
        assert_eq!(fingerprint_of(&base()), "67824a20f9a64208352641092244b335312e6a2c2068a1ed45090ea836ba2d3b");
    }

    #[test]
    fn every_input_changes_the_fingerprint() {
        type Change = fn(&mut FingerprintInputs);
        let changes: [Change; 10] = [
            |i| i.sources[0].push(' '),
            |i| i.comments.push("doc".into()),
            |i| i.signatures[0] = "f(int)".into(),
            |i| i.facts_digest = digest_of(&json!({"calls": ["x"]})),
            |i| i.dependency_fingerprints.push("ab".into()),
            |i| i.missing_dependencies.push("java:p/B".into()),
            |i| i.model = "n".into(),
            |i| i.depth = 2,
            |i| i.level = Level::Type,
            |i| i.members.push("java:p/A.g()".into()),
        ];
        let mut seen = vec![fingerprint_of(&base())];
        for change in changes {
            let mut i = base();
            change(&mut i);
            let fp = fingerprint_of(&i);
            assert_eq!(fp.len(), 64);
            assert!(!seen.contains(&fp));
            seen.push(fp);
        }
    }

    #[test]
    fn the_streamed_canonical_form_is_that_of_the_json_object() {
        let mut i = base();
        i.comments = vec!["a \"doc\"\n".into(), "😀".into()];
        i.dependency_fingerprints = vec!["b".into(), "".into(), "a".into()];
        i.missing_dependencies = vec!["java:q/～".into(), "java:q/😀".into()];
        i.members.push("java:p/A.e()".into());
        let reference = json!({
            "promptVersion": PROMPT_VERSION,
            "comments": i.comments,
            "dependencyFingerprints": ["", "a", "b"],
            "depth": i.depth,
            "factsDigest": i.facts_digest,
            "level": "operation",
            "members": ["java:p/A.e()", "java:p/A.f()"],
            "missingDependencies": ["java:q/😀", "java:q/～"],
            "model": i.model,
            "signatures": i.signatures,
            "sources": i.sources,
        });
        assert_eq!(fingerprint_canonical(&i), canonical_json(&reference));
    }

    #[test]
    fn id_lists_are_sorted_before_hashing() {
        let mut a = base();
        a.members = vec!["a/～".into(), "a/😀".into()];
        a.dependency_fingerprints = vec!["b".into(), "a".into()];
        let mut b = a.clone();
        b.members.reverse();
        b.dependency_fingerprints.reverse();
        assert_eq!(fingerprint_of(&a), fingerprint_of(&b));
        assert!(fingerprint_canonical(&a).contains(r#""members":["a/😀","a/～"]"#));
    }
}
