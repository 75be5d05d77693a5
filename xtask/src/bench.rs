#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> crate::Result {
    Err("not implemented yet".into())
}
