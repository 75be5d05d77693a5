//! Full-text search over explanations (store format version 2): found by
//! what the explanation says, ranked, safe for any typed text, kept in sync
//! by every write, and built for the records of a store migrated from
//! format version 1.
#![cfg(not(target_arch = "wasm32"))] // temp dirs: native only (see wasm.rs for OPFS)

mod common;

use common::*;
use insights::vocab::{Level, INSIGHTS_APPLICATION_ID, INSIGHTS_DB_VERSION};
use serde_json::json;
use store::rusqlite::Connection;
use store::{BeginRun, Store, StoreError, TextHit};

/// A store in a fresh directory holding the [`shop`].
fn shop_store(tag: &str) -> (TempDir, Store) {
    let dir = TempDir::new(tag);
    let s = Store::open_writer(dir.path("m.insights.db")).unwrap();
    s.import(&sidecar_of(shop())).unwrap();
    (dir, s)
}

fn ids(hits: &[TextHit]) -> Vec<&str> {
    hits.iter().map(|h| h.id.as_str()).collect()
}

fn indexed(s: &Store) -> i64 {
    s.connection().query_row("SELECT count(*) FROM insight_text", [], |r| r.get(0)).unwrap()
}

/// FTS5's own check that the index matches its content.
fn integrity(s: &Store) {
    s.connection().execute("INSERT INTO insight_text (insight_text) VALUES ('integrity-check')", []).unwrap();
}

#[test]
fn a_question_finds_the_unit_by_what_its_explanation_says() {
    let (_dir, s) = shop_store("search-question");
    let hits = s.search_text("where is pricing decided?", 10).unwrap();
    assert_eq!(hits[0].id, "java:shop/PriceCalculator.quote(Cart)", "{hits:#?}");
    let top = &hits[0];
    assert_eq!(top.level, Level::Operation);
    assert_eq!(top.name.as_deref(), Some("quote"));
    assert_eq!(top.concept.as_deref(), Some("owned by domainService"));
    assert!(top.snippet.contains("«Decides»") && top.snippet.contains("«price»"), "{}", top.snippet);
    assert!(!top.snippet.contains('<'), "plain text, never HTML: {}", top.snippet);
    // Every hit matches both words (AND found some), stems included.
    assert_eq!(ids(&hits), ["java:shop/PriceCalculator.quote(Cart)"]);

    // A word of the description, and a word only in the rest of the block.
    assert_eq!(ids(&s.search_text("customer", 10).unwrap()), ["java:shop/Cart"]);
    let stock = s.search_text("stock", 10).unwrap();
    assert_eq!(ids(&stock), ["java:shop/Cart.add(Item)"]);
    assert!(stock[0].snippet.contains("«stock»"), "the snippet is cut where the match is: {}", stock[0].snippet);
    // The name cut at capitals, and the last word as a prefix.
    assert_eq!(ids(&s.search_text("price calc", 10).unwrap()), ["java:shop/PriceCalculator.quote(Cart)"]);
    let by_class = s.search_text("PriceCalculator", 10).unwrap();
    assert_eq!(ids(&by_class), ["java:shop/PriceCalculator.quote(Cart)"]);
    assert!(by_class[0].snippet.contains("«PriceCalculator»"), "{}", by_class[0].snippet);
    let by_words = s.search_text("price calc", 10).unwrap();
    assert!(
        by_words[0].snippet.starts_with("Decides the final «price»"),
        "the description first: {}",
        by_words[0].snippet
    );
    assert_eq!(ids(&s.search_text("receip", 10).unwrap()), ["java:shop/Receipt", "java:shop"]);
}

#[test]
fn a_concept_finds_its_records_and_labels_them() {
    let (_dir, s) = shop_store("search-concept");
    let hits = s.search_text("aggregate", 10).unwrap();
    assert_eq!(ids(&hits), ["java:shop/Cart"]);
    assert_eq!(hits[0].concept.as_deref(), Some("aggregate"));
    assert_eq!(hits[0].level, Level::Type);
    // camelCase concepts by their words; a module's bounded-context hint.
    assert_eq!(ids(&s.search_text("value type", 10).unwrap()), ["java:shop/Receipt"]);
    assert_eq!(ids(&s.search_text("domain service", 10).unwrap()), ["java:shop/PriceCalculator.quote(Cart)"]);
    let hits = s.search_text("checkout", 10).unwrap();
    assert_eq!(ids(&hits), ["java:shop"]);
    assert_eq!(hits[0].concept.as_deref(), Some("context: Checkout"));
    assert_eq!(hits[0].level, Level::Module);
}

#[test]
fn hits_are_ranked_best_first_and_limited() {
    let (_dir, s) = shop_store("search-rank");
    // The calculator's class is named for it and its description says it;
    // the receipt's description says it twice; nothing else does.
    let hits = s.search_text("price", 10).unwrap();
    assert_eq!(ids(&hits), ["java:shop/PriceCalculator.quote(Cart)", "java:shop/Receipt"], "{hits:#?}");
    assert!(hits[0].rank <= hits[1].rank, "{hits:#?}");
    assert!(hits.iter().all(|h| h.rank < 0.0), "BM25: smaller is better");
    // A word of the name outweighs the same word in a description.
    let hits = s.search_text("cart", 10).unwrap();
    assert_eq!(hits[0].id, "java:shop/Cart", "{hits:#?}");
    assert_eq!(hits.len(), 4, "{hits:#?}");
    assert_eq!(s.search_text("cart", 2).unwrap(), hits[..2]);
    assert!(s.search_text("cart", 0).unwrap().is_empty());
}

#[test]
fn all_words_or_else_any_word() {
    let (_dir, s) = shop_store("search-or");
    // No record says both: any of them, the better match first.
    let hits = s.search_text("basket unicorn", 10).unwrap();
    assert_eq!(ids(&hits), ["java:shop/Cart"]);
    let both = s.search_text("discount tax", 10).unwrap();
    assert_eq!(ids(&both), ["java:shop/PriceCalculator.quote(Cart)"]);
    assert!(s.search_text("unicorn", 10).unwrap().is_empty());
}

#[test]
fn typed_text_is_never_fts5_syntax() {
    let (_dir, s) = shop_store("search-syntax");
    for query in [
        "\"",
        "\"price",
        "price\"",
        "(price",
        "price)",
        "()",
        "NEAR(price tax)",
        "NEAR",
        "price NEAR tax",
        "*",
        "price*",
        "*price",
        "AND",
        "OR OR",
        "NOT price",
        "price NOT",
        "-price",
        "^price",
        "id:price",
        "{id name}: price",
        "price + tax",
        "'price'",
        "price;DROP TABLE insight",
        "\u{0}",
        "a\u{0}b",
        "😀 日本語 ～",
        "\\",
        ":",
        "",
        "   ",
    ] {
        let hits = s.search_text(query, 10).unwrap_or_else(|e| panic!("{query:?}: {e}"));
        for h in &hits {
            assert!(!h.snippet.is_empty(), "{query:?}");
        }
    }
    assert_eq!(s.search_text("NEAR(price", 10).unwrap().len(), 0, "NEAR is a word, and no record says it");
    assert_eq!(ids(&s.search_text("NOT price", 10).unwrap()), ["java:shop/Receipt"], "NOT is a word");
    assert_eq!(s.search_text("( ) * \"", 10).unwrap(), []);
    assert_eq!(s.count().unwrap(), 5, "nothing was written");
}

#[test]
fn every_write_keeps_the_index_in_its_transaction() {
    let (dir, s) = shop_store("search-sync");
    assert_eq!(indexed(&s), 5);
    integrity(&s);

    // A unit committed by a run: its records found at once.
    let run = s.begin_run(&BeginRun { header: header(), started_at: "t0".into(), pid: None }).unwrap();
    let fresh = plain("java:shop/Till.open()", Level::Operation, "open", "Opens the till for a shift.", json!({}));
    s.put_unit(run, "java:shop/Till.open()", &[fresh]).unwrap();
    assert_eq!(ids(&s.search_text("shift", 10).unwrap()), ["java:shop/Till.open()"]);

    // A record replaced (upsert): the old words are gone, the new ones found.
    let redone =
        plain("java:shop/Cart.add(Item)", Level::Operation, "add", "Puts a product into the basket.", json!({}));
    s.put_unit(run, "java:shop/Cart.add(Item)", &[redone]).unwrap();
    assert!(s.search_text("stock", 10).unwrap().is_empty());
    assert_eq!(ids(&s.search_text("product", 10).unwrap()), ["java:shop/Cart.add(Item)"]);
    assert_eq!(indexed(&s), 6);

    // A unit that fails half-way writes nothing, in the index either.
    let good = plain("java:shop/Till.close()", Level::Operation, "close", "Closes the till.", json!({}));
    let mut bad = good.clone();
    bad.id = "java:shop/Till.count()".into();
    bad.kind = "nul\u{0}kind".into();
    let err = s.put_unit(run, "java:shop/Till.close()", &[good, bad]).unwrap_err();
    assert!(matches!(err, StoreError::Nul { .. }), "{err:?}");
    assert!(s.search_text("closes", 10).unwrap().is_empty());
    assert_eq!(indexed(&s), 6);

    // An import replaces everything: records it drops are no longer found,
    // the ones it brings are.
    let other = vec![
        plain("java:zoo/Keeper.feed()", Level::Operation, "feed", "Feeds every animal at noon.", json!({})),
        plain("java:shop/Cart", Level::Type, "Cart", "A trolley.", json!({"concept": "entity"})),
    ];
    s.import(&sidecar_of(other)).unwrap();
    assert!(s.search_text("customer", 10).unwrap().is_empty(), "the old Cart's words are gone");
    assert!(s.search_text("shift", 10).unwrap().is_empty());
    assert_eq!(ids(&s.search_text("trolley", 10).unwrap()), ["java:shop/Cart"]);
    assert_eq!(ids(&s.search_text("animals", 10).unwrap()), ["java:zoo/Keeper.feed()"]);
    assert_eq!(indexed(&s), 2);
    integrity(&s);
    let paused: i64 =
        s.connection().query_row("SELECT count(*) FROM meta WHERE key LIKE 'text%'", [], |r| r.get(0)).unwrap();
    assert_eq!(paused, 0, "the import restarted the triggers");
    let after = plain("java:zoo/Keeper.rest()", Level::Operation, "rest", "Lets the keeper nap.", json!({}));
    s.put_unit(run, "java:zoo/Keeper.rest()", &[after]).unwrap();
    assert_eq!(ids(&s.search_text("nap", 10).unwrap()), ["java:zoo/Keeper.rest()"]);
    integrity(&s);
    s.close().unwrap();

    // A reader searches too.
    let r = Store::open_reader(dir.path("m.insights.db")).unwrap();
    assert_eq!(ids(&r.search_text("noon", 10).unwrap()), ["java:zoo/Keeper.feed()"]);
    assert_eq!(ids(&r.search_text("keeper", 10).unwrap()).len(), 2);
}

#[test]
fn the_index_is_kept_by_lookups_not_scans() {
    let (_dir, s) = shop_store("search-plan");
    let plan = texts(s.connection(), "EXPLAIN QUERY PLAN SELECT * FROM insight_text_source WHERE rid = 7", 3);
    assert!(plan.iter().any(|p| p.contains("INTEGER PRIMARY KEY (rowid=?)")), "{plan:?}");
    assert!(!plan.iter().any(|p| p.starts_with("SCAN i")), "{plan:?}");
}

#[test]
fn a_store_of_format_version_1_gets_its_records_indexed_when_migrated() {
    let dir = TempDir::new("search-migrate");
    // A version-2 store holding the records, to copy them from.
    let source = dir.path("source.insights.db");
    let s = Store::open_writer(&source).unwrap();
    s.import(&sidecar_of(shop())).unwrap();
    s.close().unwrap();
    // A version-1 store as the ladder's first rung leaves it, with the same rows.
    let path = dir.path("m.insights.db");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(store::MIGRATIONS[0]).unwrap();
    conn.execute_batch(&format!("PRAGMA application_id = {INSIGHTS_APPLICATION_ID}; PRAGMA user_version = 1;"))
        .unwrap();
    // The stored columns (generated ones are not listed).
    let columns = texts(&conn, "SELECT name FROM pragma_table_info('insight')", 0).join(", ");
    conn.execute_batch(&format!(
        "ATTACH '{}' AS v2; INSERT INTO insight ({columns}) SELECT {columns} FROM v2.insight; \
         INSERT INTO meta SELECT * FROM v2.meta; DETACH v2;",
        source.display()
    ))
    .unwrap();
    let text: i64 =
        conn.query_row("SELECT count(*) FROM sqlite_master WHERE name LIKE 'insight_text%'", [], |r| r.get(0)).unwrap();
    assert_eq!(text, 0, "version 1 has no text index");
    drop(conn);
    // A reader reads a format-1 store as it is, without migrating; only the
    // text search, which format 2 brought, says it needs the migration.
    let r = Store::open_reader(&path).unwrap();
    assert_eq!((r.format_version(), r.count().unwrap()), (1, 5));
    assert!(matches!(r.search_text("checkout", 10), Err(StoreError::Older { version: 1, .. })));
    drop(r);
    let text: i64 = Connection::open(&path).unwrap().query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(text, 1, "the reader did not migrate");

    let s = Store::open_writer(&path).unwrap();
    let version: i64 = s.connection().query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, INSIGHTS_DB_VERSION as i64);
    assert_eq!(indexed(&s), 5);
    integrity(&s);
    assert_eq!(s.search_text("where is pricing decided?", 10).unwrap()[0].id, "java:shop/PriceCalculator.quote(Cart)");
    assert_eq!(ids(&s.search_text("checkout", 10).unwrap()), ["java:shop"]);
    // The migrated store exports what it held.
    assert_eq!(s.records().unwrap(), sidecar_of(shop()).records);
}
