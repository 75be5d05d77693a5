//! Properties: canonical JSON ignores key order at every depth; clamped
//! confidence always lies in [0, 1].

use insights::blocks::clamp_confidence;
use insights::canonical::{canonical_json, digest_of};
use proptest::prelude::*;
use serde_json::{Map, Value};

fn build(pairs: &[(String, Value)], reverse: bool) -> Value {
    let mut map = Map::new();
    let iter: Box<dyn Iterator<Item = &(String, Value)>> =
        if reverse { Box::new(pairs.iter().rev()) } else { Box::new(pairs.iter()) };
    for (k, v) in iter {
        map.entry(k.clone()).or_insert_with(|| v.clone());
    }
    Value::Object(map)
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        "\\PC{0,6}".prop_map(Value::from),
    ]
}

proptest! {
    #[test]
    fn canonical_json_is_independent_of_key_order(
        outer in proptest::collection::btree_map("[a-z0-9😀～]{1,4}", leaf(), 0..6),
        inner in proptest::collection::btree_map("[a-z0-9😀～]{1,4}", leaf(), 0..6),
    ) {
        let mut pairs: Vec<(String, Value)> = outer.into_iter().collect();
        let inner_pairs: Vec<(String, Value)> = inner.into_iter().collect();
        pairs.push(("nested".into(), Value::Array(vec![build(&inner_pairs, false)])));
        let mut reversed = pairs.clone();
        reversed.pop();
        reversed.push(("nested".into(), Value::Array(vec![build(&inner_pairs, true)])));
        let a = build(&pairs, false);
        let b = build(&reversed, true);
        prop_assert_eq!(canonical_json(&a), canonical_json(&b));
        prop_assert_eq!(digest_of(&a).len(), 64);
    }

    #[test]
    fn clamped_confidence_is_in_unit_interval(c in any::<f64>()) {
        let got = clamp_confidence(c);
        prop_assert!((0.0..=1.0).contains(&got));
        if c.is_finite() && (0.0..=1.0).contains(&c) {
            prop_assert_eq!(got, c);
        }
    }
}
