//! `cargo xtask npm` (skeleton until the distribution issue fills it in).
use std::error::Error;

pub(crate) fn run(_args: &[&str]) -> Result<(), Box<dyn Error>> {
    let _ = crate::project_root();
    Err("not yet implemented".into())
}
