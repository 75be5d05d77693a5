//! `cargo xtask dist [--out DIR] [--base /some/path/]`: the release page as
//! a folder to upload to any static host (GitHub Pages, Netlify, an S3
//! bucket, `python -m http.server`).
//!
//! 1. `trunk build --release --cargo-profile wasm-dist --public-url BASE`:
//!    every asset URL is BASE-prefixed; the Worker and the demo's fixtures
//!    are fetched relative to the page, so they follow. The profile (in the
//!    workspace's Cargo.toml) is LTO, one codegen unit, `opt-level = "s"`,
//!    no debug info.
//! 2. Both wasm modules go through npm binaryen's `wasm-opt` ([`WASM_OPT`]),
//!    the two at once; the `integrity` digests Trunk wrote for them are
//!    computed again ([`with_integrity`]).
//! 3. Trunk's inline start-up script becomes a file (`init-<hash>.js`), so
//!    the page runs no inline script and the Content-Security-Policy
//!    ([`csp`]) can say `script-src 'self'`; the policy goes in as a
//!    `<meta>` tag.
//! 4. `_headers` (the format Netlify and Cloudflare Pages read) carries the
//!    same policy plus what a `<meta>` cannot say (`frame-ancestors`), and
//!    the cross-origin isolation OPFS needs; `HOSTING.md` lists them for
//!    hosts that take headers another way.
//! 5. Every text or wasm file of 1 KiB or more gets a `.gz` and a `.br`
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

/// Serves `root` on a free loopback port as a static host serves a built
/// folder: the `_headers` of the page (in `page`, under `root`) on every
/// answer.
pub fn serve(root: &Path, page: &Path) -> crate::Result<crate::serve::StaticServer> {
    let file = page.join("_headers");
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    crate::serve::StaticServer::start_with(root, 0, parse_headers(&text))
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
- **Caching**: any policy works. The page's service worker (`sw.js`)
  revalidates every file when it installs a version, and the browser checks
  `sw.js` itself on every visit, so `Cache-Control: no-cache` on `sw.js`
  (most hosts' default for HTML and JS) is all an update needs. A newer
  upload is announced on open pages and taken on their next reload.
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
    cmd.current_dir(root())
        .args(["build", "--release", "--cargo-profile", "wasm-dist", "--public-url", base, "--dist"])
        .arg(&stage);
    run_cmd(&mut cmd)?;
    if out.exists() {
        std::fs::remove_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    copy_dir(&stage, out)?;
    optimise(out)?;
    let index = out.join("index.html");
    let html = std::fs::read_to_string(&index).map_err(|e| format!("{}: {e}", index.display()))?;
    let html = with_integrity(&html, out, base)?;
    let register = include_str!("dist/register.js").replace("__BASE__", base);
    let (html, init) = externalize_init(&html, base, &register)?;
    std::fs::write(out.join(&init.0), init.1).map_err(|e| format!("{}: {e}", init.0))?;
    let html = with_csp_meta(&html)?;
    std::fs::write(&index, html).map_err(|e| format!("{}: {e}", index.display()))?;
    std::fs::write(out.join("_headers"), headers(base)).map_err(|e| format!("_headers: {e}"))?;
    std::fs::write(out.join("HOSTING.md"), HOSTING).map_err(|e| format!("HOSTING.md: {e}"))?;
    let offline = offline_files(out)?;
    std::fs::write(out.join("sw.js"), service_worker(out, base, &offline)?).map_err(|e| format!("sw.js: {e}"))?;
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

/// `wasm-opt`'s flags after the level ([`opt_level`]): no names or DWARF,
/// and the features Rust's wasm32 target emits (binaryen assumes none).
pub const WASM_OPT: &[&str] = &[
    "--strip-debug",
    "--strip-producers",
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-reference-types",
    "--enable-multivalue",
];

/// The page's module is shrunk hardest (`-Oz`: it only renders); the
/// Worker's keeps the speed-minded inlining `-Oz` drops (`-Os`: it plans).
/// Figures in docs/benchmarks.md.
fn opt_level(module: &Path) -> &'static str {
    let name = module.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if name.starts_with("worker") {
        "-Os"
    } else {
        "-Oz"
    }
}

/// Every `.wasm` at the top of `out` through `wasm-opt`, all at once (a
/// module is replaced only once its optimised copy is complete).
fn optimise(out: &Path) -> crate::Result {
    let wasm_opt = setup::wasm_opt();
    if !wasm_opt.is_file() {
        return Err(format!("{} is missing: `cargo xtask setup` installs npm binaryen", wasm_opt.display()));
    }
    let mut modules = Vec::new();
    for entry in std::fs::read_dir(out).map_err(|e| format!("{}: {e}", out.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.extension().is_some_and(|e| e == "wasm") {
            modules.push(path);
        }
    }
    let started = std::time::Instant::now();
    let children: Vec<_> = modules
        .iter()
        .map(|m| {
            let tmp = m.with_extension("wasm.opt");
            let child = Command::new(&wasm_opt)
                .arg(m)
                .arg("-o")
                .arg(&tmp)
                .arg(opt_level(m))
                .args(WASM_OPT)
                .spawn()
                .map_err(|e| format!("{}: {e}", wasm_opt.display()));
            (m, tmp, child)
        })
        .collect();
    for (module, tmp, child) in children {
        let status = child?.wait().map_err(|e| format!("wasm-opt: {e}"))?;
        if !status.success() {
            return Err(format!("wasm-opt {} failed ({status})", module.display()));
        }
        let before = std::fs::metadata(module).map(|m| m.len()).unwrap_or(0);
        std::fs::rename(&tmp, module).map_err(|e| format!("{}: {e}", module.display()))?;
        let after = std::fs::metadata(module).map(|m| m.len()).unwrap_or(0);
        println!(
            "dist: wasm-opt {}: {:.2} MB -> {:.2} MB",
            module.file_name().unwrap_or_default().to_string_lossy(),
            before as f64 / 1e6,
            after as f64 / 1e6
        );
    }
    println!("dist: wasm-opt took {:.1}s", started.elapsed().as_secs_f64());
    Ok(())
}

/// `html` with every `integrity="sha384-…"` digest computed again from the
/// file its tag names (`href` or `src` under `base`), so files changed
/// after Trunk (the optimised modules) still pass Subresource Integrity.
pub fn with_integrity(html: &str, out: &Path, base: &str) -> crate::Result<String> {
    use sha2::{Digest, Sha384};
    let mut page = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        let close = rest[open..].find('>').map(|c| open + c + 1).unwrap_or(rest.len());
        let tag = &rest[open..close];
        page.push_str(&rest[..open]);
        match (attr(tag, "integrity"), attr(tag, "href").or_else(|| attr(tag, "src"))) {
            (Some(old), Some(url)) => {
                let file = url.strip_prefix(base).ok_or_else(|| format!("dist: {url} is not under {base}"))?;
                let path = out.join(file);
                let bytes =
                    std::fs::read(&path).map_err(|e| format!("dist: {} (integrity of {url}): {e}", path.display()))?;
                let digest = format!("sha384-{}", base64(&Sha384::digest(&bytes)));
                page.push_str(&tag.replace(&format!("integrity=\"{old}\""), &format!("integrity=\"{digest}\"")));
            }
            _ => page.push_str(tag),
        }
        rest = &rest[close..];
    }
    page.push_str(rest);
    Ok(page)
}

/// The value of `name="…"` in one tag.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let at = tag.find(&key)? + key.len();
    Some(&tag[at..at + tag[at..].find('"')?])
}

/// Standard base64 with padding (RFC 4648 §4), as SRI digests are written.
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// What the service worker keeps, relative to the page (`""` is the page
/// itself): the files at the top of `out` but the headers, the hosting note
/// and the worker itself, and the demo's model and source archive. The
/// tests' other fixtures are fetched from the network when asked.
pub fn offline_files(out: &Path) -> crate::Result<Vec<String>> {
    let mut files = vec![String::new()];
    for entry in std::fs::read_dir(out).map_err(|e| format!("{}: {e}", out.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let skip = ["index.html", "_headers", "HOSTING.md", "sw.js"].contains(&name.as_str())
            || name.ends_with(".gz")
            || name.ends_with(".br");
        if entry.path().is_file() && !skip {
            files.push(name);
        }
    }
    files.extend(DEMO_FILES.iter().map(|f| f.to_string()));
    files.sort();
    Ok(files)
}

/// The demo as `?demo` fetches it.
const DEMO_FILES: [&str; 2] = ["fixtures/demo/model.jsonl", "fixtures/demo/demo-src.zip"];

/// `sw.js` for `files`: its version is a hash of every file's path and
/// content, so any change to the page makes a new version.
fn service_worker(out: &Path, base: &str, files: &[String]) -> crate::Result<String> {
    let mut all = Vec::new();
    for f in files {
        let path = if f.is_empty() { out.join("index.html") } else { out.join(f) };
        let bytes = std::fs::read(&path).map_err(|e| format!("dist: {} (for sw.js): {e}", path.display()))?;
        all.extend_from_slice(f.as_bytes());
        all.push(0);
        all.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        all.extend_from_slice(&bytes);
    }
    let list = files.iter().map(|f| format!("'{f}'")).collect::<Vec<_>>().join(", ");
    Ok(include_str!("dist/sw.js")
        .replace("__VERSION__", &format!("{:016x}", fnv(&all)))
        .replace("__BASE__", base)
        .replace("__FILES__", &format!("[{list}]")))
}

/// Trunk's inline `<script type="module">` as a file of its own, with
/// `extra` after it: the page's new text and `(file name, script)`.
fn externalize_init(html: &str, base: &str, extra: &str) -> crate::Result<(String, (String, String))> {
    let open = "<script type=\"module\">";
    let start = html.find(open).ok_or("dist: Trunk wrote no inline module script into index.html")?;
    let body_start = start + open.len();
    let end = html[body_start..].find("</script>").ok_or("dist: the inline module script has no end")? + body_start;
    let script = format!("{}\n{extra}", html[body_start..end].trim()).trim_end().to_owned();
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
        let (page, (name, script)) = externalize_init(html, "/x/", "").unwrap();
        assert!(name.starts_with("init-") && name.ends_with(".js"), "{name}");
        assert_eq!(page, format!("<head><script type=\"module\" src=\"/x/{name}\"></script><link></head>"));
        assert_eq!(script, "import init from '/x/a.js';\nawait init();\n");
        assert!(externalize_init("<head></head>", "/", "").unwrap_err().contains("no inline module script"));
        let two = format!("{html}{html}");
        assert!(externalize_init(&two, "/", "").unwrap_err().contains("more than one"));
        let (_, (other, with)) = externalize_init(html, "/x/", "register();\n").unwrap();
        assert_eq!(with, "import init from '/x/a.js';\nawait init();\nregister();\n");
        assert_ne!(other, name, "the name follows the content");
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
    fn integrity_digests_are_computed_from_the_files() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        let dir = std::env::temp_dir().join(format!("xtask-sri-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.js"), "alert(1)").unwrap();
        let html =
            "<link rel=\"modulepreload\" href=\"/x/a.js\" integrity=\"sha384-old\"><p>text</p><link href=\"/x/b.css\">";
        let page = with_integrity(html, &dir, "/x/").unwrap();
        // `printf 'alert(1)' | openssl dgst -sha384 -binary | base64`
        assert_eq!(
            page,
            "<link rel=\"modulepreload\" href=\"/x/a.js\" integrity=\"sha384-HT2E9NfWiuQ/w1PRai+hTyqW16NIoCGA/m8VQDUopfAtcz6YQjtsMmQd5uRbVDpW\"><p>text</p><link href=\"/x/b.css\">"
        );
        let missing = "<link href=\"/x/gone.wasm\" integrity=\"sha384-old\">";
        assert!(with_integrity(missing, &dir, "/x/").unwrap_err().contains("gone.wasm"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_service_worker_keeps_the_shell_and_the_demo_under_a_version_of_their_content() {
        let dir = std::env::temp_dir().join(format!("xtask-sw-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("fixtures/demo")).unwrap();
        for f in ["index.html", "web_bg.wasm", "web_bg.wasm.br", "_headers", "HOSTING.md", "worker.js"] {
            std::fs::write(dir.join(f), f).unwrap();
        }
        for f in DEMO_FILES {
            std::fs::write(dir.join(f), f).unwrap();
        }
        let files = offline_files(&dir).unwrap();
        assert_eq!(files, ["", "fixtures/demo/demo-src.zip", "fixtures/demo/model.jsonl", "web_bg.wasm", "worker.js"]);
        let sw = service_worker(&dir, "/sub/", &files).unwrap();
        assert!(sw.contains("const BASE = '/sub/';"), "{sw}");
        assert!(sw.contains("const FILES = ['', 'fixtures/demo/demo-src.zip', 'fixtures/demo/model.jsonl', 'web_bg.wasm', 'worker.js'];"));
        assert!(!sw.contains("__"), "every placeholder is filled");
        std::fs::write(dir.join("worker.js"), "worker.js, changed").unwrap();
        let version = |sw: &str| sw.lines().find(|l| l.starts_with("const VERSION")).unwrap().to_owned();
        assert_ne!(version(&sw), version(&service_worker(&dir, "/sub/", &files).unwrap()));
        let _ = std::fs::remove_dir_all(&dir);
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
