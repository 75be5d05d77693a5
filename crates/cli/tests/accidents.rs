//! Real accidents against the real binary: two processes at once, a full
//! disk, a read-only directory, closed pipes, cut and hand-edited side-cars,
//! an older store. Each test failed before the change it guards (issue 11).
//!
//! The disk tests mount a small tmpfs, which needs root (CI and the
//! developers' machines run as root); without it they fail and say why
//! rather than skip.

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use testkit::{FaultRule, MockConfig, MockProvider};

mod common;

use common::bin;

fn fixture() -> String {
    format!("{}/../../fixtures/upstream-java/model.jsonl", env!("CARGO_MANIFEST_DIR"))
}

fn workdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cgi-acc-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::copy(fixture(), d.join("model.jsonl")).unwrap();
    d
}

fn mock(faults: &[&str]) -> MockProvider {
    MockProvider::start(MockConfig {
        faults: faults.iter().map(|f| FaultRule::parse(f).unwrap()).collect(),
        ..MockConfig::default()
    })
}

/// `explain model.jsonl` against the mock, unattended, from facts (the fixture has no source).
fn explain_cmd(dir: &Path, server: &MockProvider, extra: &[&str]) -> Command {
    let mut c = bin();
    c.current_dir(dir)
        .args(["explain", "model.jsonl", "--provider", "openai-compatible", "--base-url", &server.url()])
        .args(["--yes", "--no-source"])
        .args(extra);
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn lines_of(path: &Path, t: &str) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().filter(|l| l.starts_with(&format!("{{\"t\":\"{t}\""))).count()
}

fn store_count(dir: &Path) -> u64 {
    store::Store::open_reader(dir.join("model.insights.db")).unwrap().count().unwrap()
}

/// A tmpfs of `kb` KiB at a fresh mount point, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(name: &str, kb: u64) -> Tmpfs {
        let dir = std::env::temp_dir().join(format!("cgi-tmpfs-{}-{name}", std::process::id()));
        let _ = Command::new("umount").arg(&dir).status();
        std::fs::create_dir_all(&dir).unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kb}k"), "tmpfs"])
            .arg(&dir)
            .output()
            .expect("mount");
        assert!(
            out.status.success(),
            "this test mounts a {kb} KiB tmpfs to make a real full or read-only disk, which needs root: {}",
            text(&out.stderr)
        );
        Tmpfs(dir)
    }

    fn remount_read_only(&self) {
        let st = Command::new("mount").args(["-o", "remount,ro"]).arg(&self.0).status().unwrap();
        assert!(st.success(), "remount read-only");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[test]
fn two_runs_at_once_spend_once_and_the_loser_names_the_writer() {
    let dir = workdir("race");
    let server = mock(&["slow:100@*"]);
    let (mut a, mut b) =
        (explain_cmd(&dir, &server, &["--concurrency", "4"]), explain_cmd(&dir, &server, &["--concurrency", "4"]));
    a.stdout(Stdio::null()).stderr(Stdio::piped());
    b.stdout(Stdio::null()).stderr(Stdio::piped());
    let (a, b) = (a.spawn().unwrap(), b.spawn().unwrap());
    let (pa, pb) = (a.id(), b.id());
    let (oa, ob) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    let (ea, eb) = (text(&oa.stderr), text(&ob.stderr));
    let codes = (oa.status.code(), ob.status.code());
    assert!(codes == (Some(0), Some(2)) || codes == (Some(2), Some(0)), "{codes:?}\n--- a\n{ea}\n--- b\n{eb}");
    let (loser, winner_pid) = if codes.0 == Some(2) { (&ea, pb) } else { (&eb, pa) };
    assert!(
        loser.contains(&format!("another codegraph-insights process (pid {winner_pid}) is writing")),
        "the loser names the live process: {loser}"
    );
    assert!(!loser.contains("] operation"), "the loser made no call: {loser}");
    assert_eq!(server.count(), 68, "68 calls were owed, 68 were made");
    assert_eq!(store_count(&dir), 79);
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Starts a slow run and returns it once `steps` steps are done.
fn slow_run(
    dir: &Path,
    server: &MockProvider,
    steps: usize,
) -> (std::process::Child, std::io::Lines<std::io::BufReader<std::process::ChildStderr>>) {
    let mut child =
        explain_cmd(dir, server, &["--concurrency", "1"]).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = 0;
    while seen < steps {
        match lines.next() {
            Some(Ok(l)) if l.starts_with('[') => seen += 1,
            Some(Ok(_)) => {}
            _ => panic!("the run ended before {steps} steps"),
        }
    }
    (child, lines)
}

#[test]
fn an_import_while_a_run_writes_is_refused_and_changes_nothing() {
    let dir = workdir("import-live");
    // A side-car to import: a finished run in another directory.
    let other = workdir("import-live-src");
    let fast = mock(&[]);
    assert_eq!(explain_cmd(&other, &fast, &[]).output().unwrap().status.code(), Some(0));
    let sidecar = other.join("model.insights.jsonl");

    let server = mock(&["slow:150@*"]);
    let (mut child, lines) = slow_run(&dir, &server, 12);
    let before = store_count(&dir);
    let out =
        bin().current_dir(&dir).args(["explain", "model.jsonl", "--yes", "--import"]).arg(&sidecar).output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("(pid {}) is writing", child.id())), "{err}");
    assert!(store_count(&dir) >= before, "nothing of the run's was replaced");
    // The run goes on and finishes.
    drop(lines);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(store_count(&dir), 79);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&other);
}

#[test]
fn a_cut_short_side_car_is_refused_then_merged_never_deleting() {
    let dir = workdir("truncated");
    let server = mock(&[]);
    assert_eq!(explain_cmd(&dir, &server, &[]).output().unwrap().status.code(), Some(0));
    let full = std::fs::read_to_string(dir.join("model.insights.jsonl")).unwrap();
    let cut: String = full.lines().take(40).map(|l| format!("{l}\n")).collect();
    let cut_path = dir.join("cut.insights.jsonl");
    std::fs::write(&cut_path, &cut).unwrap();

    let out = bin()
        .current_dir(&dir)
        .args(["explain", "model.jsonl", "--yes", "--import", "cut.insights.jsonl"])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cut.insights.jsonl is cut short (it has no eof line)"), "{err}");
    assert!(err.contains("--accept-truncated"), "{err}");
    assert_eq!(store_count(&dir), 79, "refused: nothing replaced");

    // A record edited in the cut file: merged in, and nothing else removed.
    let edited = cut.replacen("\"description\":\"", "\"description\":\"EDITED ", 1);
    std::fs::write(&cut_path, &edited).unwrap();
    let out = bin()
        .current_dir(&dir)
        .args(["explain", "model.jsonl", "--import", "cut.insights.jsonl", "--accept-truncated"])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("merged 39 records") && err.contains("nothing was removed"), "{err}");
    assert_eq!(store_count(&dir), 79);
    let out = bin().current_dir(&dir).args(["explain", "model.jsonl", "--export"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let exported = std::fs::read_to_string(dir.join("model.insights.jsonl")).unwrap();
    assert!(exported.contains("EDITED "), "the merged record is kept");
    let sc = insights::sidecar::decode("x", &exported).unwrap();
    assert!(!sc.truncated, "the export after a merge is complete");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_closed_or_full_stdout_never_panics() {
    // `model check M > /dev/full`
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = bin().args(["model", "check", &fixture()]).stdout(full).output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot write the output to stdout: No space left on device"), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    // `explain M --dry-run | head -1`
    let mut child =
        bin().args(["explain", &fixture(), "--dry-run"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout); // the reader goes away
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "a closed pipe is a quiet end: {err}");
    assert!(!err.contains("panicked") && !err.contains("internal error"), "{err}");
}

#[test]
fn a_run_whose_stderr_closes_still_finishes_and_closes_its_run() {
    let dir = workdir("stderr-closed");
    let server = mock(&["slow:20@*"]);
    let mut child =
        explain_cmd(&dir, &server, &["--json"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    drop(child.stderr.take()); // nobody reads the narration any more
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{out}");
    let summary: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(summary["counts"]["records"], 79);
    let store = store::Store::open_reader(dir.join("model.insights.db")).unwrap();
    assert!(store.open_runs().unwrap().is_empty(), "the run was finished");
    assert_eq!(lines_of(&dir.join("model.insights.jsonl"), "i"), 79);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_full_disk_stops_the_run_and_rescues_the_paid_answers() {
    let disk = Tmpfs::mount("full", 8192);
    let dir = disk.0.join("work");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fixture(), dir.join("model.jsonl")).unwrap();
    // A first, complete run of a few units makes the store; then fill the disk
    // so that the next run's commits meet ENOSPC after a few units.
    let server = mock(&[]);
    let out = explain_cmd(&dir, &server, &["--max-calls", "5"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let filler = disk.0.join("filler");
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&filler).unwrap();
        let chunk = vec![b'x'; 4096];
        while f.write_all(&chunk).is_ok() {}
        let _ = f.sync_all();
    }
    // Leave room for some commits (each writes a few pages to the WAL), then ENOSPC.
    let len = std::fs::metadata(&filler).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&filler).unwrap().set_len(len.saturating_sub(256 * 1024)).unwrap();
    let before = store_count(&dir);

    let server = mock(&[]);
    let out = explain_cmd(&dir, &server, &["--concurrency", "2"]).output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the insights store refused a write, so the run stopped"), "{err}");
    assert!(err.contains("model.insights.db: committing a unit"), "the error names the store and the cause: {err}");
    let answered = server.count();
    assert!(answered > 0 && answered < 63, "some calls, then the run stopped calling: {answered} calls\n{err}");
    eprintln!("full disk: {answered} calls answered before the run stopped");
    assert!(store_count(&dir) > before, "the commits before the disk filled are kept");
    let rescue = std::fs::read_dir(&dir)
        .unwrap()
        .chain(std::fs::read_dir(std::env::temp_dir()).unwrap())
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| {
            p.file_name().unwrap().to_string_lossy().starts_with("model.insights.db.rescue-")
                && p.to_string_lossy().contains(&format!(".rescue-{}-", out_pid(&err)))
        })
        .expect("a rescue side-car was written and named");
    let sc = insights::sidecar::decode("rescue", &std::fs::read_to_string(&rescue).unwrap()).unwrap();
    assert!(sc.truncated && !sc.records.is_empty(), "the refused answer is in the rescue file");
    assert!(err.contains("--accept-truncated"), "{err}");
    // Free the disk. A rescue beside the store is merged by the next run by
    // itself; one that had to go to the temporary directory is imported by hand.
    std::fs::remove_file(&filler).unwrap();
    let beside = rescue.parent() == Some(dir.as_path());
    if !beside {
        let out = bin()
            .current_dir(&dir)
            .args(["explain", "model.jsonl", "--accept-truncated", "--import"])
            .arg(&rescue)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let _ = std::fs::remove_file(&rescue);
    }
    let again = mock(&[]);
    let out = explain_cmd(&dir, &again, &[]).output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    if beside {
        assert!(err.contains("paid for earlier from the rescue file"), "{err}");
        let mut done = rescue.as_os_str().to_owned();
        done.push(".merged");
        assert!(std::path::Path::new(&done).is_file() && !rescue.exists());
    }
    assert_eq!(again.count() + answered, 63, "nothing paid twice: 63 calls were owed after the first 5");
    assert_eq!(store_count(&dir), 79);
}

/// The pid of the process whose narration `err` is (named in its rescue file), or 0.
fn out_pid(err: &str) -> u32 {
    err.split(".rescue-").nth(1).and_then(|r| r.split('-').next()).and_then(|p| p.parse().ok()).unwrap_or(0)
}

#[test]
fn a_store_on_a_read_only_disk_is_read_and_a_zero_byte_store_is_refused() {
    let disk = Tmpfs::mount("ro", 4096);
    let dir = disk.0.join("work");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fixture(), dir.join("model.jsonl")).unwrap();
    let server = mock(&[]);
    assert_eq!(explain_cmd(&dir, &server, &[]).output().unwrap().status.code(), Some(0));
    disk.remount_read_only();
    let out = bin().current_dir(&dir).args(["insights", "model.jsonl"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("79"), "{}", text(&out.stdout));
    let out = bin().current_dir(&dir).args(["explain", "model.jsonl", "--dry-run", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["estimates"]["calls"], 0, "everything reused from the read-only store");
    let out = bin().current_dir(&dir).args(["explore", "model.jsonl", "Money"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    // A zero-byte store: refused, never written into, no call.
    let dir = workdir("zero");
    std::fs::write(dir.join("model.insights.db"), b"").unwrap();
    for args in [&["--dry-run"][..], &[][..]] {
        let server = mock(&[]);
        let out = explain_cmd(&dir, &server, args).output().unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("model.insights.db: the file is empty (0 bytes)"), "{err}");
        assert_eq!(server.count(), 0);
        assert_eq!(std::fs::metadata(dir.join("model.insights.db")).unwrap().len(), 0);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_export_that_fails_leaves_no_temporary_file() {
    let dir = workdir("export-fail");
    let server = mock(&[]);
    assert_eq!(explain_cmd(&dir, &server, &[]).output().unwrap().status.code(), Some(0));
    // The side-car's place is a directory: the rename fails.
    let out_dir = dir.join("taken.insights.jsonl");
    std::fs::create_dir_all(out_dir.join("inside")).unwrap();
    std::fs::copy(dir.join("model.insights.db"), dir.join("taken.insights.db")).unwrap();
    let out = bin()
        .current_dir(&dir)
        .args(["explain", "model.jsonl", "--export", "--out", "taken.insights.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let tmp: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(tmp.is_empty(), "{tmp:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_paid_run_without_source_asks_first() {
    let dir = workdir("nosource");
    let server = mock(&[]);
    let out = bin()
        .current_dir(&dir)
        .args(["explain", "model.jsonl", "--provider", "openai-compatible", "--base-url", &server.url(), "--yes"])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no source: 65 unit(s) will be explained from the model's facts only"), "{err}");
    assert!(err.contains("--no-source"), "{err}");
    assert_eq!(server.count(), 0);
    assert!(!dir.join("model.insights.db").exists(), "nothing written");
    // The offline demo spends nothing: not asked.
    let out = bin().current_dir(&dir).args(["explain", "model.jsonl", "--provider", "demo", "--yes"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_outside_edit_of_the_side_car_is_noticed() {
    let dir = workdir("edit");
    let server = mock(&[]);
    assert_eq!(explain_cmd(&dir, &server, &[]).output().unwrap().status.code(), Some(0));
    let path = dir.join("model.insights.jsonl");
    let out = bin().current_dir(&dir).args(["explain", "model.jsonl", "--dry-run"]).output().unwrap();
    assert!(!text(&out.stderr).contains("changed by something else"), "no edit, no warning: {}", text(&out.stderr));
    let edited =
        std::fs::read_to_string(&path).unwrap().replacen("\"description\":\"", "\"description\":\"Hand-edited. ", 1);
    std::fs::write(&path, edited).unwrap();
    let out = bin().current_dir(&dir).args(["explain", "model.jsonl", "--dry-run"]).output().unwrap();
    let err = text(&out.stderr);
    assert!(err.contains("model.insights.jsonl was changed by something else after it was last exported"), "{err}");
    assert!(err.contains("--import"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_refused_call_is_not_counted_as_a_call() {
    let dir = workdir("refused");
    let server = mock(&["402@1"]);
    let out = explain_cmd(&dir, &server, &["--concurrency", "1", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["counts"]["calls"], 0, "the only call was refused");
    assert_eq!(summary["failures"][0]["calls"], 0);
    let text = std::fs::read_to_string(dir.join("model.insights.jsonl")).unwrap();
    let f: serde_json::Value =
        serde_json::from_str(text.lines().find(|l| l.starts_with("{\"t\":\"f\"")).unwrap()).unwrap();
    assert_eq!(f["calls"], 0);
    let runs = store::Store::open_reader(dir.join("model.insights.db")).unwrap().runs().unwrap();
    assert_eq!(runs[0].counts.as_ref().and_then(|c| c.calls), Some(0), "the ledger too");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn retry_failed_groups_its_reasons_and_notes_changed_settings() {
    let dir = workdir("retry");
    // Three units fail with the same 500 (after the client's retries), one with a 418.
    let server = mock(&["500@unit=java:com.acme.order/Money.times(int)", "418@unit=java:com.acme.order/Money"]);
    let out = explain_cmd(&dir, &server, &[]).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let out = bin()
        .current_dir(&dir)
        .args(["explain", "model.jsonl", "--retry-failed", "--dry-run", "--model", "other/model"])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("retrying 2 failed unit(s)"), "{err}");
    assert!(err.contains("  1 × provider 418: "), "{err}");
    assert!(err.contains("  1 × provider 500: "), "{err}");
    assert!(err.contains("this retry uses other/model / other/model"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_empty_model_slug_is_a_usage_error() {
    for flag in ["--model", "--rollup-model"] {
        let out = bin().args(["explain", &fixture(), "--dry-run", flag, ""]).output().unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("a model slug is needed"), "{err}");
    }
}

#[test]
fn a_store_of_format_1_plans_read_only_then_a_run_migrates_and_exports() {
    let dir = workdir("format1");
    let server = mock(&[]);
    assert_eq!(explain_cmd(&dir, &server, &[]).output().unwrap().status.code(), Some(0));
    let db = dir.join("model.insights.db");
    // Take the store back to format 1 (what the codegraph CLI writes): no
    // text index, no output modes in the ledger.
    {
        let c = store::rusqlite::Connection::open(&db).unwrap();
        c.execute_batch(
            "DROP TRIGGER insight_text_insert; DROP TRIGGER insight_text_unindex; DROP TRIGGER insight_text_update;
             DROP TRIGGER insight_text_delete; DROP TABLE insight_text; DROP VIEW insight_text_source;
             ALTER TABLE run DROP COLUMN output_modes; PRAGMA user_version = 1; PRAGMA journal_mode = DELETE;",
        )
        .unwrap();
    }
    let bytes = std::fs::read(&db).unwrap();
    let out = bin().current_dir(&dir).args(["explain", "model.jsonl", "--dry-run", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["estimates"]["calls"], 0, "planned from the older store");
    assert_eq!(std::fs::read(&db).unwrap(), bytes, "a plan does not migrate");
    let out = bin().current_dir(&dir).args(["insights", "model.jsonl"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // A writing run migrates.
    let again = mock(&[]);
    let out = explain_cmd(&dir, &again, &[]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(again.count(), 0);
    let s = store::Store::open_reader(&db).unwrap();
    assert_eq!(s.format_version(), store::MIGRATIONS.len() as u32);
    assert!(!s.search_text("Money", 5).unwrap().is_empty(), "the text index was built by the migration");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_panic_mid_run_is_an_internal_error_and_the_run_is_closed_as_interrupted() {
    let dir = workdir("panic");
    let server = mock(&[]);
    let out = explain_cmd(&dir, &server, &["--concurrency", "1"])
        .env("CODEGRAPH_INSIGHTS_TEST_PANIC_AFTER", "10")
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "codegraph-insights: internal error (a bug in this tool, not in your model): test panic after 10 steps"
        ),
        "{err}"
    );
    assert!(!err.contains("RUST_BACKTRACE"), "no stack dump for a user: {err}");
    let store = store::Store::open_reader(dir.join("model.insights.db")).unwrap();
    assert!(store.open_runs().unwrap().is_empty(), "the run was closed while the panic unwound");
    let runs = store.runs().unwrap();
    assert_eq!(runs[0].aborted.as_deref(), Some("interrupted"));
    let committed = store.count().unwrap();
    assert!(committed >= 9, "the units committed before the panic are kept: {committed}");
    drop(store);
    let again = mock(&[]);
    let out = explain_cmd(&dir, &again, &[]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(store_count(&dir), 79);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_retry_after_of_an_hour_stops_the_run_instead_of_sleeping() {
    let dir = workdir("retry-after");
    let server = mock(&["429:3600@1"]);
    let started = std::time::Instant::now();
    let out = explain_cmd(&dir, &server, &["--concurrency", "1", "--json"]).output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(60), "no hour-long sleep");
    assert_eq!(server.count(), 1, "no call after the refusal");
    assert!(err.contains("asks to wait 60 minute(s) before the next call"), "{err}");
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["aborted"]["notAttempted"].as_u64().map(|n| n > 50), Some(true), "{summary}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_side_car_that_repeats_an_id_is_refused_naming_both_lines() {
    let dir = workdir("dup");
    let server = mock(&[]);
    assert_eq!(explain_cmd(&dir, &server, &[]).output().unwrap().status.code(), Some(0));
    let text_of = std::fs::read_to_string(dir.join("model.insights.jsonl")).unwrap();
    let lines: Vec<&str> = text_of.lines().collect();
    let mut dup = lines.clone();
    dup.insert(5, lines[2]);
    std::fs::write(dir.join("dup.insights.jsonl"), dup.join("\n") + "\n").unwrap();
    let out = bin()
        .current_dir(&dir)
        .args(["explain", "model.jsonl", "--yes", "--import", "dup.insights.jsonl"])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("dup.insights.jsonl:6: record") && err.contains("repeats the id of line 3"), "{err}");
    assert_eq!(store_count(&dir), 79);
    std::fs::remove_dir_all(&dir).unwrap();
}
