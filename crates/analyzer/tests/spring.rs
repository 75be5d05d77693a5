//! The opt-in Spring layer on a hand-written model:
//! stereotypes, an entry point, a `@Primary`-narrowed sole-constructor
//! injection and an unimplemented `@Autowired` field.

use analyzer::facts::build_domain_facts;
use analyzer::framework::{derive_framework_wiring, Framework, Via, WiringDiagnostics};
use analyzer::{CodeGraph, View};

fn spring_model() -> model::Model {
    let text = include_str!("data/spring.jsonl");
    model::read_model(text.as_bytes(), "spring.jsonl").expect("the hand-written model reads")
}

#[test]
fn stereotypes_entry_points_and_injection() {
    let m = spring_model();
    let g = CodeGraph::new(&m);
    let facts = build_domain_facts(&g, &View::all(), Some(Framework::Spring));
    let stereo: Vec<(&str, Option<&str>)> = facts.types.iter().map(|t| (&*t.id, t.stereotype)).collect();
    assert_eq!(
        stereo,
        vec![
            ("java:app/Clinic", None),
            ("java:app/ClinicA", Some("service")),
            ("java:app/ClinicB", Some("service")),
            ("java:app/Owner", Some("controller")),
            ("java:app/Repo", None),
        ]
    );
    let owner = facts.type_dossier("java:app/Owner").unwrap();
    let list = owner.operations.iter().find(|o| o.name.as_deref() == Some("list")).unwrap();
    assert!(list.entry_point);
    assert_eq!(list.invocations[0].target_stereotype, Some("service"));
    assert!(!owner.operations.iter().find(|o| &*o.kind == "constructor").unwrap().entry_point);

    let points = &owner.injection_points;
    assert_eq!(points.len(), 2);
    assert_eq!(&*points[0].id, "java:app/Owner.<init>(app.Clinic)#param:clinic");
    assert_eq!(points[0].via, Via::SoleConstructor);
    assert_eq!(points[0].candidates.iter().map(|c| &**c).collect::<Vec<_>>(), vec!["java:app/ClinicA"]);
    assert!(points[0].note.as_deref().unwrap().contains("@Primary"));
    assert!(points[0].note.as_deref().unwrap().contains('2'));
    assert_eq!(&*points[1].id, "java:app/Owner.repo");
    assert_eq!(points[1].via, Via::Annotation);
    assert!(points[1].candidates.is_empty());
    assert!(points[1].note.is_some());
    assert_eq!(
        facts.diagnostics.wiring,
        Some(WiringDiagnostics { unresolved_types: 0, unimplemented: 1, narrowed: 1 })
    );

    // Without a profile: annotations are still facts, nothing is interpreted.
    let plain = build_domain_facts(&g, &View::all(), None);
    let owner = plain.type_dossier("java:app/Owner").unwrap();
    assert!(owner.stereotype.is_none() && owner.injection_points.is_empty());
    assert_eq!(owner.annotations[0].module.as_deref(), Some("org.springframework.stereotype"));
    assert!(plain.types.iter().flat_map(|t| &t.operations).all(|o| !o.entry_point));
}

#[test]
fn wiring_roles_and_candidate_edges() {
    let m = spring_model();
    let g = CodeGraph::new(&m);
    let w = derive_framework_wiring(&g, Framework::Spring.profile());
    let roles: Vec<(&str, &str)> = w.roles.iter().map(|r| (&*r.id, r.role.as_str())).collect();
    assert_eq!(
        roles,
        vec![
            ("java:app/ClinicA", "primary"),
            ("java:app/ClinicA", "stereotype"),
            ("java:app/ClinicB", "stereotype"),
            ("java:app/Owner", "stereotype"),
            ("java:app/Owner.list()", "entry-point"),
            ("java:app/Owner.repo", "injection-point"),
        ]
    );
    assert_eq!(w.edges.len(), 1);
    assert_eq!((&*w.edges[0].from, &*w.edges[0].to), ("java:app/Owner", "java:app/ClinicA"));
}
