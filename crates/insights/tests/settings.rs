//! The one resolver from planning settings to plan options, as the CLI and
//! the page both use it.

use analyzer::view::View;
use insights::settings::{PlanSettings, SettingsError};
use insights::units::Corpus;

#[test]
fn settings_resolve_to_options_with_one_set_of_rules() {
    let m = model::read_model(model::builder::examples::pinned_run(false).as_bytes(), "m.jsonl").unwrap();
    let corpus = Corpus::build(&m, View::all(), None).unwrap();
    let d = PlanSettings::default();
    let o = d.resolve(&corpus, &[]).unwrap();
    assert_eq!((o.depth, o.max_lines, o.max_scc, o.max_calls), (1, 200, 12, None));
    assert_eq!(o.models.leaf, o.models.rollup, "the roll-up model defaults to the leaf model");
    assert!(o.scope.is_none());

    let retry = PlanSettings { retry_failed: true, ..d.clone() };
    assert_eq!(retry.resolve(&corpus, &[]).unwrap_err(), SettingsError::NothingToRetry);
    let some_unit = corpus.walk.units[0].members[0].clone();
    assert!(retry.resolve(&corpus, &[some_unit]).unwrap().scope.is_some());
    let both = PlanSettings { scope: vec!["x".into()], ..retry };
    assert_eq!(both.resolve(&corpus, &[]).unwrap_err(), SettingsError::ScopeAndRetry);

    let unknown = PlanSettings { scope: vec![" java:nowhere ".into()], ..d.clone() };
    match unknown.resolve(&corpus, &[]).unwrap_err() {
        SettingsError::Scope(e) => assert_eq!(e.id, "java:nowhere"),
        other => panic!("{other:?}"),
    }
    for bad in [
        PlanSettings { depth: 0, ..d.clone() },
        PlanSettings { max_lines: 0, ..d.clone() },
        PlanSettings { max_scc: 0, ..d.clone() },
        PlanSettings { max_calls: Some(0), ..d.clone() },
        PlanSettings { model: "  ".into(), ..d.clone() },
    ] {
        assert!(matches!(bad.resolve(&corpus, &[]), Err(SettingsError::Invalid(_))), "{bad:?}");
    }
}
