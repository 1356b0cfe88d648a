//! `cargo xtask schema [--check]` (skeleton until the flow-schema issue fills it in).
use std::error::Error;

pub(crate) fn run(_args: &[&str]) -> Result<(), Box<dyn Error>> {
    Err("not yet implemented".into())
}
