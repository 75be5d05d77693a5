//! `cargo xtask serve`: build the page with Trunk and serve it on 127.0.0.1.
//!
//! By default this is `trunk serve` (rebuilds on change; COOP/COEP headers
//! come from `Trunk.toml`). `--static` instead does one `trunk build` and
//! serves `dist/` with [`StaticServer`], the same server the end-to-end tests
//! use. Files in `public/` (the demo fixtures) are served at `/public/…`.

use crate::root;
use crate::setup::{self, run_cmd};
use std::fs::File;
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::thread::JoinHandle;

#[derive(clap::Args)]
pub struct Args {
    /// Port on 127.0.0.1.
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Build with the release profile.
    #[arg(long)]
    release: bool,
    /// Build once and serve dist/ with the built-in static server (no rebuild on change).
    #[arg(long = "static")]
    static_only: bool,
}

pub fn run(args: Args) -> crate::Result {
    setup::run()?;
    if args.static_only {
        trunk_build(args.release)?;
        let server = StaticServer::start(&root().join("dist"), args.port)?;
        println!("serve: http://{}/?demo (the bundled demo; Ctrl-C to stop)", server.addr());
        server.join();
        return Ok(());
    }
    let mut cmd = trunk();
    cmd.args(["serve", "--address", "127.0.0.1", "--port", &args.port.to_string()]);
    if args.release {
        cmd.arg("--release");
    }
    println!("serve: http://127.0.0.1:{}/?demo (the bundled demo; Ctrl-C to stop)", args.port);
    run_cmd(&mut cmd)
}

fn trunk() -> Command {
    let mut cmd = Command::new("trunk");
    cmd.current_dir(root());
    cmd
}

/// `trunk build [--release]` into `dist/`.
pub fn trunk_build(release: bool) -> crate::Result {
    let mut cmd = trunk();
    cmd.arg("build");
    if release {
        cmd.arg("--release");
    }
    run_cmd(&mut cmd)
}

/// A small static file server for a Trunk `dist/` directory: correct MIME
/// types (incl. `application/wasm`), cross-origin isolation headers, and
/// caching as a plain web server does it: `Cache-Control: no-cache` (a
/// browser keeps the file but asks before reusing it) with an `ETag` from
/// the file's size and modification time, answered `304 Not Modified` when
/// it still matches, so a rebuilt page is never served stale and a warm
/// cache costs one round trip per file instead of its bytes.
pub struct StaticServer {
    server: Arc<tiny_http::Server>,
    addr: std::net::SocketAddr,
    thread: Option<JoinHandle<()>>,
}

impl StaticServer {
    /// Serve `dir` on 127.0.0.1:`port` (0 = any free port) from a background thread.
    pub fn start(dir: &Path, port: u16) -> crate::Result<Self> {
        Self::start_with(dir, port, Vec::new())
    }

    /// [`Self::start`], adding `extra` headers to every response (as a host
    /// applying a `dist` folder's `_headers` would).
    pub fn start_with(dir: &Path, port: u16, extra: Vec<(String, String)>) -> crate::Result<Self> {
        if extra.is_empty() && !dir.join("index.html").is_file() {
            return Err(format!("{} has no index.html (build first)", dir.display()));
        }
        let extra = Arc::new(extra);
        let server = tiny_http::Server::http(("127.0.0.1", port))
            .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
        let addr = server.server_addr().to_ip().ok_or("static server is not on an IP address")?;
        let server = Arc::new(server);
        let dir = dir.to_path_buf();
        let worker = Arc::clone(&server);
        let thread = std::thread::spawn(move || {
            for request in worker.incoming_requests() {
                let dir = dir.clone();
                let extra = Arc::clone(&extra);
                std::thread::spawn(move || respond(&dir, &extra, request));
            }
        });
        Ok(StaticServer { server, addr, thread: Some(thread) })
    }

    pub fn addr(&self) -> std::net::SocketAddr {
        self.addr
    }

    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Block until the server stops (i.e. forever, for `serve --static`).
    pub fn join(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn header(name: &str, value: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("valid header")
}

fn respond(dir: &Path, extra: &[(String, String)], request: tiny_http::Request) {
    let mut headers = vec![
        header("Cross-Origin-Opener-Policy", "same-origin"),
        header("Cross-Origin-Embedder-Policy", "require-corp"),
        header("Cross-Origin-Resource-Policy", "same-origin"),
        header("Cache-Control", "no-cache"),
    ];
    for (name, value) in extra {
        headers.retain(|h| !h.field.as_str().as_str().eq_ignore_ascii_case(name));
        headers.push(header(name, value));
    }
    let method_ok = matches!(request.method(), tiny_http::Method::Get | tiny_http::Method::Head);
    let file = method_ok.then(|| resolve(dir, request.url())).flatten();
    let result = match file.and_then(|p| File::open(&p).ok().map(|f| (p, f))) {
        Some((path, file)) => {
            let tag = file.metadata().ok().and_then(|m| etag(&m));
            let fresh = tag.as_deref().is_some_and(|tag| {
                request.headers().iter().any(|h| h.field.equiv("If-None-Match") && etag_matches(h.value.as_str(), tag))
            });
            headers.extend(tag.map(|t| header("ETag", &t)));
            if fresh {
                reply(request, tiny_http::Response::empty(304), headers)
            } else {
                headers.push(header("Content-Type", mime_type(&path)));
                reply(request, tiny_http::Response::from_file(file), headers)
            }
        }
        None => {
            let status = if method_ok { 404 } else { 405 };
            headers.push(header("Content-Type", "text/plain; charset=utf-8"));
            reply(request, tiny_http::Response::from_string("not found\n").with_status_code(status), headers)
        }
    };
    if let Err(e) = result {
        eprintln!("serve: {e}");
    }
}

fn reply<R: std::io::Read>(
    request: tiny_http::Request,
    mut response: tiny_http::Response<R>,
    headers: Vec<tiny_http::Header>,
) -> std::io::Result<()> {
    for h in headers {
        response.add_header(h);
    }
    request.respond(response)
}

/// A strong validator from the file's size and modification time (ns).
fn etag(meta: &std::fs::Metadata) -> Option<String> {
    let modified = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some(format!("\"{:x}-{:x}\"", meta.len(), modified.as_nanos()))
}

/// Whether an `If-None-Match` value (`*` or a list of tags, weak or strong)
/// names `tag` (weak comparison, as for GET).
fn etag_matches(if_none_match: &str, tag: &str) -> bool {
    fn bare(t: &str) -> &str {
        t.trim().trim_start_matches("W/")
    }
    if_none_match.trim() == "*" || if_none_match.split(',').any(|t| bare(t) == bare(tag))
}

/// Map a URL path to a file under `dir`; `None` for anything escaping it.
fn resolve(dir: &Path, url: &str) -> Option<PathBuf> {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let path = percent_decode(path)?;
    let mut file = dir.to_path_buf();
    for part in Path::new(path.trim_start_matches('/')).components() {
        match part {
            Component::Normal(p) => file.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if file.is_dir() {
        file.push("index.html");
    }
    file.is_file().then_some(file)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

pub fn mime_type(path: &Path) -> &'static str {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext.to_ascii_lowercase().as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "jsonl" | "ndjson" => "application/x-ndjson",
        "txt" | "md" => "text/plain; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_stays_inside_the_directory() {
        let dir = std::env::temp_dir().join(format!("xtask-serve-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("index.html"), "x").unwrap();
        std::fs::write(dir.join("sub/a b.js"), "x").unwrap();
        assert_eq!(resolve(&dir, "/"), Some(dir.join("index.html")));
        assert_eq!(resolve(&dir, "/sub/a%20b.js?v=1"), Some(dir.join("sub/a b.js")));
        assert_eq!(resolve(&dir, "/../etc/passwd"), None);
        assert_eq!(resolve(&dir, "/missing"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn etags_match_as_a_browser_sends_them() {
        assert!(etag_matches("\"a-1\"", "\"a-1\""));
        assert!(etag_matches("W/\"a-1\", \"b-2\"", "\"b-2\""));
        assert!(etag_matches("W/\"a-1\"", "\"a-1\""));
        assert!(etag_matches(" * ", "\"a-1\""));
        assert!(!etag_matches("\"a-2\"", "\"a-1\""));
        assert!(!etag_matches("", "\"a-1\""));
    }

    #[test]
    fn wasm_has_its_mime_type() {
        assert_eq!(mime_type(Path::new("x_bg.wasm")), "application/wasm");
        assert!(mime_type(Path::new("index.html")).starts_with("text/html"));
    }
}
