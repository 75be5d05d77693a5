pub fn run() -> crate::Result {
    Err("not implemented yet".into())
}
