//! `cargo xtask dist [--locked] [--target TRIPLE]`: builds the release binary that an npm
//! platform package ships, checks its structure (`inspect.rs`) and prints its path (stdout) and
//! what was checked (stderr).
//!
//! [`PLATFORMS`] lists the six npm platforms and the Rust target each is built for. Linux
//! binaries are static executables (glibc linked in with `+crt-static`, still a
//! position-independent executable, with packed relative relocations): one file that runs on
//! any Linux with a 3.2+ kernel, glibc (Debian, Ubuntu, Fedora) or musl (Alpine) alike; the
//! server never looks up a host name or loads a module, the two things a static glibc cannot do
//! everywhere. Why not musl: DECISIONS.md, "Distribution: static glibc, not musl".
//!
//! How each target is linked, from a Linux x86-64 machine (`tools/cross/install.sh` installs
//! the toolchain: Rust targets, `zig` and `cargo-zigbuild` from PyPI, Debian's cross gcc for
//! arm64 Linux and mingw-w64 for Windows x86-64):
//! - Linux targets with `cargo build`, the flags in `CARGO_TARGET_<TRIPLE>_RUSTFLAGS` with an
//!   explicit `--target`, so build scripts and procedural macros (which cannot be static) are
//!   built as usual; arm64 from x86-64 with Debian's `aarch64-linux-gnu-gcc` and its static
//!   glibc (zig has no static glibc). `RUSTFLAGS` set by the caller wins (cargo's precedence),
//!   and the structural check then refuses the dynamic result;
//! - `x86_64-pc-windows-gnu` with `cargo build` and Debian's mingw-w64 linker;
//! - every other one with `cargo zigbuild` (zig as the cross linker). Apple targets get
//!   `MACOSX_DEPLOYMENT_TARGET` = Rust's own minimum for the target (11.0 on arm64, 10.12 on
//!   x86-64): without it zig records its own, newer, minimum and macOS 13 refuses to start the
//!   binary.
//!
//! On a native machine of a platform (the release workflow's runners), `cargo xtask dist` with
//! no `--target` builds that platform's target with plain `cargo build`.
//!
//! After the build, [`crate::inspect::check`] reads the file and refuses it unless it is what
//! the platform needs (format, architecture, static on Linux, system libraries only, the macOS
//! minimum and a valid code signature on arm64), and unless it is at most [`MAX_SIZE`] bytes.
use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The largest binary we ship, on every platform. Kept with room so that one more feature is a
/// decision, not an accident: raising it again needs a reason in DECISIONS.md ("Distribution:
/// the size budget"), where its history and figures are.
pub(crate) const MAX_SIZE: u64 = 7 * 1024 * 1024 + 512 * 1024;

/// The flags of a static Linux build.
const LINUX_STATIC_RUSTFLAGS: &str =
    "-C target-feature=+crt-static -C link-arg=-Wl,-z,pack-relative-relocs";

/// One npm platform package and how its binary is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Platform {
    /// npm's `process.platform-process.arch` (`linux-x64`), the package `@botmesh/mcp-<npm>`.
    pub(crate) npm: &'static str,
    /// The Rust target triple.
    pub(crate) triple: &'static str,
    /// The oldest macOS it must start on (`MACOSX_DEPLOYMENT_TARGET`), for Apple targets.
    pub(crate) macos_minimum: Option<&'static str>,
}

/// Every platform we publish a package for.
pub(crate) const PLATFORMS: [Platform; 6] = [
    Platform {
        npm: "linux-x64",
        triple: "x86_64-unknown-linux-gnu",
        macos_minimum: None,
    },
    Platform {
        npm: "linux-arm64",
        triple: "aarch64-unknown-linux-gnu",
        macos_minimum: None,
    },
    Platform {
        npm: "win32-x64",
        triple: "x86_64-pc-windows-gnu",
        macos_minimum: None,
    },
    Platform {
        npm: "win32-arm64",
        triple: "aarch64-pc-windows-gnullvm",
        macos_minimum: None,
    },
    Platform {
        npm: "darwin-arm64",
        triple: "aarch64-apple-darwin",
        macos_minimum: Some("11.0"),
    },
    Platform {
        npm: "darwin-x64",
        triple: "x86_64-apple-darwin",
        macos_minimum: Some("10.12"),
    },
];

/// The platform whose package is built for `triple`, if any. Native release runners build
/// other spellings of the same platform (`*-msvc` on Windows, `*-linux-gnu` on Linux): those
/// map to the same package.
pub(crate) fn platform_for_triple(triple: &str) -> Option<Platform> {
    PLATFORMS.iter().copied().find(|platform| {
        platform.triple == triple || {
            let (arch, os) = (arch_of(triple), os_of(triple));
            arch == arch_of(platform.triple) && os.is_some() && os == os_of(platform.triple)
        }
    })
}

fn arch_of(triple: &str) -> &str {
    triple.split('-').next().unwrap_or(triple)
}

fn os_of(triple: &str) -> Option<&'static str> {
    ["linux", "windows", "apple-darwin"]
        .into_iter()
        .find(|os| triple.contains(os))
}

/// The platform this machine would build by default: the host's.
pub(crate) fn host_platform() -> Result<Option<Platform>, Box<dyn Error>> {
    Ok(platform_for_triple(&host_triple()?))
}

pub(crate) fn run(args: &[&str]) -> Result<(), Box<dyn Error>> {
    let mut locked = false;
    let mut target = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match *arg {
            "--locked" => locked = true,
            "--target" => target = Some(*rest.next().ok_or("--target needs a triple")?),
            _ => return Err("usage: cargo xtask dist [--locked] [--target TRIPLE]".into()),
        }
    }
    let root = crate::project_root();
    let triple = match target {
        Some(triple) => triple.to_owned(),
        None => default_triple()?,
    };
    let binary = build(&root, &triple, locked)?;
    println!("{}", binary.display());
    Ok(())
}

/// The target `dist` builds with no `--target`: the host's platform target when we publish
/// one for it and it is a Linux one (a native Windows or macOS runner builds its own triple,
/// `*-msvc` on Windows), else the host's own triple.
fn default_triple() -> Result<String, Box<dyn Error>> {
    let host = host_triple()?;
    Ok(match platform_for_triple(&host) {
        Some(platform) if host.contains("linux") => platform.triple.to_owned(),
        _ => host,
    })
}

/// Builds the distribution binary for `triple`, checks it, reports it on stderr and returns
/// its path.
pub(crate) fn build(root: &Path, triple: &str, locked: bool) -> Result<PathBuf, Box<dyn Error>> {
    let host = host_triple()?;
    let platform = platform_for_triple(triple);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    let zig = uses_zig(triple, &host);
    command.arg(if zig { "zigbuild" } else { "build" });
    command.args([
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
    if let Some(minimum) = platform.and_then(|platform| platform.macos_minimum) {
        command.env("MACOSX_DEPLOYMENT_TARGET", minimum);
    }
    if triple.contains("-linux-") {
        command.env(rustflags_variable(triple), LINUX_STATIC_RUSTFLAGS);
        if triple == "aarch64-unknown-linux-gnu" && !host.starts_with("aarch64") {
            // Debian's cross gcc (package gcc-aarch64-linux-gnu) and its static glibc.
            command.env(
                "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER",
                "aarch64-linux-gnu-gcc",
            );
        }
    }
    if triple == "x86_64-pc-windows-gnu" && !host.contains("windows") {
        // Debian's mingw-w64 linker (package gcc-mingw-w64-x86-64).
        command.env(
            "CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER",
            "x86_64-w64-mingw32-gcc",
        );
    }
    let status = command
        .status()
        .map_err(|error| format!("cannot run cargo: {error}"))?;
    if !status.success() {
        let hint = if zig {
            " (cross targets need tools/cross/install.sh: zig and cargo-zigbuild)"
        } else {
            ""
        };
        return Err(format!("building {triple} failed ({status}){hint}").into());
    }
    let binary = path_for(root, triple);
    let bytes = std::fs::read(&binary)
        .map_err(|error| format!("cannot read {}: {error}", binary.display()))?;
    let size = bytes.len() as u64;
    let facts = match platform {
        Some(platform) => crate::inspect::check(&platform, &bytes)
            .map_err(|problems| format!("{}: {}", binary.display(), problems.join("; ")))?,
        None => vec!["not a published platform: not checked".to_owned()],
    };
    if size > MAX_SIZE {
        return Err(format!(
            "{} is {size} bytes, above the {MAX_SIZE}-byte budget",
            binary.display()
        )
        .into());
    }
    eprintln!(
        "built {} ({size} bytes, {:.2} MiB): {}",
        binary.display(),
        size as f64 / (1024.0 * 1024.0),
        facts.join(", ")
    );
    Ok(binary)
}

/// Whether `triple` is linked by zig here: anything but the host's own target, Linux (gcc)
/// and the mingw-linked Windows x86-64.
fn uses_zig(triple: &str, host: &str) -> bool {
    let native = triple == host || triple.contains("-linux-");
    let mingw = triple == "x86_64-pc-windows-gnu" && host.contains("linux");
    !(native || mingw)
}

/// Where [`build`] puts the binary for `triple` (built or not).
pub(crate) fn path_for(root: &Path, triple: &str) -> PathBuf {
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

/// The target triple `rustc` builds for by default.
pub(crate) fn host_triple() -> Result<String, Box<dyn Error>> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(rustc).arg("-vV").output()?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(str::to_owned)
        .ok_or_else(|| "`rustc -vV` printed no host triple".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_npm_platform_package_has_exactly_one_target() {
        let packages: Vec<String> = std::fs::read_dir(crate::project_root().join("npm"))
            .unwrap()
            .filter_map(|entry| {
                let name = entry.unwrap().file_name().to_string_lossy().into_owned();
                name.strip_prefix("mcp-").map(str::to_owned)
            })
            .collect();
        let mut expected: Vec<&str> = PLATFORMS.iter().map(|p| p.npm).collect();
        let mut found: Vec<&str> = packages.iter().map(String::as_str).collect();
        expected.sort_unstable();
        found.sort_unstable();
        assert_eq!(found, expected);
    }

    #[test]
    fn native_spellings_map_to_the_same_package() {
        let npm = |triple| platform_for_triple(triple).map(|p| p.npm);
        assert_eq!(npm("x86_64-unknown-linux-gnu"), Some("linux-x64"));
        assert_eq!(npm("x86_64-unknown-linux-musl"), Some("linux-x64"));
        assert_eq!(npm("aarch64-unknown-linux-gnu"), Some("linux-arm64"));
        assert_eq!(npm("x86_64-pc-windows-msvc"), Some("win32-x64"));
        assert_eq!(npm("aarch64-pc-windows-msvc"), Some("win32-arm64"));
        assert_eq!(npm("aarch64-apple-darwin"), Some("darwin-arm64"));
        assert_eq!(npm("x86_64-apple-darwin"), Some("darwin-x64"));
        assert_eq!(npm("x86_64-unknown-freebsd"), None);
        assert_eq!(npm("riscv64gc-unknown-linux-gnu"), None);
    }

    #[test]
    fn only_cross_targets_are_linked_by_zig() {
        let linux = "x86_64-unknown-linux-gnu";
        assert!(!uses_zig(linux, linux));
        assert!(!uses_zig("aarch64-unknown-linux-gnu", linux));
        assert!(!uses_zig("x86_64-pc-windows-gnu", linux));
        assert!(uses_zig("aarch64-pc-windows-gnullvm", linux));
        assert!(uses_zig("aarch64-apple-darwin", linux));
        assert!(!uses_zig("aarch64-apple-darwin", "aarch64-apple-darwin"));
        assert!(!uses_zig(
            "x86_64-pc-windows-msvc",
            "x86_64-pc-windows-msvc"
        ));
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
    fn apple_minimums_are_rusts_own() {
        let minimum = |npm| {
            PLATFORMS
                .iter()
                .find(|p| p.npm == npm)
                .and_then(|p| p.macos_minimum)
        };
        assert_eq!(minimum("darwin-arm64"), Some("11.0"));
        assert_eq!(minimum("darwin-x64"), Some("10.12"));
        assert_eq!(minimum("linux-x64"), None);
    }
}
