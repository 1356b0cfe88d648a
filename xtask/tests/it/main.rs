//! `cargo xtask trace` end to end: it runs a real program (the `xtask` binary's own
//! `trace-fixture`, which calls one function in a second thread and never calls another) under
//! the tracer, and lists the functions that ran, each once, in the order they first ran.
#![cfg(all(target_os = "linux", target_arch = "x86_64"))]

use std::process::{Command, Stdio};

#[test]
fn the_tracer_lists_what_ran_once_in_first_run_order_threads_included() {
    let xtask = env!("CARGO_BIN_EXE_xtask");
    let output = Command::new(xtask)
        .args(["trace", xtask, "trace-fixture"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("; exit code 0"), "{stderr}");
    let listed = String::from_utf8(output.stdout).unwrap();
    let symbols: Vec<&str> = listed.lines().collect();
    // Mangled either way: `_ZN5xtask5order11run_fixture17h…E` or `_RNv…5xtask5order11run_fixture`.
    let position = |name: &str| symbols.iter().position(|symbol| symbol.contains(name));
    let main = position("5xtask8try_main").expect("xtask's try_main ran");
    let fixture = position("5order11run_fixture").expect("run_fixture ran");
    let in_thread = position("5order19fixture_in_a_thread").expect("the thread's function ran");
    assert!(main < fixture && fixture < in_thread, "{listed}");
    assert_eq!(position("5order20fixture_never_called"), None, "{listed}");
    let mut unique = symbols.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), symbols.len(), "a symbol is listed twice");
}

#[test]
fn a_program_that_cannot_be_traced_is_an_error_that_says_why() {
    let xtask = env!("CARGO_BIN_EXE_xtask");
    let output = Command::new(xtask)
        .args(["trace", "Cargo.toml"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Cargo.toml: not a 64-bit little-endian ELF file"),
        "{stderr}"
    );
}
