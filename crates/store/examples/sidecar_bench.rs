//! The side-car benchmark's worker (`cargo xtask bench sidecar` runs it in a
//! release build, one process per phase so each peak RSS is that phase's):
//!
//! * `gen N SEED OUT` — writes `insights::sidecar::synth::synthetic(N, SEED)`;
//! * `import SIDECAR DB` — reads, decodes and imports into a fresh store;
//! * `export DB OUT` — streams the store's export into a file;
//! * `search DB` — full-text queries on the store (a reader), each repeated.
//!
//! Each phase prints one JSON line of its internal timings (milliseconds).

use std::time::Instant;

/// Queries of `search`, limit 20: a common word of the synthetic text (in
/// most records), a question of several common words, a rare word, and
/// words no record has together (the `AND` query finds nothing, the `OR`
/// query runs too).
const SEARCHES: &[&str] = &["price", "where is the discount applied to an order?", "naïve", "unicorn payment"];
const SEARCH_REPEATS: usize = 21;

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["gen", n, seed, out] => {
            let t = Instant::now();
            let sidecar = insights::sidecar::synth::synthetic(n.parse()?, seed.parse()?);
            let text = insights::sidecar::encode(&sidecar);
            std::fs::write(out, &text)?;
            println!(r#"{{"bytes":{},"records":{},"ms":{:.1}}}"#, text.len(), sidecar.records.len(), ms(t));
        }
        ["import", sidecar, db] => {
            let _ = std::fs::remove_file(db);
            let total = Instant::now();
            let t = Instant::now();
            let text = std::fs::read_to_string(sidecar)?;
            let read = ms(t);
            let t = Instant::now();
            let decoded = insights::sidecar::decode(sidecar, &text)?;
            drop(text);
            let decode = ms(t);
            let t = Instant::now();
            let store = store::Store::open_writer(db)?;
            store.import(&decoded)?;
            store.close()?;
            let import = ms(t);
            println!(
                r#"{{"readMs":{read:.1},"decodeMs":{decode:.1},"storeMs":{import:.1},"totalMs":{:.1},"dbBytes":{}}}"#,
                ms(total),
                std::fs::metadata(db)?.len()
            );
        }
        ["export", db, out] => {
            let t = Instant::now();
            let store = store::Store::open_writer(db)?;
            let file = std::fs::File::create(out)?;
            let file = store.export_to(file)?;
            file.sync_all()?;
            let max = store.max_rows_fetched();
            store.close()?;
            println!(r#"{{"totalMs":{:.1},"maxRowsFetched":{max}}}"#, ms(t));
        }
        ["search", db] => {
            let store = store::Store::open_reader(db)?;
            let mut results = Vec::new();
            for query in SEARCHES {
                let mut times = Vec::with_capacity(SEARCH_REPEATS);
                let mut hits = 0;
                for _ in 0..SEARCH_REPEATS {
                    let t = Instant::now();
                    hits = store.search_text(query, 20)?.len();
                    times.push(ms(t));
                }
                times.sort_by(f64::total_cmp);
                results.push(format!(
                    r#"{{"query":{},"hits":{hits},"bestMs":{:.2},"medianMs":{:.2}}}"#,
                    serde_json::to_string(query)?,
                    times[0],
                    times[times.len() / 2]
                ));
            }
            println!(r#"{{"repeats":{SEARCH_REPEATS},"queries":[{}]}}"#, results.join(","));
        }
        _ => {
            return Err("usage: sidecar_bench gen N SEED OUT | import SIDECAR DB | export DB OUT | search DB (run by \
                        `cargo xtask bench sidecar`)"
                .into())
        }
    }
    Ok(())
}
