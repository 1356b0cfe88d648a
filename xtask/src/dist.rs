//! `cargo xtask dist [--locked]`: builds the release binary that the npm packages ship, for this
//! machine's target, and prints its path (stdout) and size (stderr).
//!
//! On `*-linux-gnu` targets the binary is linked statically (`+crt-static`, a static PIE, so
//! address-space randomisation is kept) with packed relative relocations (`-z
//! pack-relative-relocs`). Two reasons, both measured (`docs/guide/getting-started.md`, "From a
//! checkout"):
//! - it runs on any Linux with a 3.2+ kernel, whatever its C library (a dynamically linked build
//!   made here needs glibc 2.34 or newer, so it would not start on older distributions, or on
//!   musl ones such as Alpine);
//! - its resident memory after `initialize` is about a third lower: no shared libraries to map
//!   (the C library alone was about 1.2 MiB of the 3.9 MiB), and a relocation table of a few KiB
//!   instead of about 300 KiB.
//!
//! The flags go in `CARGO_TARGET_<TRIPLE>_RUSTFLAGS` with an explicit `--target`, so build
//! scripts and procedural macros (which cannot be static) are built as usual, in their own
//! folder (`target/<triple>/release/`). `RUSTFLAGS` or `CARGO_ENCODED_RUSTFLAGS` set by the caller
//! win over them (cargo's precedence), giving an ordinary dynamic build. Other targets (macOS,
//! Windows) are built as they are.
use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The flags of a `*-linux-gnu` distribution build.
const LINUX_GNU_RUSTFLAGS: &str =
    "-C target-feature=+crt-static -C link-arg=-Wl,-z,pack-relative-relocs";

pub(crate) fn run(args: &[&str]) -> Result<(), Box<dyn Error>> {
    let locked = match args {
        [] => false,
        ["--locked"] => true,
        _ => return Err("usage: cargo xtask dist [--locked]".into()),
    };
    let binary = build(&crate::project_root(), locked)?;
    let size = std::fs::metadata(&binary)?.len();
    eprintln!(
        "built {} ({size} bytes, {:.2} MiB)",
        binary.display(),
        size as f64 / (1024.0 * 1024.0)
    );
    println!("{}", binary.display());
    Ok(())
}

/// Builds the distribution binary and returns its path.
pub(crate) fn build(root: &Path, locked: bool) -> Result<PathBuf, Box<dyn Error>> {
    let triple = host_triple()?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.args([
        "build",
        "--release",
        "-p",
        "botmesh-mcp-cli",
        "--target",
        &triple,
    ]);
    command.arg("--manifest-path").arg(root.join("Cargo.toml"));
    if locked {
        command.arg("--locked");
    }
    let is_static = triple.ends_with("-linux-gnu");
    if is_static {
        command.env(rustflags_variable(&triple), LINUX_GNU_RUSTFLAGS);
    }
    let status = command.status()?;
    if !status.success() {
        return Err(format!("cargo build --release --target {triple} failed ({status})").into());
    }
    let binary = path_for(root, &triple);
    let caller_flags = ["RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS"]
        .iter()
        .any(|name| std::env::var_os(name).is_some_and(|value| !value.is_empty()));
    if is_static && !caller_flags && has_interpreter(&std::fs::read(&binary)?) {
        return Err(format!(
            "{} is dynamically linked; a {triple} distribution build must be static",
            binary.display()
        )
        .into());
    }
    Ok(binary)
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
    const PT_INTERP: u32 = 3;
    let read = |at: usize, len: usize| -> Option<u64> {
        let bytes = elf.get(at..at + len)?;
        Some(
            bytes
                .iter()
                .rev()
                .fold(0u64, |value, &byte| (value << 8) | u64::from(byte)),
        )
    };
    // Magic, 64-bit class, little-endian.
    if elf.get(..6) != Some(b"\x7fELF\x02\x01".as_slice()) {
        return false;
    }
    let (Some(phoff), Some(phentsize), Some(phnum)) = (read(0x20, 8), read(0x36, 2), read(0x38, 2))
    else {
        return false;
    };
    (0..phnum).any(|index| {
        usize::try_from(phoff + index * phentsize)
            .ok()
            .and_then(|at| read(at, 4))
            == Some(u64::from(PT_INTERP))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
