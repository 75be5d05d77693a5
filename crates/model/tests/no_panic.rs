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
}
