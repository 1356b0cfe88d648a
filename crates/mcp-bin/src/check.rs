//! `botmesh-mcp check` (skeleton until the analyzer issue fills it in).
use std::ffi::OsString;
use std::process::ExitCode;

pub(crate) fn run(_args: Vec<OsString>) -> ExitCode {
    ExitCode::from(2)
}
