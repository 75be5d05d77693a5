//! The dedicated Worker binary (Trunk `data-bin="worker" data-type="worker"`).

#[cfg(target_arch = "wasm32")]
fn main() {
    web_worker::worker::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the worker only runs in a browser: use `cargo xtask serve`");
}
