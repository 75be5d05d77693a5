//! Whatever the bytes, the reader answers with a model or an error naming a
//! line: it never panics. Random lines and mutations of the real fixture.

use proptest::prelude::*;

fn fixture_lines() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/upstream-java/model.jsonl");
    std::fs::read_to_string(path).unwrap().lines().map(str::to_owned).collect()
}

fn read(bytes: &[u8]) {
    match model::read_model(bytes, "m.jsonl") {
        Ok(m) => {
            // A model that reads can be walked in full without panicking.
            for e in m.entities() {
                let _ = (e.id(), e.kind(), e.metrics().map(|m| m.count()), e.value());
            }
            // Containment is a forest: every walk up the parents ends.
            for e in m.entities() {
                let (mut at, mut steps) = (e.index(), 0u32);
                while let Some(p) = m.entity(at).parent() {
                    at = p;
                    steps += 1;
                    assert!(steps <= m.entity_count(), "the parents of {} go round", e.id());
                }
            }
            for i in 0..m.edge_count() {
                let _ = m.edge(i).arguments();
            }
        }
        Err(e) => assert!(e.line > 0 || e.to_string().starts_with("m.jsonl: "), "{e}"),
    }
}

#[derive(Debug, Clone)]
enum Mutation {
    FlipByte { line: usize, at: usize, to: u8 },
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    Truncate { line: usize, at: usize },
    ReplaceNumber { line: usize, nth: usize, with: i64 },
    InsertLine { line: usize, text: String },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (0..385usize, 0..400usize, any::<u8>()).prop_map(|(line, at, to)| Mutation::FlipByte { line, at, to }),
        (0..385usize).prop_map(Mutation::DeleteLine),
        (0..385usize).prop_map(Mutation::DuplicateLine),
        (0..385usize, 0..385usize).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        (0..385usize, 0..400usize).prop_map(|(line, at)| Mutation::Truncate { line, at }),
        (
            0..385usize,
            0..12usize,
            prop_oneof![Just(-1i64), Just(0), Just(1), Just(178), Just(179), Just(9001), Just(1 << 40), any::<i64>()]
        )
            .prop_map(|(line, nth, with)| Mutation::ReplaceNumber { line, nth, with }),
        (0..385usize, "\\PC{0,40}").prop_map(|(line, text)| Mutation::InsertLine { line, text }),
    ]
}

fn apply(lines: &mut Vec<Vec<u8>>, m: &Mutation) {
    let n = lines.len();
    if n == 0 {
        return;
    }
    match m {
        Mutation::FlipByte { line, at, to } => {
            let l = &mut lines[line % n];
            if !l.is_empty() {
                let at = at % l.len();
                l[at] = *to;
            }
        }
        Mutation::DeleteLine(i) => {
            lines.remove(i % n);
        }
        Mutation::DuplicateLine(i) => {
            let l = lines[i % n].clone();
            lines.insert(i % n, l);
        }
        Mutation::SwapLines(a, b) => lines.swap(a % n, b % n),
        Mutation::Truncate { line, at } => {
            let l = &mut lines[line % n];
            let at = at % (l.len() + 1);
            l.truncate(at);
        }
        Mutation::ReplaceNumber { line, nth, with } => {
            let text = String::from_utf8_lossy(&lines[line % n]).into_owned();
            let digits: Vec<(usize, usize)> = {
                let b = text.as_bytes();
                let mut runs = Vec::new();
                let mut i = 0;
                while i < b.len() {
                    if b[i].is_ascii_digit() {
                        let s = i;
                        while i < b.len() && b[i].is_ascii_digit() {
                            i += 1;
                        }
                        runs.push((s, i));
                    } else {
                        i += 1;
                    }
                }
                runs
            };
            if let Some(&(s, e)) = digits.get(nth % digits.len().max(1)) {
                let t = format!("{}{}{}", &text[..s], with, &text[e..]);
                lines[line % n] = t.into_bytes();
            }
        }
        Mutation::InsertLine { line, text } => lines.insert(line % n, text.clone().into_bytes()),
    }
}

/// A model of `parents.len()` entities: entity 0 is module `a`, entity `k`'s
/// parent is `parents[k]` (absent: `None`).
fn parent_model(parents: &[Option<usize>]) -> String {
    let mut lines = vec![
        r#"{"t":"header","schemaVersion":"1.0.0","lang":"demo","extractor":{"name":"x","version":"1"},"root":"src","dict":{"kinds":["c"],"traits":["TChildOf","TModule","TNamed"],"edges":[],"provenance":[]}}"#.to_string(),
    ];
    for (k, p) in parents.iter().enumerate() {
        let (tr, parent) = match p {
            Some(p) => ("0,", format!(r#","parent":{p}"#)),
            None => ("", String::new()),
        };
        lines.push(if k == 0 {
            format!(r#"{{"t":"e","i":0,"k":0,"tr":[{tr}1],"m":0,"s":"a","isStub":false{parent},"definedIn":[]}}"#)
        } else {
            format!(r#"{{"t":"e","i":{k},"k":0,"tr":[{tr}2],"m":0,"s":"E{k:03}","name":"E"{parent}}}"#)
        });
    }
    lines.push(format!(r#"{{"t":"eof","counts":{{"files":0,"entities":{},"edges":0}}}}"#, parents.len()));
    lines.join("\n")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn mutated_fixture_never_panics(muts in proptest::collection::vec(mutation(), 1..4)) {
        let mut lines: Vec<Vec<u8>> = fixture_lines().into_iter().map(String::into_bytes).collect();
        for m in &muts {
            apply(&mut lines, m);
        }
        read(&lines.join(&b'\n'));
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        read(&bytes);
    }

    #[test]
    fn random_records_after_a_valid_header_never_panic(lines in proptest::collection::vec(
        prop_oneof![
            Just(r#"{"t":"f","i":0,"path":"a"}"#.to_string()),
            "\\{\"t\":\"e\",\"i\":[0-3],\"k\":[0-3],\"tr\":\\[[0-5](,[0-5]){0,3}\\],\"m\":[0-3],\"s\":\"[a-z#/.]{0,3}\"(,\"parent\":[0-9])?(,\"name\":\"x\")?\\}",
            "\\{\"t\":\"x\",\"k\":[0-3],\"f\":[0-4],\"o\":[0-4],\"p\":[0-1],\"anchor\":\\[[0-1],[0-3],[0-3]\\]\\}",
            "\\{\"t\":\"eof\",\"counts\":\\{\"files\":[0-2],\"entities\":[0-4],\"edges\":[0-3]\\}\\}",
        ], 0..8)) {
        let header = fixture_lines().remove(0);
        let text = std::iter::once(header).chain(lines).collect::<Vec<_>>().join("\n");
        read(text.as_bytes());
    }

    #[test]
    fn rings_of_parents_are_found_exactly(parents in (1..40usize).prop_flat_map(|n| {
        proptest::collection::vec(proptest::option::weighted(0.8, 0..n), n)
    })) {
        let n = parents.len();
        // Entity k is on a ring iff walking up from k comes back to k.
        let on_ring = |k: usize| {
            let mut at = parents[k];
            for _ in 0..n {
                match at {
                    Some(a) if a == k => return true,
                    Some(a) => at = parents[a],
                    None => return false,
                }
            }
            false
        };
        let ring: Vec<usize> = (0..n).filter(|&k| on_ring(k)).collect();
        match model::read_model(parent_model(&parents).as_bytes(), "m.jsonl") {
            Ok(m) => {
                prop_assert!(ring.is_empty(), "ring {ring:?} not found");
                for (k, p) in parents.iter().enumerate() {
                    prop_assert_eq!(m.entity(k as u32).parent(), p.map(|p| p as u32));
                }
            }
            Err(e) => {
                prop_assert_eq!(e.rule, model::Rule::Containment, "{}", e);
                // Entity k is on line k + 2; the line named is on a ring.
                let k = (e.line as usize).checked_sub(2).unwrap_or(usize::MAX);
                prop_assert!(ring.contains(&k), "{e} (ring members {ring:?})");
            }
        }
    }
}
