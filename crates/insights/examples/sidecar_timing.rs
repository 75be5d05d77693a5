//! Side-car encode/decode timings on a synthetic BroadleafCommerce-sized file
//! (28,206 records, about 47.5 MB; figures in docs/benchmarks.md).
//!
//! `cargo run --release -p insights --example sidecar_timing [N_RECORDS]`

use std::time::Instant;

use insights::sidecar::{decode, encode, synth::synthetic, SidecarWriter};

fn main() {
    let n: usize = std::env::args().nth(1).map(|a| a.parse().expect("a record count")).unwrap_or(28_206);
    let t = Instant::now();
    let sidecar = synthetic(n, 42);
    let generate = t.elapsed();

    let t = Instant::now();
    let text = encode(&sidecar);
    let encode_time = t.elapsed();

    let t = Instant::now();
    let mut w = SidecarWriter::new(Vec::with_capacity(text.len()), &sidecar.header).expect("in memory");
    for r in &sidecar.records {
        w.record(r).expect("sorted");
    }
    for f in &sidecar.failures {
        w.failure(f).expect("in memory");
    }
    let streamed = w.finish(sidecar.trailer.as_ref()).expect("in memory");
    let stream_time = t.elapsed();
    assert_eq!(streamed, text.as_bytes(), "the streaming writer writes what encode writes");

    let t = Instant::now();
    let back = decode("synthetic.insights.jsonl", &text).expect("a valid side-car");
    let decode_time = t.elapsed();
    assert!(!back.truncated);
    assert_eq!(back.records.len(), n);

    let t = Instant::now();
    let again = encode(&back);
    let reencode_time = t.elapsed();
    assert_eq!(again, text, "byte-for-byte round trip");

    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{n} records, {} failures, {:.1} MB ({:.0} bytes per line on average)",
        sidecar.failures.len(),
        text.len() as f64 / 1e6,
        text.len() as f64 / (n + sidecar.failures.len() + 2) as f64
    );
    println!("generate      {:8.1} ms", ms(generate));
    println!("encode        {:8.1} ms", ms(encode_time));
    println!("stream write  {:8.1} ms", ms(stream_time));
    println!("decode        {:8.1} ms", ms(decode_time));
    println!("re-encode     {:8.1} ms", ms(reencode_time));
}
