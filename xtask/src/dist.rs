//! `cargo xtask dist [--locked] [--unordered]`: builds the release binary that the npm packages
//! ship, for this machine's target, and prints its path (stdout) and size (stderr).
//!
//! On `*-linux-gnu` targets the binary is linked statically (`+crt-static`, a static PIE, so
//! address-space randomisation is kept) with packed relative relocations (`-z
//! pack-relative-relocs`). Two reasons, both measured (`docs/guide/getting-started.md`, "From a
//! checkout"):
//! - it runs on any Linux with a 3.2+ kernel, whatever its C library (a dynamically linked build
//!   made here needs glibc 2.34 or newer, so it would not start on older distributions, or on
//!   musl ones such as Alpine);
//! - its resident memory after `initialize` is lower: no shared libraries to map (the C library
//!   alone was about 1.2 MiB of the dynamic build's 3.9 MiB), and a relocation table of a few KiB
//!   instead of about 300 KiB.
//!
//! The flags go in `CARGO_TARGET_<TRIPLE>_RUSTFLAGS` with an explicit `--target`, so build
//! scripts and procedural macros (which cannot be static) are built as usual, in their own
//! folder (`target/<triple>/release/`). `RUSTFLAGS` or `CARGO_ENCODED_RUSTFLAGS` set by the caller
//! win over them (cargo's precedence), giving an ordinary dynamic build. Other targets (macOS,
//! Windows) are built as they are.
//!
//! On x86-64 Linux, with LLD as the linker (rustc's default there), the code that starts the
//! server and answers a first session is also placed first, in the order it runs; `order.rs`
//! says why (it halved resident memory after `initialize`: 2.88 to 1.45 MiB). That takes
//! two links of the binary crate (`cargo rustc`, so the dependencies are built once):
//! 1. with its symbol table (`-C strip=none`). `order::trace` runs it through a short MCP
//!    session ([`trace_session`]: `initialize`, `ping`, `tools/list`, one `tools/call`), checks
//!    that every request was answered, and the functions it ran are written, in first-run order,
//!    to `botmesh-mcp.order` beside the binary;
//! 2. stripped, as the release profile says, with `--symbol-ordering-file` naming that list and
//!    a linker map (`botmesh-mcp.map`), in which `check_placement` verifies that the traced
//!    functions did land at the start of the code.
//!
//! A machine that forbids `ptrace` (or links with another linker) fails the build with the
//! reason; `--unordered` skips the step: the same program, laid out as the linker likes.
use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The flags of a `*-linux-gnu` distribution build.
const LINUX_GNU_RUSTFLAGS: &str =
    "-C target-feature=+crt-static -C link-arg=-Wl,-z,pack-relative-relocs";

pub(crate) fn run(args: &[&str]) -> Result<(), Box<dyn Error>> {
    let (mut locked, mut ordered) = (false, true);
    for arg in args {
        match *arg {
            "--locked" => locked = true,
            "--unordered" => ordered = false,
            _ => return Err("usage: cargo xtask dist [--locked] [--unordered]".into()),
        }
    }
    let binary = build(&crate::project_root(), locked, ordered)?;
    let size = std::fs::metadata(&binary)?.len();
    eprintln!(
        "built {} ({size} bytes, {:.2} MiB)",
        binary.display(),
        size as f64 / (1024.0 * 1024.0)
    );
    println!("{}", binary.display());
    Ok(())
}

/// The MCP session the start-up trace runs: the functions it runs first come first in the
/// binary, start-up and `initialize` before anything else.
fn trace_session() -> Result<Vec<u8>, Box<dyn Error>> {
    let document: serde_json::Value =
        serde_json::from_str(botmesh_flow_schema::EXAMPLE_FLOW_DOCUMENT)?;
    let requests = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "xtask-dist", "version": "1"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "flow_validate", "arguments": {"document": document}}}),
    ];
    let mut session = Vec::new();
    for request in requests {
        serde_json::to_writer(&mut session, &request)?;
        session.push(b'\n');
    }
    Ok(session)
}

/// How many requests of [`trace_session`] expect an answer (ids 1 to this).
const TRACE_ANSWERS: u64 = 4;

/// Builds the distribution binary and returns its path. `ordered`: place the start-up code
/// first where this machine can (see the module documentation).
pub(crate) fn build(root: &Path, locked: bool, ordered: bool) -> Result<PathBuf, Box<dyn Error>> {
    let triple = host_triple()?;
    let is_static = triple.ends_with("-linux-gnu");
    let ordered = ordered && triple == "x86_64-unknown-linux-gnu";
    let binary = path_for(root, &triple);
    let symbols: &[&str] = if ordered { &["-C", "strip=none"] } else { &[] };
    cargo_rustc(root, &triple, locked, is_static, symbols)?;
    let elf = std::fs::read(&binary)?;
    let caller_flags = ["RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS"]
        .iter()
        .any(|name| std::env::var_os(name).is_some_and(|value| !value.is_empty()));
    if is_static && !caller_flags && has_interpreter(&elf) {
        return Err(format!(
            "{} is dynamically linked; a {triple} distribution build must be static",
            binary.display()
        )
        .into());
    }
    if !ordered {
        return Ok(binary);
    }
    if !linked_by_lld(&elf) {
        return Err(format!(
            "{} was not linked by LLD, so its start-up code cannot be ordered; build with \
             --unordered",
            binary.display()
        )
        .into());
    }
    drop(elf);
    let trace = crate::order::trace(&binary, &[], trace_session()?).map_err(|error| {
        format!(
            "tracing the start-up of {}: {error} (--unordered skips this step)",
            binary.display()
        )
    })?;
    check_answers(&trace.stdout)?;
    // Absolute paths: the linker does not run in this process's folder.
    let order = std::path::absolute(binary.with_extension("order"))?;
    let map = std::path::absolute(binary.with_extension("map"))?;
    let mut list = trace.functions.join("\n");
    list.push('\n');
    std::fs::write(&order, list)?;
    eprintln!(
        "xtask dist: {} start-up symbols, in first-run order, in {}",
        trace.functions.len(),
        order.display()
    );
    let ordering = format!("link-arg=-Wl,--symbol-ordering-file={}", order.display());
    let map_arg = format!("link-arg=-Wl,-Map={}", map.display());
    cargo_rustc(
        root,
        &triple,
        locked,
        is_static,
        &[
            "-C",
            &ordering,
            "-C",
            "link-arg=-Wl,--no-warn-symbol-ordering",
            "-C",
            &map_arg,
        ],
    )?;
    let placed = check_placement(&std::fs::read_to_string(&map)?, &trace.functions)?;
    eprintln!("xtask dist: {placed}");
    Ok(binary)
}

/// Checks, in the linker's map of the ordered link, that the traced functions found there sit
/// together at the start of `.text`: 90 % of them within twice their total size (plus one
/// 64 KiB window) of its start. Otherwise the order file did not take effect (the symbol names
/// changed between the two links, say), and the build fails rather than ship a binary that
/// silently lost its layout. Answers a one-line summary.
fn check_placement(map: &str, traced: &[String]) -> Result<String, Box<dyn Error>> {
    let traced: std::collections::HashSet<&str> = traced.iter().map(String::as_str).collect();
    let mut lines = map.lines();
    // `VMA LMA Size Align Out In Symbol`: an output section's name starts in the "Out" column,
    // input sections and symbols further right.
    let (start, column) = lines
        .find_map(|line| {
            let name = line.split_whitespace().nth(4)?;
            (name == ".text").then(|| Some((hex(line)?, line.find(".text")?)))?
        })
        .ok_or("the linker map has no .text section")?;
    let mut found: Vec<(u64, u64)> = Vec::new();
    for line in lines {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [vma, _, size, _, name] = fields[..] else {
            continue;
        };
        let at = line.rfind(name).unwrap_or(0);
        if at <= column {
            break; // The next output section.
        }
        if at > column + 8
            && traced.contains(name)
            && let (Ok(vma), Ok(size)) =
                (u64::from_str_radix(vma, 16), u64::from_str_radix(size, 16))
        {
            found.push((vma, size));
        }
    }
    let total: u64 = found.iter().map(|(_, size)| size).sum();
    let limit = start + 2 * total + 64 * 1024;
    let near = found.iter().filter(|(vma, _)| *vma < limit).count();
    if found.len() < 10 || near * 10 < found.len() * 9 {
        return Err(format!(
            "the start-up order did not take effect: {near} of the {} traced functions in the \
             linker map are at the start of .text (did the symbol names change between the two \
             links?); --unordered builds without it",
            found.len()
        )
        .into());
    }
    Ok(format!(
        "{near} of the {} traced functions found in the linker map ({} KiB) are in the first {} \
         KiB of code",
        found.len(),
        total / 1024,
        (limit - start) / 1024
    ))
}

/// The hexadecimal number a linker map line starts with.
fn hex(line: &str) -> Option<u64> {
    u64::from_str_radix(line.split_whitespace().next()?, 16).ok()
}

/// `cargo rustc --release` of the binary for `triple`, with the distribution's flags and
/// `extra` arguments for its final `rustc` (only the binary crate sees them, so the
/// dependencies are not rebuilt when they change).
fn cargo_rustc(
    root: &Path,
    triple: &str,
    locked: bool,
    is_static: bool,
    extra: &[&str],
) -> Result<(), Box<dyn Error>> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.args([
        "rustc",
        "--release",
        "-p",
        "botmesh-mcp-cli",
        "--bin",
        "botmesh-mcp",
        "--target",
        triple,
    ]);
    command.arg("--manifest-path").arg(root.join("Cargo.toml"));
    if locked {
        command.arg("--locked");
    }
    if !extra.is_empty() {
        command.arg("--").args(extra);
    }
    if is_static {
        command.env(rustflags_variable(triple), LINUX_GNU_RUSTFLAGS);
    }
    let status = command.status()?;
    if !status.success() {
        return Err(format!("cargo rustc --release --target {triple} failed ({status})").into());
    }
    Ok(())
}

/// Checks that the traced session answered every request with a result: the trace of a server
/// that failed early would order the wrong code.
fn check_answers(stdout: &[u8]) -> Result<(), Box<dyn Error>> {
    let mut answered = Vec::new();
    for line in stdout.split(|&byte| byte == b'\n') {
        if line.is_empty() {
            continue;
        }
        let answer: serde_json::Value = serde_json::from_slice(line).map_err(|error| {
            format!("the traced session printed a line that is not JSON ({error})")
        })?;
        match (
            answer.get("id").and_then(serde_json::Value::as_u64),
            answer.get("result"),
        ) {
            (Some(id), Some(_)) => answered.push(id),
            _ => return Err(format!("the traced session got a failed answer: {answer}").into()),
        }
    }
    if answered != (1..=TRACE_ANSWERS).collect::<Vec<_>>() {
        return Err(format!(
            "the traced session answered requests {answered:?}, expected 1 to {TRACE_ANSWERS}"
        )
        .into());
    }
    Ok(())
}

/// Whether LLD linked this ELF file (it says so in `.comment`); `--symbol-ordering-file` is an
/// LLD option.
fn linked_by_lld(elf: &[u8]) -> bool {
    elf.windows(12).any(|window| window == b"Linker: LLD ")
}

/// Where [`build`] puts the binary (built or not).
pub(crate) fn binary_path(root: &Path) -> Result<PathBuf, Box<dyn Error>> {
    Ok(path_for(root, &host_triple()?))
}

fn path_for(root: &Path, triple: &str) -> PathBuf {
    let name = if triple.contains("windows") {
        "botmesh-mcp.exe"
    } else {
        "botmesh-mcp"
    };
    crate::target_dir(root)
        .join(triple)
        .join("release")
        .join(name)
}

/// The target triple `rustc` builds for by default.
fn host_triple() -> Result<String, Box<dyn Error>> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(rustc).arg("-vV").output()?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(str::to_owned)
        .ok_or_else(|| "`rustc -vV` printed no host triple".into())
}

/// `CARGO_TARGET_<TRIPLE>_RUSTFLAGS`: the triple upper-cased, `-` and `.` as `_`.
fn rustflags_variable(triple: &str) -> String {
    let triple: String = triple
        .chars()
        .map(|c| match c {
            '-' | '.' => '_',
            c => c.to_ascii_uppercase(),
        })
        .collect();
    format!("CARGO_TARGET_{triple}_RUSTFLAGS")
}

/// Whether a 64-bit little-endian ELF file asks for a program interpreter (a `PT_INTERP`
/// program header), i.e. is dynamically linked. Anything else (another format, a truncated
/// file) answers `false`.
fn has_interpreter(elf: &[u8]) -> bool {
    const PT_INTERP: u64 = 3;
    let read = |offset, field, len| crate::elf::read(elf, offset, field, len);
    if !crate::elf::is_64_bit_little_endian(elf) {
        return false;
    }
    let (Some(phoff), Some(phentsize), Some(phnum)) =
        (read(0, 0x20, 8), read(0, 0x36, 2), read(0, 0x38, 2))
    else {
        return false;
    };
    (0..phnum).any(|index| {
        index
            .checked_mul(phentsize)
            .and_then(|header| read(phoff, header, 4))
            == Some(PT_INTERP)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_traced_session_expects_as_many_answers_as_it_asks() {
        let session = trace_session().unwrap();
        let requests: Vec<serde_json::Value> = session
            .split(|&byte| byte == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| serde_json::from_slice(line).unwrap())
            .collect();
        assert_eq!(requests[0]["method"], "initialize");
        let ids: Vec<u64> = requests.iter().filter_map(|r| r["id"].as_u64()).collect();
        assert_eq!(ids, (1..=TRACE_ANSWERS).collect::<Vec<_>>());
    }

    #[test]
    fn only_a_session_answered_in_full_and_without_errors_passes() {
        let answer = |id: u64| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
        let all: Vec<String> = (1..=TRACE_ANSWERS).map(answer).collect();
        assert!(check_answers(format!("{}\n", all.join("\n")).as_bytes()).is_ok());
        let short = all[..all.len() - 1].join("\n");
        assert!(
            check_answers(short.as_bytes())
                .unwrap_err()
                .to_string()
                .contains("answered requests [1, 2, 3]")
        );
        let failed = r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"no"}}"#;
        let with_error = format!("{}\n{failed}\n", all[..3].join("\n"));
        assert!(
            check_answers(with_error.as_bytes())
                .unwrap_err()
                .to_string()
                .starts_with("the traced session got a failed answer")
        );
        assert!(check_answers(b"not json\n").is_err());
        assert!(linked_by_lld(b"..Linker: LLD 22.1.2.."));
        assert!(!linked_by_lld(b"GCC: (Debian 12.2.0) 12.2.0"));
    }

    #[test]
    fn the_placement_check_tells_an_ordered_link_from_one_that_is_not() {
        // An lld map: `.text` at 0x1000, 12 traced functions of 0x40 bytes, then `.rodata`.
        let map = |traced_at: u64| {
            let mut map = String::new();
            map.push_str(
                "             VMA              LMA     Size Align Out     In      Symbol\n",
            );
            map.push_str("            1000             1000   100000    64 .text\n");
            map.push_str("            1000             1000    80000    16         a.o:(.text)\n");
            for index in 0..12u64 {
                let vma = traced_at + index * 0x40;
                map.push_str(&format!(
                    "{vma:>16x} {vma:>16x}       40     1                 traced_{index}\n"
                ));
            }
            map.push_str("          101000           101000      100    64 .rodata\n");
            map.push_str("          101000           101000        4     1                 late\n");
            map
        };
        let traced: Vec<String> = (0..12)
            .map(|index| format!("traced_{index}"))
            .chain(["late".to_owned(), "absent".to_owned()])
            .collect();
        let placed = check_placement(&map(0x1000), &traced).unwrap();
        assert!(
            placed.starts_with("12 of the 12 traced functions"),
            "{placed}"
        );
        let scattered = check_placement(&map(0x80000), &traced).unwrap_err();
        assert!(
            scattered
                .to_string()
                .starts_with("the start-up order did not take effect: 0 of the 12"),
            "{scattered}"
        );
        assert!(check_placement("no map here", &traced).is_err());
    }

    #[test]
    fn the_rustflags_variable_is_cargos_spelling() {
        assert_eq!(
            rustflags_variable("x86_64-unknown-linux-gnu"),
            "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUSTFLAGS"
        );
        assert_eq!(
            rustflags_variable("thumbv7em-none-eabihf"),
            "CARGO_TARGET_THUMBV7EM_NONE_EABIHF_RUSTFLAGS"
        );
    }

    #[test]
    fn a_program_interpreter_is_found_only_where_there_is_one() {
        // A minimal ELF64 header with two program headers at 0x40: PT_LOAD, then PT_INTERP.
        let mut elf = vec![0u8; 0x40 + 2 * 56];
        elf[..6].copy_from_slice(b"\x7fELF\x02\x01");
        elf[0x20] = 0x40; // e_phoff
        elf[0x36] = 56; // e_phentsize
        elf[0x38] = 2; // e_phnum
        elf[0x40] = 1; // PT_LOAD
        let mut dynamic = elf.clone();
        dynamic[0x40 + 56] = 3; // PT_INTERP
        elf[0x40 + 56] = 4; // PT_NOTE
        assert!(has_interpreter(&dynamic));
        assert!(!has_interpreter(&elf));
        assert!(!has_interpreter(&dynamic[..0x40 + 58]));
        assert!(!has_interpreter(b"MZ not an ELF file"));
        assert!(!has_interpreter(&[]));
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn this_dynamically_linked_test_program_has_an_interpreter() {
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        assert!(has_interpreter(&me));
    }
}
