//! `cargo xtask dist [--out DIR] [--base /some/path/]`: the release page as
//! a folder to upload to any static host (GitHub Pages, Netlify, an S3
//! bucket, `python -m http.server`).
//!
//! 1. `trunk build --release --public-url BASE --dist DIR`: every asset URL
//!    is BASE-prefixed; the Worker and the demo's fixtures are fetched
//!    relative to the page, so they follow.
//! 2. Trunk's inline start-up script becomes a file (`init-<hash>.js`), so
//!    the page runs no inline script and the Content-Security-Policy
//!    ([`csp`]) can say `script-src 'self'`; the policy goes in as a
//!    `<meta>` tag.
//! 3. `_headers` (the format Netlify and Cloudflare Pages read) carries the
//!    same policy plus what a `<meta>` cannot say (`frame-ancestors`), and
//!    the cross-origin isolation OPFS needs; `HOSTING.md` lists them for
//!    hosts that take headers another way.
//! 4. Every text or wasm file of 1 KiB or more gets a `.gz` and a `.br`
//!    beside it (node's zlib: gzip 9, brotli 11), for hosts that serve
//!    precompressed files.

use crate::root;
use crate::setup::{self, run_cmd};
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(clap::Args)]
pub struct Args {
    /// The folder to write (emptied first).
    #[arg(long, default_value = "target/site")]
    out: PathBuf,
    /// The path the page is served under (e.g. `/codegraph-insights/` for a
    /// GitHub project page).
    #[arg(long, default_value = "/")]
    base: String,
}

pub fn run(args: Args) -> crate::Result {
    setup::run()?;
    let base = base_path(&args.base)?;
    let out = if args.out.is_absolute() { args.out } else { root().join(args.out) };
    let files = build(&out, &base)?;
    let (raw, gz, br) = first_visit(&out, &files);
    println!(
        "dist: {} ready to upload, served under {base}: {} files; a first visit downloads {:.2} MB ({:.2} MB gzip, {:.2} MB brotli)",
        out.display(),
        files.len(),
        raw as f64 / 1e6,
        gz as f64 / 1e6,
        br as f64 / 1e6
    );
    let mut large: Vec<&Written> = files.iter().filter(|f| f.bytes >= 100_000).collect();
    large.sort_by_key(|f| std::cmp::Reverse(f.bytes));
    for f in large {
        println!(
            "  {}: {:.2} MB, {:.2} MB gzip, {:.2} MB brotli",
            f.path.strip_prefix(&out).unwrap_or(&f.path).display(),
            f.bytes as f64 / 1e6,
            f.gz as f64 / 1e6,
            f.br as f64 / 1e6
        );
    }
    println!("dist: the headers to set are in {}/_headers and HOSTING.md", out.display());
    Ok(())
}

/// A `--base`: absolute, ending in `/`, no query, fragment or `..`.
pub fn base_path(base: &str) -> crate::Result<String> {
    let b = base.trim();
    let b = if b.ends_with('/') { b.to_owned() } else { format!("{b}/") };
    if !b.starts_with('/') || b.contains(['?', '#', '"', '\'', '<', '>', ' ']) || b.split('/').any(|s| s == "..") {
        return Err(format!(
            "--base {base:?}: expected an absolute path such as /codegraph-insights/ (no query, fragment, quotes or ..)"
        ));
    }
    Ok(b)
}

/// The page's Content-Security-Policy (the `<meta>` form: a `<meta>` policy
/// cannot say `frame-ancestors`; [`headers`] adds it).
///
/// * scripts and wasm only from the page's origin (`'wasm-unsafe-eval'`
///   lets it compile its own modules), no inline script;
/// * styles from the page's origin, and inline `style` attributes (the tree
///   and the plan's bars place rows with them; they cannot run code);
/// * `connect-src`: the page's origin, any HTTPS endpoint (OpenRouter,
///   Cloudflare, a hosted OpenAI-compatible server) and loopback HTTP (a
///   local model server). A page's policy cannot grow at run time, so a host
///   narrows or widens it here (README "Host it");
/// * nothing else: no objects, no `<base>`, no forms, no frames.
pub fn csp() -> String {
    [
        "default-src 'self'",
        "script-src 'self' 'wasm-unsafe-eval'",
        "style-src 'self'",
        "style-src-attr 'unsafe-inline'",
        "img-src 'self' data:",
        // CSP has no syntax for an IPv6 literal host: `[::1]` would void the
        // list entry (Chromium says so); local servers are 127.0.0.1 or localhost.
        "connect-src 'self' https: http://127.0.0.1:* http://localhost:*",
        "worker-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    ]
    .join("; ")
}

/// `_headers` for the files under `base`.
pub fn headers(base: &str) -> String {
    format!(
        "# Headers for every file of the page (Netlify / Cloudflare Pages format).\n\
         {base}*\n  \
         Content-Security-Policy: {}; frame-ancestors 'none'\n  \
         Cross-Origin-Opener-Policy: same-origin\n  \
         Cross-Origin-Embedder-Policy: require-corp\n  \
         Cross-Origin-Resource-Policy: same-origin\n  \
         X-Content-Type-Options: nosniff\n  \
         Referrer-Policy: no-referrer\n",
        csp()
    )
}

/// The headers of a `_headers` text, in order (every path pattern's).
pub fn parse_headers(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter(|l| l.starts_with(char::is_whitespace))
        .filter_map(|l| l.trim().split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect()
}

const HOSTING: &str = "# Hosting this folder

Upload the whole folder as it is. The page works from any static host; what
the host can add makes it safer and faster:

- **Headers** (`_headers` lists them; Netlify and Cloudflare Pages read that
  file as it is). `Content-Security-Policy` repeats the page's `<meta>`
  policy and adds `frame-ancestors 'none'`, which a `<meta>` cannot say.
  `Cross-Origin-Opener-Policy: same-origin` and
  `Cross-Origin-Embedder-Policy: require-corp` make the page cross-origin
  isolated, as it is served and tested by `cargo xtask serve` and the
  end-to-end tests. GitHub Pages sets no custom headers: there the page has
  its `<meta>` policy only and is not cross-origin isolated (not tested).
- **Precompressed files**: every large file has a `.br` and a `.gz` beside
  it. A host that serves them (`Content-Encoding: br` for `x.wasm.br` when
  `x.wasm` is asked) sends about a third of the bytes.
- **Widening or narrowing what the page may call**: the policy's
  `connect-src` allows the page's origin, any HTTPS endpoint and loopback
  HTTP (local model servers). To allow one provider only, or an HTTP server
  on another host, edit `connect-src` in both `index.html`'s `<meta>` and
  `_headers`.
";

/// One file written, with its precompressed sizes (0: not precompressed).
#[derive(Debug)]
pub struct Written {
    pub path: PathBuf,
    pub bytes: u64,
    pub gz: u64,
    pub br: u64,
}

/// Builds the page into `out` for `base`; returns the files written (the
/// `.gz` / `.br` companions counted on their file).
pub fn build(out: &Path, base: &str) -> crate::Result<Vec<Written>> {
    // Trunk builds into a folder of the project (it cleans its dist folder
    // and keeps that inside the project); the result is copied to `out`.
    let stage = crate::target_dir().join("dist-stage");
    let mut cmd = Command::new("trunk");
    cmd.current_dir(root()).args(["build", "--release", "--public-url", base, "--dist"]).arg(&stage);
    run_cmd(&mut cmd)?;
    if out.exists() {
        std::fs::remove_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    copy_dir(&stage, out)?;
    let index = out.join("index.html");
    let html = std::fs::read_to_string(&index).map_err(|e| format!("{}: {e}", index.display()))?;
    let (html, init) = externalize_init(&html, base)?;
    std::fs::write(out.join(&init.0), init.1).map_err(|e| format!("{}: {e}", init.0))?;
    let html = with_csp_meta(&html)?;
    std::fs::write(&index, html).map_err(|e| format!("{}: {e}", index.display()))?;
    std::fs::write(out.join("_headers"), headers(base)).map_err(|e| format!("_headers: {e}"))?;
    std::fs::write(out.join("HOSTING.md"), HOSTING).map_err(|e| format!("HOSTING.md: {e}"))?;
    precompress(out)?;
    let mut files = Vec::new();
    walk(out, &mut |p| {
        let name = p.to_string_lossy();
        if name.ends_with(".gz") || name.ends_with(".br") {
            return;
        }
        let size = |p: PathBuf| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        files.push(Written {
            bytes: size(p.to_path_buf()),
            gz: size(PathBuf::from(format!("{name}.gz"))),
            br: size(PathBuf::from(format!("{name}.br"))),
            path: p.to_path_buf(),
        });
    })?;
    Ok(files)
}

/// What a first visit downloads of a built folder (the page, its start-up
/// script and stylesheet, the page's and the Worker's JS and wasm; not the
/// demo's fixtures): `(raw, gzip, brotli)` bytes, a file without a twin
/// counted raw.
pub fn first_visit(out: &Path, files: &[Written]) -> (u64, u64, u64) {
    let first = |f: &&Written| {
        let name = f.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        f.path.parent() == Some(out)
            && (name == "index.html" || name.ends_with(".js") || name.ends_with(".wasm") || name.ends_with(".css"))
    };
    files.iter().filter(first).fold((0, 0, 0), |(r, g, b), f| {
        let or_raw = |n: u64| if n == 0 { f.bytes } else { n };
        (r + f.bytes, g + or_raw(f.gz), b + or_raw(f.br))
    })
}

/// Trunk's inline `<script type="module">` as a file of its own: the page's
/// new text and `(file name, script)`.
fn externalize_init(html: &str, base: &str) -> crate::Result<(String, (String, String))> {
    let open = "<script type=\"module\">";
    let start = html.find(open).ok_or("dist: Trunk wrote no inline module script into index.html")?;
    let body_start = start + open.len();
    let end = html[body_start..].find("</script>").ok_or("dist: the inline module script has no end")? + body_start;
    let script = html[body_start..end].trim().to_owned();
    if html[end..].contains(open) {
        return Err("dist: index.html has more than one inline module script".into());
    }
    let name = format!("init-{:016x}.js", fnv(script.as_bytes()));
    let tag = format!("<script type=\"module\" src=\"{base}{name}\"></script>");
    let page = format!("{}{tag}{}", &html[..start], &html[end + "</script>".len()..]);
    Ok((page, (name, format!("{script}\n"))))
}

fn copy_dir(from: &Path, to: &Path) -> crate::Result {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| format!("{}: {e}", from.display()))?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if src.is_dir() {
            copy_dir(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(|e| format!("{} -> {}: {e}", src.display(), dst.display()))?;
        }
    }
    Ok(())
}

fn with_csp_meta(html: &str) -> crate::Result<String> {
    let charset = "<meta charset=\"utf-8\" />";
    let at = html.find(charset).ok_or("dist: index.html has no <meta charset=\"utf-8\" />")? + charset.len();
    let meta = format!("\n    <meta http-equiv=\"Content-Security-Policy\" content=\"{}\" />", csp());
    Ok(format!("{}{meta}{}", &html[..at], &html[at..]))
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) -> crate::Result {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            walk(&path, f)?;
        } else {
            f(&path);
        }
    }
    Ok(())
}

/// `.gz` and `.br` beside every compressible file of 1 KiB or more.
fn precompress(out: &Path) -> crate::Result {
    let script = root().join("xtask").join("src").join("dist").join("compress.mjs");
    let mut cmd = Command::new("node");
    cmd.arg(&script).arg(out);
    run_cmd(&mut cmd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_is_an_absolute_folder() {
        assert_eq!(base_path("/").unwrap(), "/");
        assert_eq!(base_path("/sub/path").unwrap(), "/sub/path/");
        assert_eq!(base_path(" /x/ ").unwrap(), "/x/");
        for bad in ["sub/", "/a/../b/", "/a?x", "/a#b", "/a\"b/"] {
            assert!(base_path(bad).unwrap_err().contains("expected an absolute path"), "{bad}");
        }
    }

    #[test]
    fn the_inline_script_becomes_a_file_named_by_its_content() {
        let html = "<head><script type=\"module\">\nimport init from '/x/a.js';\nawait init();\n</script><link></head>";
        let (page, (name, script)) = externalize_init(html, "/x/").unwrap();
        assert!(name.starts_with("init-") && name.ends_with(".js"), "{name}");
        assert_eq!(page, format!("<head><script type=\"module\" src=\"/x/{name}\"></script><link></head>"));
        assert_eq!(script, "import init from '/x/a.js';\nawait init();\n");
        assert!(externalize_init("<head></head>", "/").unwrap_err().contains("no inline module script"));
        let two = format!("{html}{html}");
        assert!(externalize_init(&two, "/").unwrap_err().contains("more than one"));
    }

    #[test]
    fn the_policy_allows_only_what_the_page_needs() {
        let p = csp();
        for part in [
            "script-src 'self' 'wasm-unsafe-eval'",
            "object-src 'none'",
            "base-uri 'none'",
            "connect-src 'self' https: http://127.0.0.1:*",
        ] {
            assert!(p.contains(part), "{part} in {p}");
        }
        assert!(!p.contains("unsafe-eval'") || p.contains("wasm-unsafe-eval"), "{p}");
        assert!(!p.contains("'unsafe-inline'") || p.contains("style-src-attr 'unsafe-inline'"), "{p}");
        assert!(!p.contains("frame-ancestors"), "a <meta> policy ignores frame-ancestors");
        let h = headers("/sub/");
        assert!(h.contains("/sub/*\n") && h.contains("frame-ancestors 'none'") && h.contains("require-corp"), "{h}");
        let parsed = parse_headers(&h);
        assert_eq!(parsed[0].0, "Content-Security-Policy");
        assert!(parsed[0].1.ends_with("frame-ancestors 'none'"));
        assert_eq!(parsed.len(), 6);
        let page = with_csp_meta("<head>\n    <meta charset=\"utf-8\" />\n</head>").unwrap();
        assert!(page.contains("http-equiv=\"Content-Security-Policy\""), "{page}");
    }

    #[test]
    fn a_first_visit_counts_the_page_and_worker_files_compressed() {
        let out = Path::new("/site");
        let file = |p: &str, bytes, gz, br| Written { path: out.join(p), bytes, gz, br };
        let files = [
            file("index.html", 1500, 800, 600),
            file("init-1.js", 200, 0, 0),
            file("web_bg.wasm", 4000, 1300, 900),
            file("fixtures/demo/model.jsonl", 9000, 900, 800),
            file("HOSTING.md", 1200, 600, 500),
        ];
        assert_eq!(first_visit(out, &files), (5700, 2300, 1700));
    }
}
