//! `cargo xtask setup`: install whatever the web build and the tests need,
//! idempotently. Each step prints one line: `present` or `installed`.
//!
//! | step | check | install |
//! |---|---|---|
//! | wasm32 target | `rustup target list --installed` | `rustup target add wasm32-unknown-unknown` |
//! | clang, chromium, chromedriver | `dpkg-query` | `apt-get update` (only then) + `apt-get install -y` |
//! | Trunk | `trunk --version` = [`TRUNK_VERSION`] | `cargo install --locked trunk@…` |
//! | wasm-bindgen CLI | `wasm-bindgen --version` = the locked `wasm-bindgen` | `cargo install wasm-bindgen-cli --version … --no-default-features` |
//! | playwright-core, axe-core, binaryen (`wasm-opt`), mermaid | `tests/e2e/node_modules/<package>/package.json` | `npm ci` in `tests/e2e` |
//! | llama-cpp-python + SmolLM2 | the venv's `llama_cpp` version and the GGUF | see [`crate::local_llm`] |

use crate::root;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub const TRUNK_VERSION: &str = "0.21.14";
pub const PLAYWRIGHT_VERSION: &str = "1.64.1";
/// The accessibility engine the E2E tests run on every tab (as `tests/e2e/package.json` pins it).
pub const AXE_VERSION: &str = "4.14.1";
/// The `wasm-opt` of `cargo xtask dist` (npm's binaryen: Debian's 108
/// corrupts the module), as `tests/e2e/package.json` pins it.
pub const BINARYEN_VERSION: &str = "132.0.0";
/// The Mermaid that tests/e2e/domain-markdown.test.mjs parses and renders the
/// `domain` command's diagrams with, as `tests/e2e/package.json` pins it.
pub const MERMAID_VERSION: &str = "12.3.0";
pub const WASM_TARGET: &str = "wasm32-unknown-unknown";
const APT_PACKAGES: &[&str] = &["clang", "chromium", "chromium-driver"];

pub fn run() -> crate::Result {
    ensure_cargo_bin_on_path();
    wasm_target()?;
    apt_packages()?;
    trunk()?;
    wasm_bindgen_cli()?;
    playwright()?;
    Ok(())
}

/// `cargo xtask setup`: everything [`run`] installs, and the real local
/// model of the `real-llm` test stage and `bench real-llm` (which install
/// it themselves when missing; the other commands never need it).
pub fn run_all() -> crate::Result {
    run()?;
    crate::local_llm::install(&report)
}

pub fn report(what: &str, state: &str) {
    println!("setup: {what:<40} {state}");
}

/// `cargo install` puts binaries in `$CARGO_HOME/bin`; make sure this
/// process (and every child) finds them even if the shell's PATH lacks it.
pub fn ensure_cargo_bin_on_path() {
    let bin = cargo_home().join("bin");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    if !dirs.iter().any(|d| d == &bin) {
        dirs.push(bin);
        if let Ok(joined) = std::env::join_paths(dirs) {
            std::env::set_var("PATH", joined);
        }
    }
}

fn cargo_home() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_else(|| PathBuf::from(".cargo"))
}

/// The cargo that runs us (`$CARGO`), else `cargo` from PATH.
pub fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// stdout of a command, if it ran and succeeded.
fn output_of(cmd: &mut Command) -> Option<String> {
    let out = cmd.stdin(Stdio::null()).stderr(Stdio::null()).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Run a command, streaming its output; fail with a readable message.
pub fn run_cmd(cmd: &mut Command) -> crate::Result {
    let shown = format!("{cmd:?}");
    let status = cmd.stdin(Stdio::null()).status().map_err(|e| format!("cannot run {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}

fn wasm_target() -> crate::Result {
    let what = format!("rust target {WASM_TARGET}");
    let installed = output_of(Command::new("rustup").args(["target", "list", "--installed"]));
    match installed {
        Some(list) if list.lines().any(|l| l.trim() == WASM_TARGET) => {
            report(&what, "present");
            Ok(())
        }
        Some(_) => {
            run_cmd(Command::new("rustup").args(["target", "add", WASM_TARGET]))?;
            report(&what, "installed");
            Ok(())
        }
        None => {
            // No rustup: accept a toolchain that has the target's std anyway.
            let sysroot = output_of(Command::new("rustc").args(["--print", "sysroot"]))
                .ok_or("neither rustup nor rustc --print sysroot works")?;
            let lib = Path::new(sysroot.trim()).join("lib/rustlib").join(WASM_TARGET);
            if lib.is_dir() {
                report(&what, "present");
                Ok(())
            } else {
                Err(format!("{WASM_TARGET} is missing and rustup is not available to add it"))
            }
        }
    }
}

fn dpkg_installed(package: &str) -> bool {
    output_of(Command::new("dpkg-query").args(["-W", "-f=${Status}", package]))
        .is_some_and(|s| s.trim() == "install ok installed")
}

fn apt_packages() -> crate::Result {
    ensure_apt(APT_PACKAGES, &["clang", "chromium", "chromedriver"])
}

/// Installs the Debian `packages` that are missing (`apt-get update` only
/// then); without dpkg, accepts the `binaries` if they are on PATH.
pub fn ensure_apt(packages: &[&str], binaries: &[&str]) -> crate::Result {
    let what = format!("apt {}", packages.join(" "));
    let have_dpkg = output_of(Command::new("dpkg-query").arg("--version")).is_some();
    if !have_dpkg {
        // Not Debian: accept the tools if they are on PATH.
        let missing: Vec<&str> = binaries.iter().copied().filter(|b| which(b).is_none()).collect();
        if missing.is_empty() {
            report(&what, "present");
            return Ok(());
        }
        return Err(format!("no apt/dpkg here; please install: {}", missing.join(", ")));
    }
    let missing: Vec<&str> = packages.iter().copied().filter(|p| !dpkg_installed(p)).collect();
    if missing.is_empty() {
        report(&what, "present");
        return Ok(());
    }
    let sudo = !is_root() && which("sudo").is_some();
    let apt = |args: &[&str]| {
        let mut cmd = if sudo {
            let mut c = Command::new("sudo");
            c.arg("apt-get");
            c
        } else {
            Command::new("apt-get")
        };
        cmd.env("DEBIAN_FRONTEND", "noninteractive").args(args);
        cmd
    };
    run_cmd(&mut apt(&["update", "-qq"]))?;
    let mut install = apt(&["install", "-y", "-qq", "--no-install-recommends"]);
    install.args(&missing);
    run_cmd(&mut install)?;
    report(&format!("apt {}", missing.join(" ")), "installed");
    Ok(())
}

fn is_root() -> bool {
    output_of(Command::new("id").arg("-u")).is_some_and(|s| s.trim() == "0")
}

pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file())
}

/// The version word of `<tool> --version` (e.g. `trunk 0.21.14` -> `0.21.14`).
fn tool_version(tool: &str) -> Option<String> {
    let out = output_of(Command::new(tool).arg("--version"))?;
    out.split_whitespace().nth(1).map(str::to_owned)
}

fn trunk() -> crate::Result {
    let what = format!("trunk {TRUNK_VERSION}");
    if tool_version("trunk").as_deref() == Some(TRUNK_VERSION) {
        report(&what, "present");
        return Ok(());
    }
    run_cmd(cargo().args(["install", "--locked", &format!("trunk@{TRUNK_VERSION}")]))?;
    report(&what, "installed");
    Ok(())
}

/// The `wasm-bindgen` crate version in the workspace's Cargo.lock.
pub fn locked_wasm_bindgen() -> crate::Result<String> {
    let lock_path = root().join("Cargo.lock");
    let lock = std::fs::read_to_string(&lock_path).map_err(|e| format!("cannot read {}: {e}", lock_path.display()))?;
    locked_version(&lock, "wasm-bindgen").ok_or_else(|| format!("no `wasm-bindgen` package in {}", lock_path.display()))
}

/// Find `version` of the `[[package]]` named `name` in a Cargo.lock text.
fn locked_version(lock: &str, name: &str) -> Option<String> {
    let wanted = format!("name = \"{name}\"");
    let mut in_it = false;
    for line in lock.lines().map(str::trim) {
        if line == "[[package]]" {
            in_it = false;
        } else if line == wanted {
            in_it = true;
        } else if in_it {
            if let Some(v) = line.strip_prefix("version = \"") {
                return v.strip_suffix('"').map(str::to_owned);
            }
        }
    }
    None
}

fn wasm_bindgen_cli() -> crate::Result {
    let version = locked_wasm_bindgen()?;
    let what = format!("wasm-bindgen-cli {version}");
    let runner_ok = which("wasm-bindgen-test-runner").is_some();
    if runner_ok && tool_version("wasm-bindgen").as_deref() == Some(version.as_str()) {
        report(&what, "present");
        return Ok(());
    }
    // No --locked: its lockfile pins a crate version the registry here lacks.
    run_cmd(cargo().args(["install", "wasm-bindgen-cli", "--version", &version, "--no-default-features", "--force"]))?;
    report(&what, "installed");
    Ok(())
}

pub fn e2e_dir() -> PathBuf {
    root().join("tests").join("e2e")
}

/// npm binaryen's `wasm-opt` (installed with the E2E packages).
pub fn wasm_opt() -> PathBuf {
    e2e_dir().join("node_modules").join(".bin").join("wasm-opt")
}

fn playwright() -> crate::Result {
    let wanted = [
        ("playwright-core", PLAYWRIGHT_VERSION),
        ("axe-core", AXE_VERSION),
        ("binaryen", BINARYEN_VERSION),
        ("mermaid", MERMAID_VERSION),
    ];
    let what = wanted.iter().map(|(name, v)| format!("{name} {v}")).collect::<Vec<_>>().join(", ");
    let what = format!("npm {what}");
    let dir = e2e_dir();
    let installed = wanted.iter().all(|(name, version)| {
        std::fs::read_to_string(dir.join("node_modules").join(name).join("package.json"))
            .ok()
            .is_some_and(|s| s.contains(&format!("\"version\": \"{version}\"")))
    });
    if installed {
        report(&what, "present");
        return Ok(());
    }
    if which("npm").is_none() {
        return Err("npm is not installed (needed for the browser end-to-end tests)".into());
    }
    let ci = dir.join("package-lock.json").is_file();
    let mut cmd = Command::new("npm");
    cmd.current_dir(&dir).args([if ci { "ci" } else { "install" }, "--no-audit", "--no-fund", "--loglevel=error"]);
    run_cmd(&mut cmd)?;
    report(&what, "installed");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::locked_version;

    #[test]
    fn reads_a_locked_version() {
        let lock = r#"
[[package]]
name = "wasm-bindgen-futures"
version = "0.4.1"

[[package]]
name = "wasm-bindgen"
version = "0.2.130"
source = "registry+https://github.com/rust-lang/crates.io-index"
"#;
        assert_eq!(locked_version(lock, "wasm-bindgen").as_deref(), Some("0.2.130"));
        assert_eq!(locked_version(lock, "nope"), None);
    }
}
