//! The page binary (Trunk `data-bin="web"`).

#[cfg(target_arch = "wasm32")]
fn main() {
    web::app::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the web page only runs in a browser: use `cargo xtask serve`");
}
