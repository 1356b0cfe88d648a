//! `cargo xtask inspect PLATFORM FILE`: the structural checks of a distribution binary, also run
//! by `cargo xtask dist` on every binary it builds. They prove here what can be proven without
//! the platform itself (no macOS and no Windows on arm64 here):
//! - ELF (Linux): the right machine, static (no program interpreter, no `DT_NEEDED`);
//! - PE (Windows): PE32+ for the right machine, importing only system DLLs;
//! - Mach-O (macOS): the right CPU, a minimum macOS no newer than the platform's (an
//!   `LC_BUILD_VERSION` of 15.0 refuses to start on macOS 13), only system libraries
//!   (`/usr/lib/`, `/System/`), and on arm64 a code signature whose page hashes match the file
//!   (the kernel kills an arm64 binary that is unsigned or whose signature went stale, for
//!   instance when it was stripped after signing).
//!
//! The file is read with the `object` crate (gimli-rs, the reader behind `addr2line` and the
//! standard library's backtraces); only the code signature, which `object` does not interpret,
//! is parsed here.
use object::macho::MachHeader64;
use object::read::elf::{Dyn, ElfFile64, FileHeader, ProgramHeader};
use object::read::macho::{LoadCommandVariant, MachHeader};
use object::read::pe::{ImageNtHeaders, PeFile64};
use object::{Endianness, LittleEndian as LE, elf, macho, pe};
use sha2::{Digest, Sha256};

use crate::dist::Platform;

/// DLLs every Windows installation has: the ones Rust's standard library (through mingw or
/// the MSVC runtime) may import. `api-ms-win-*` API sets are system DLLs too.
const SYSTEM_DLLS: &[&str] = &[
    "advapi32.dll",
    "bcrypt.dll",
    "bcryptprimitives.dll",
    "kernel32.dll",
    "msvcrt.dll",
    "ntdll.dll",
    "ucrtbase.dll",
    "userenv.dll",
    "vcruntime140.dll",
    "ws2_32.dll",
];

pub(crate) fn run(args: &[&str]) -> Result<(), Box<dyn std::error::Error>> {
    let [npm, file] = args else {
        return Err("usage: cargo xtask inspect PLATFORM FILE (PLATFORM as linux-x64)".into());
    };
    let platform = crate::dist::PLATFORMS
        .iter()
        .find(|platform| platform.npm == *npm)
        .ok_or_else(|| format!("unknown platform {npm}"))?;
    let bytes = std::fs::read(file).map_err(|error| format!("cannot read {file}: {error}"))?;
    match check(platform, &bytes) {
        Ok(facts) => {
            println!("{file}: {} bytes, {}", bytes.len(), facts.join(", "));
            Ok(())
        }
        Err(problems) => Err(format!("{file}: {}", problems.join("; ")).into()),
    }
}

/// Checks that `bytes` is a binary `platform` can run; answers what was verified, or every
/// problem found.
pub(crate) fn check(platform: &Platform, bytes: &[u8]) -> Result<Vec<String>, Vec<String>> {
    let arm = platform.triple.starts_with("aarch64");
    let result = if platform.triple.contains("linux") {
        check_elf(bytes, arm)
    } else if platform.triple.contains("windows") {
        check_pe(bytes, arm)
    } else {
        check_macho(bytes, arm, platform.macos_minimum.unwrap_or("11.0"))
    };
    result.map_err(|problems| {
        if problems.is_empty() {
            vec!["unreadable".to_owned()]
        } else {
            problems
        }
    })
}

fn unreadable(what: &str) -> impl Fn(object::Error) -> Vec<String> + '_ {
    move |error| vec![format!("not a readable {what} file ({error})")]
}

fn check_elf(bytes: &[u8], arm: bool) -> Result<Vec<String>, Vec<String>> {
    let file = ElfFile64::<Endianness>::parse(bytes).map_err(unreadable("64-bit ELF"))?;
    let endian = file.endian();
    let header = file.elf_header();
    let mut problems = Vec::new();
    let (machine, name) = if arm {
        (elf::EM_AARCH64, "aarch64")
    } else {
        (elf::EM_X86_64, "x86-64")
    };
    if header.e_machine(endian) != machine {
        problems.push(format!(
            "machine {} is not {name}",
            header.e_machine(endian)
        ));
    }
    let mut needed = 0;
    for segment in file.elf_program_headers() {
        if segment.p_type(endian) == elf::PT_INTERP {
            problems.push("dynamically linked (it has a program interpreter)".to_owned());
        }
        if let Ok(Some(entries)) = segment.dynamic(endian, bytes) {
            needed += entries
                .iter()
                .filter(|entry| entry.d_tag(endian) == u64::from(elf::DT_NEEDED))
                .count();
        }
    }
    if needed > 0 {
        problems.push(format!("needs {needed} shared libraries"));
    }
    if problems.is_empty() {
        Ok(vec![format!("ELF {name}"), "static".to_owned()])
    } else {
        Err(problems)
    }
}

fn check_pe(bytes: &[u8], arm: bool) -> Result<Vec<String>, Vec<String>> {
    let file = PeFile64::parse(bytes).map_err(unreadable("PE32+"))?;
    let mut problems = Vec::new();
    let (machine, name) = if arm {
        (pe::IMAGE_FILE_MACHINE_ARM64, "ARM64")
    } else {
        (pe::IMAGE_FILE_MACHINE_AMD64, "x64")
    };
    let found = file.nt_headers().file_header().machine.get(LE);
    if found != machine {
        problems.push(format!("machine {found:#x} is not {name}"));
    }
    let mut dlls = Vec::new();
    let table = file
        .import_table()
        .map_err(|error| vec![format!("unreadable import table ({error})")])?;
    if let Some(table) = table {
        let mut descriptors = table
            .descriptors()
            .map_err(|error| vec![format!("unreadable import table ({error})")])?;
        while let Ok(Some(descriptor)) = descriptors.next() {
            match table.name(descriptor.name.get(LE)) {
                Ok(dll) => dlls.push(String::from_utf8_lossy(dll).to_ascii_lowercase()),
                Err(error) => problems.push(format!("unreadable import name ({error})")),
            }
        }
    }
    for dll in &dlls {
        if !SYSTEM_DLLS.contains(&dll.as_str()) && !dll.starts_with("api-ms-win-") {
            problems.push(format!("imports {dll}, which is not a system DLL"));
        }
    }
    if problems.is_empty() {
        Ok(vec![
            format!("PE32+ {name}"),
            format!("imports {}", dlls.join(" ")),
        ])
    } else {
        Err(problems)
    }
}

/// `major.minor` as Mach-O writes a version (`xxxx.yy.zz` nibbles: major in the high 16 bits).
fn macho_version(text: &str) -> u32 {
    let mut parts = text.split('.').map(|part| part.parse::<u32>().unwrap_or(0));
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    (major << 16) | (minor << 8)
}

fn show_version(version: u32) -> String {
    format!(
        "{}.{}.{}",
        version >> 16,
        (version >> 8) & 0xff,
        version & 0xff
    )
}

fn check_macho(bytes: &[u8], arm: bool, minimum: &str) -> Result<Vec<String>, Vec<String>> {
    let header = MachHeader64::<Endianness>::parse(bytes, 0).map_err(unreadable("Mach-O 64"))?;
    let endian = header.endian().map_err(unreadable("Mach-O 64"))?;
    let mut problems = Vec::new();
    let (cpu, name) = if arm {
        (macho::CPU_TYPE_ARM64, "arm64")
    } else {
        (macho::CPU_TYPE_X86_64, "x86-64")
    };
    if header.cputype(endian) != cpu {
        problems.push(format!(
            "CPU type {:#x} is not {name}",
            header.cputype(endian)
        ));
    }
    let mut minos = None;
    let mut libraries = Vec::new();
    let mut signature = None;
    let mut commands = header
        .load_commands(endian, bytes, 0)
        .map_err(unreadable("Mach-O 64"))?;
    loop {
        let command = match commands.next() {
            Ok(Some(command)) => command,
            Ok(None) => break,
            Err(error) => {
                problems.push(format!("unreadable load command ({error})"));
                break;
            }
        };
        match command.variant() {
            Ok(LoadCommandVariant::BuildVersion(build)) => minos = Some(build.minos.get(endian)),
            Ok(LoadCommandVariant::VersionMin(version)) => {
                minos = Some(version.version.get(endian));
            }
            Ok(LoadCommandVariant::Dylib(dylib)) => {
                match command.string(endian, dylib.dylib.name) {
                    Ok(path) => libraries.push(String::from_utf8_lossy(path).into_owned()),
                    Err(error) => problems.push(format!("unreadable library name ({error})")),
                }
            }
            Ok(LoadCommandVariant::LinkeditData(data))
                if command.cmd() == macho::LC_CODE_SIGNATURE =>
            {
                signature = Some((data.dataoff.get(endian), data.datasize.get(endian)));
            }
            _ => {}
        }
    }
    let limit = macho_version(minimum);
    match minos {
        None => problems.push("no minimum macOS version (LC_BUILD_VERSION)".to_owned()),
        Some(found) if found > limit => problems.push(format!(
            "minimum macOS {} is newer than {minimum}",
            show_version(found)
        )),
        Some(_) => {}
    }
    for library in &libraries {
        if !library.starts_with("/usr/lib/") && !library.starts_with("/System/") {
            problems.push(format!("loads {library}, which is not a system library"));
        }
    }
    let mut facts = vec![
        format!("Mach-O {name}"),
        format!("minos {}", show_version(minos.unwrap_or(0))),
        format!("libraries {}", libraries.join(" ")),
    ];
    match signature {
        Some((offset, size)) => match verify_signature(bytes, offset, size) {
            Ok(pages) => facts.push(format!("code signature valid ({pages} pages)")),
            Err(problem) => problems.push(problem),
        },
        None if arm => problems.push("no code signature (arm64 macOS kills it)".to_owned()),
        None => facts.push("unsigned".to_owned()),
    }
    if problems.is_empty() {
        Ok(facts)
    } else {
        Err(problems)
    }
}

/// A big-endian `u32` at `at`, if the bytes are there.
fn be32(bytes: &[u8], at: usize) -> Option<u32> {
    let field = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes([field[0], field[1], field[2], field[3]]))
}

/// Checks the code directory of the signature at `offset..offset + size`: every page of the
/// file up to its code limit must hash (SHA-256) to the value recorded for it. Answers the
/// number of pages.
fn verify_signature(bytes: &[u8], offset: u32, size: u32) -> Result<u32, String> {
    const SUPER_BLOB: u32 = 0xfade_0cc0;
    const CODE_DIRECTORY: u32 = 0xfade_0c02;
    const SHA256: u8 = 2;
    let start = offset as usize;
    let blob = bytes
        .get(start..start.saturating_add(size as usize))
        .ok_or("the code signature lies outside the file")?;
    if be32(blob, 0) != Some(SUPER_BLOB) {
        return Err("the code signature is not a signature super-blob".to_owned());
    }
    let count = be32(blob, 8).ok_or("truncated code signature")?;
    let directory = (0..count.min(64))
        .filter_map(|index| {
            let entry = 12 + 8 * index as usize;
            let offset = be32(blob, entry + 4)? as usize;
            (be32(blob, offset)? == CODE_DIRECTORY).then_some(offset)
        })
        .next()
        .ok_or("the code signature has no code directory")?;
    let cd = blob.get(directory..).ok_or("truncated code directory")?;
    let field = |at| be32(cd, at).ok_or_else(|| "truncated code directory".to_owned());
    let hash_offset = field(16)? as usize;
    let code_slots = field(28)?;
    let code_limit = field(32)? as usize;
    let (hash_size, hash_type, page_shift) = match cd.get(36..40) {
        Some(&[size, kind, _platform, shift]) => (size as usize, kind, shift),
        _ => return Err("truncated code directory".to_owned()),
    };
    if hash_type != SHA256 || hash_size != 32 || !(9..=16).contains(&page_shift) {
        return Err(format!(
            "unexpected code directory (hash type {hash_type}, size {hash_size}, page 2^{page_shift})"
        ));
    }
    let page = 1usize << page_shift;
    if code_limit > bytes.len() || code_slots as usize != code_limit.div_ceil(page) {
        return Err("the code directory does not cover the file".to_owned());
    }
    for slot in 0..code_slots as usize {
        let from = slot * page;
        let data = &bytes[from..code_limit.min(from + page)];
        let at = hash_offset + slot * hash_size;
        let recorded = cd
            .get(at..at + hash_size)
            .ok_or("truncated code directory")?;
        if Sha256::digest(data).as_slice() != recorded {
            return Err(format!(
                "the code signature is stale: page {slot} changed after signing"
            ));
        }
    }
    Ok(code_slots)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::PLATFORMS;

    fn platform(npm: &str) -> Platform {
        *PLATFORMS.iter().find(|p| p.npm == npm).unwrap()
    }

    #[test]
    fn versions_are_read_and_written_as_mach_o_does() {
        assert_eq!(macho_version("11.0"), 0x000b_0000);
        assert_eq!(macho_version("10.12"), 0x000a_0c00);
        assert_eq!(show_version(0x000f_0000), "15.0.0");
        assert!(macho_version("15.0") > macho_version("11.0"));
    }

    #[test]
    fn garbage_is_refused_for_every_platform_with_a_reason() {
        for platform in PLATFORMS {
            for bytes in [
                &b""[..],
                b"\x7fELF",
                b"MZ",
                b"\xcf\xfa\xed\xfe",
                &[0u8; 4096],
            ] {
                let problems = check(&platform, bytes).unwrap_err();
                assert!(!problems.is_empty(), "{}", platform.npm);
            }
        }
    }

    /// A minimal arm64 Mach-O file: header, the given load commands, padding to `len`.
    fn macho(commands: &[Vec<u8>], len: usize) -> Vec<u8> {
        let mut file = Vec::new();
        let sizes: usize = commands.iter().map(Vec::len).sum();
        for word in [
            macho::MH_MAGIC_64,
            macho::CPU_TYPE_ARM64,
            0,
            macho::MH_EXECUTE,
            commands.len() as u32,
            sizes as u32,
            0,
            0,
        ] {
            file.extend_from_slice(&word.to_le_bytes());
        }
        for command in commands {
            file.extend_from_slice(command);
        }
        file.resize(len, 0);
        file
    }

    fn command(kind: u32, body: &[u32], tail: &[u8]) -> Vec<u8> {
        let mut bytes = Vec::new();
        let size = (8 + 4 * body.len() + tail.len()).next_multiple_of(8);
        bytes.extend_from_slice(&kind.to_le_bytes());
        bytes.extend_from_slice(&(size as u32).to_le_bytes());
        for word in body {
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        bytes.extend_from_slice(tail);
        bytes.resize(size, 0);
        bytes
    }

    fn build_version(minos: u32) -> Vec<u8> {
        // platform macOS (1), minos, sdk, no tools.
        command(macho::LC_BUILD_VERSION, &[1, minos, minos, 0], &[])
    }

    fn dylib(path: &str) -> Vec<u8> {
        let mut name = path.as_bytes().to_vec();
        name.push(0);
        command(macho::LC_LOAD_DYLIB, &[24, 2, 0, 0], &name)
    }

    /// Appends an ad-hoc signature (one code directory, SHA-256, 4 KiB pages) over the first
    /// `code_limit` bytes, and returns the whole file.
    fn signed(mut file: Vec<u8>, code_limit: usize) -> Vec<u8> {
        let pages = code_limit.div_ceil(4096);
        let hash_offset = 88usize;
        let mut cd = Vec::new();
        let cd_len = hash_offset + 32 * pages;
        for word in [
            0xfade_0c02u32,
            cd_len as u32,
            0x20400,
            0,
            hash_offset as u32,
            0,
            0,
            pages as u32,
            code_limit as u32,
        ] {
            cd.extend_from_slice(&word.to_be_bytes());
        }
        cd.extend_from_slice(&[32, 2, 0, 12]);
        cd.resize(hash_offset, 0);
        for page in file[..code_limit].chunks(4096) {
            cd.extend_from_slice(&Sha256::digest(page));
        }
        let mut blob = Vec::new();
        for word in [0xfade_0cc0u32, (20 + cd.len()) as u32, 1, 0, 20] {
            blob.extend_from_slice(&word.to_be_bytes());
        }
        blob.extend_from_slice(&cd);
        file.extend_from_slice(&blob);
        file
    }

    fn signed_macho(minos: &str, library: &str) -> Vec<u8> {
        let len = 3 * 4096 + 100;
        let signature_size = 20 + 88 + 32 * 4;
        let commands = [
            build_version(macho_version(minos)),
            dylib(library),
            command(
                macho::LC_CODE_SIGNATURE,
                &[len as u32, signature_size as u32],
                &[],
            ),
        ];
        signed(macho(&commands, len), len)
    }

    #[test]
    fn a_signed_system_only_mach_o_passes_and_each_fault_is_named() {
        let arm = platform("darwin-arm64");
        let good = signed_macho("11.0", "/usr/lib/libSystem.B.dylib");
        let facts = check(&arm, &good).unwrap();
        assert!(facts.contains(&"minos 11.0.0".to_owned()), "{facts:?}");
        assert!(
            facts.contains(&"code signature valid (4 pages)".to_owned()),
            "{facts:?}"
        );

        let too_new = check(&arm, &signed_macho("15.0", "/usr/lib/libSystem.B.dylib"));
        assert_eq!(
            too_new.unwrap_err(),
            ["minimum macOS 15.0.0 is newer than 11.0"]
        );
        let foreign = check(&arm, &signed_macho("11.0", "/opt/homebrew/lib/libz.dylib"));
        assert_eq!(
            foreign.unwrap_err(),
            ["loads /opt/homebrew/lib/libz.dylib, which is not a system library"]
        );

        let mut stale = good.clone();
        stale[2 * 4096 + 7] ^= 1;
        assert_eq!(
            check(&arm, &stale).unwrap_err(),
            ["the code signature is stale: page 2 changed after signing"]
        );

        let unsigned = macho(
            &[
                build_version(macho_version("11.0")),
                dylib("/usr/lib/libSystem.B.dylib"),
            ],
            4096,
        );
        assert_eq!(
            check(&arm, &unsigned).unwrap_err(),
            ["no code signature (arm64 macOS kills it)"]
        );
        let mut truncated = good.clone();
        truncated.truncate(good.len() - 40);
        assert!(check(&arm, &truncated).is_err());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 2000,
            rng_seed: proptest::test_runner::RngSeed::Fixed(13),
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// A damaged binary is refused or accepted, never a panic: every byte of a valid
        /// Mach-O may be changed.
        #[test]
        fn damaged_files_never_panic(at in 0usize..13_000, value: u8, cut in 0usize..13_000) {
            let mut file = signed_macho("11.0", "/usr/lib/libSystem.B.dylib");
            let at = at % file.len();
            file[at] = value;
            file.truncate(cut.max(1).min(file.len()));
            for platform in PLATFORMS {
                let _ = check(&platform, &file);
            }
        }
    }

    #[cfg(all(target_os = "linux", target_arch = "x86_64", target_env = "gnu"))]
    #[test]
    fn this_dynamically_linked_test_program_is_refused_as_a_linux_package() {
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let problems = check(&platform("linux-x64"), &me).unwrap_err();
        assert!(
            problems.iter().any(|p| p.starts_with("dynamically linked")),
            "{problems:?}"
        );
        let problems = check(&platform("linux-arm64"), &me).unwrap_err();
        assert!(problems.iter().any(|p| p.contains("is not aarch64")));
    }
}
