//! Start-up code ordering: which functions a program runs, in the order it first runs them, so
//! that the distribution build can ask the linker to place them side by side
//! (`--symbol-ordering-file`).
//!
//! Why it matters: Linux maps a program's code lazily, and on each first touch it maps the whole
//! aligned 64 KiB window around the touched page ("fault-around"). The few hundred functions
//! that start the server and answer `initialize` were scattered over about 25 such windows of a
//! 2.8 MiB `.text`, so about 1.5 MiB of code counted as resident memory after `initialize`.
//! Placed first, in the order they run, they fit in a handful of windows.
//!
//! How: [`trace`] starts the program under `ptrace` through a trampoline (this very `xtask`
//! binary, `xtask trace-exec PROGRAM ...`, which asks to be traced and then `exec`s the program),
//! writes a breakpoint (`int3`) on the first byte of every function of the program's symbol
//! table, and lets it run. Each breakpoint that fires is recorded, put back to its original byte
//! and the thread resumed, so every function costs one stop at most and the program runs
//! otherwise unchanged. Threads are followed (`PTRACE_O_TRACECLONE`). The program therefore
//! needs its symbol table (`-C strip=none`): the distribution build links twice, once with
//! symbols to trace, once ordered (see `dist.rs`).
//!
//! Linux on x86-64 only (the breakpoint is the one-byte `int3`); elsewhere [`trace`] answers an
//! error and the distribution build goes unordered.
use std::error::Error;
use std::ffi::OsString;
use std::path::Path;

/// What a traced run produced.
#[derive(Debug)]
pub(crate) struct Trace {
    /// The symbol names of the functions that ran, in the order they first ran, each once
    /// (aliases of one address are listed together).
    pub(crate) functions: Vec<String>,
    /// Everything the program wrote to its standard output.
    pub(crate) stdout: Vec<u8>,
    /// The program's exit code, or `None` if a signal ended it.
    pub(crate) exit_code: Option<i32>,
}

/// How long a traced run may take before it is killed.
const TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(120);

/// `cargo xtask trace PROGRAM [ARGS...]`: runs PROGRAM under the tracer with this command's
/// standard input, prints the functions it ran (one symbol per line, in first-run order) on
/// standard output, and what the program printed on standard error.
pub(crate) fn run(args: &[&str]) -> Result<(), Box<dyn Error>> {
    let Some((program, rest)) = args.split_first() else {
        return Err("usage: cargo xtask trace PROGRAM [ARGS...] < input".into());
    };
    let mut input = Vec::new();
    std::io::Read::read_to_end(&mut std::io::stdin(), &mut input)?;
    let args: Vec<OsString> = rest.iter().map(OsString::from).collect();
    let trace = trace(Path::new(program), &args, input)?;
    eprint!("{}", String::from_utf8_lossy(&trace.stdout));
    eprintln!(
        "xtask trace: {} symbols; exit code {}",
        trace.functions.len(),
        trace
            .exit_code
            .map_or_else(|| "none (a signal)".to_owned(), |code| code.to_string())
    );
    for name in &trace.functions {
        println!("{name}");
    }
    Ok(())
}

/// The functions of an ELF file's symbol table, and where its code is.
#[derive(Debug, Default)]
pub(crate) struct Functions {
    /// The entry point (`e_entry`), as linked.
    pub(crate) entry: u64,
    /// The executable `PT_LOAD` segment: virtual address, file offset, size in the file.
    pub(crate) code: (u64, u64, u64),
    /// Function symbols inside that segment: address (as linked) and name, sorted by address.
    pub(crate) symbols: Vec<(u64, String)>,
}

/// Reads the function symbols (`STT_FUNC`, `STT_GNU_IFUNC`) of a 64-bit little-endian ELF file
/// that lie in its executable segment. A file without a symbol table (stripped) is an error that
/// says so.
pub(crate) fn functions(elf: &[u8]) -> Result<Functions, Box<dyn Error>> {
    const PT_LOAD: u64 = 1;
    const PF_X: u64 = 1;
    const SHT_SYMTAB: u64 = 2;
    const STT_FUNC: u8 = 2;
    const STT_GNU_IFUNC: u8 = 10;
    let read = |at: u64, len: u64| -> Result<u64, Box<dyn Error>> {
        let bytes = usize::try_from(at)
            .ok()
            .zip(usize::try_from(at.saturating_add(len)).ok())
            .and_then(|(start, end)| elf.get(start..end))
            .ok_or("the ELF file is truncated")?;
        Ok(bytes
            .iter()
            .rev()
            .fold(0u64, |value, &byte| (value << 8) | u64::from(byte)))
    };
    if elf.get(..6) != Some(b"\x7fELF\x02\x01".as_slice()) {
        return Err("not a 64-bit little-endian ELF file".into());
    }
    let mut found = Functions {
        entry: read(0x18, 8)?,
        ..Functions::default()
    };
    let (phoff, phentsize, phnum) = (read(0x20, 8)?, read(0x36, 2)?, read(0x38, 2)?);
    for index in 0..phnum {
        let header = phoff + index * phentsize;
        if read(header, 4)? == PT_LOAD && read(header + 4, 4)? & PF_X != 0 {
            found.code = (
                read(header + 0x10, 8)?,
                read(header + 8, 8)?,
                read(header + 0x20, 8)?,
            );
        }
    }
    let (code_start, _, code_size) = found.code;
    if code_size == 0 {
        return Err("the ELF file has no executable segment".into());
    }
    let (shoff, shentsize, shnum) = (read(0x28, 8)?, read(0x3a, 2)?, read(0x3c, 2)?);
    let section = |index: u64| shoff + index * shentsize;
    let mut symtab = None;
    for index in 0..shnum {
        if read(section(index) + 4, 4)? == SHT_SYMTAB {
            symtab = Some(section(index));
            break;
        }
    }
    let symtab = symtab.ok_or("the ELF file has no symbol table (it is stripped)")?;
    let (offset, size, entsize) = (
        read(symtab + 0x18, 8)?,
        read(symtab + 0x20, 8)?,
        read(symtab + 0x38, 8)?,
    );
    let strtab = section(read(symtab + 0x28, 4)?);
    let (names, names_size) = (read(strtab + 0x18, 8)?, read(strtab + 0x20, 8)?);
    if entsize < 24 {
        return Err("the ELF symbol table has a bad entry size".into());
    }
    for symbol in (offset..offset.saturating_add(size)).step_by(entsize as usize) {
        let kind = read(symbol + 4, 1)? as u8 & 0xf;
        let address = read(symbol + 8, 8)?;
        if !matches!(kind, STT_FUNC | STT_GNU_IFUNC)
            || !(code_start..code_start + code_size).contains(&address)
        {
            continue;
        }
        let name_at = read(symbol, 4)?;
        let name = usize::try_from(names + name_at)
            .ok()
            .filter(|_| name_at < names_size)
            .and_then(|start| elf.get(start..))
            .and_then(|rest| rest.split(|&byte| byte == 0).next())
            .ok_or("an ELF symbol name is out of bounds")?;
        if !name.is_empty() {
            found
                .symbols
                .push((address, String::from_utf8_lossy(name).into_owned()));
        }
    }
    found.symbols.sort();
    found.symbols.dedup();
    Ok(found)
}

/// The hidden `xtask trace-exec PROGRAM [ARGS...]` trampoline: asks to be traced by its parent,
/// then becomes PROGRAM. Only [`trace`] runs it.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub(crate) fn exec_traced(args: &[&str]) -> Result<(), Box<dyn Error>> {
    use std::os::unix::process::CommandExt;
    let Some((program, rest)) = args.split_first() else {
        return Err("usage: xtask trace-exec PROGRAM [ARGS...]".into());
    };
    nix::sys::ptrace::traceme()?;
    // `exec` only returns on failure.
    Err(std::process::Command::new(program).args(rest).exec().into())
}

/// Not available here: see the module documentation.
#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
pub(crate) fn exec_traced(_args: &[&str]) -> Result<(), Box<dyn Error>> {
    Err("tracing is only supported on Linux x86-64".into())
}

/// Not available here: see the module documentation.
#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
pub(crate) fn trace(
    _program: &Path,
    _args: &[OsString],
    _input: Vec<u8>,
) -> Result<Trace, Box<dyn Error>> {
    Err("tracing is only supported on Linux x86-64".into())
}

/// Runs `program` with `args` under the tracer, `input` on its standard input (then closed),
/// and returns the functions it ran. Its standard error is discarded. A run longer than two
/// minutes is killed and reported as an error.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub(crate) fn trace(
    program: &Path,
    args: &[OsString],
    input: Vec<u8>,
) -> Result<Trace, Box<dyn Error>> {
    use nix::sys::ptrace;
    use nix::sys::signal::Signal;
    use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
    use nix::unistd::Pid;
    use std::collections::{HashMap, HashSet};
    use std::io::{Read, Write};
    use std::os::unix::fs::FileExt;
    use std::process::{Command, Stdio};

    const INT3: u8 = 0xcc;
    let functions = functions(&std::fs::read(program)?)
        .map_err(|error| format!("{}: {error}", program.display()))?;
    let mut child = Command::new(std::env::current_exe()?)
        .arg("trace-exec")
        .arg(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let pid = Pid::from_raw(i32::try_from(child.id())?);
    // From here on the child is ours to reap: a guard kills it on every early return.
    struct Kill(Pid);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = nix::sys::signal::kill(self.0, Signal::SIGKILL);
            let _ = waitpid(self.0, Some(WaitPidFlag::__WALL));
        }
    }
    let mut guard = Some(Kill(pid));
    let (Some(mut stdin), Some(mut stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("the traced program has no pipes".into());
    };

    // The trampoline's `exec` stops the new program before its first instruction.
    match waitpid(pid, Some(WaitPidFlag::__WALL))? {
        WaitStatus::Stopped(_, Signal::SIGTRAP) => {}
        status => {
            return Err(format!(
                "{} did not start under the tracer ({status:?}); is ptrace allowed here?",
                program.display()
            )
            .into());
        }
    }
    ptrace::setoptions(
        pid,
        ptrace::Options::PTRACE_O_TRACECLONE | ptrace::Options::PTRACE_O_EXITKILL,
    )?;
    // Where the program was loaded: the auxiliary vector's AT_ENTRY against the linked entry.
    let auxv = std::fs::read(format!("/proc/{pid}/auxv"))?;
    let entry = auxv
        .chunks_exact(16)
        .find_map(|pair| {
            let word = |at: usize| {
                pair.get(at..at + 8)
                    .and_then(|bytes| <[u8; 8]>::try_from(bytes).ok())
                    .map(u64::from_le_bytes)
            };
            (word(0)? == 9).then(|| word(8))?
        })
        .ok_or("the traced program has no AT_ENTRY")?;
    let bias = entry.wrapping_sub(functions.entry);
    let memory = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(format!("/proc/{pid}/mem"))?;
    let (code_start, _, code_size) = functions.code;
    let mut code = vec![0; usize::try_from(code_size)?];
    memory.read_exact_at(&mut code, code_start.wrapping_add(bias))?;
    let mut pending: HashMap<u64, u8> = HashMap::new();
    for &(address, _) in &functions.symbols {
        let at = usize::try_from(address - code_start)?;
        if let Some(byte) = code.get_mut(at)
            && *byte != INT3
        {
            pending.insert(address.wrapping_add(bias), *byte);
            *byte = INT3;
        }
    }
    memory.write_all_at(&code, code_start.wrapping_add(bias))?;
    drop(code);

    let writer = std::thread::spawn(move || {
        // A program that exits without reading its input closes the pipe: not an error here.
        let _ = stdin.write_all(&input);
    });
    let reader = std::thread::spawn(move || {
        let mut output = Vec::new();
        stdout.read_to_end(&mut output).map(|_| output)
    });
    let (done, finished) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        // Only on a timeout: otherwise the program has been reaped (its pid may be reused).
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(TIME_LIMIT) {
            let _ = nix::sys::signal::kill(pid, Signal::SIGKILL);
        }
    });

    let mut ran: Vec<u64> = Vec::new();
    let mut restored: HashSet<u64> = HashSet::new();
    ptrace::cont(pid, None)?;
    let exit_code = loop {
        match waitpid(None::<Pid>, Some(WaitPidFlag::__WALL))? {
            WaitStatus::Exited(thread, code) if thread == pid => break Some(code),
            WaitStatus::Signaled(thread, Signal::SIGKILL, _) if thread == pid => {
                guard.take(); // Reaped: its pid is no longer ours to kill.
                return Err(format!(
                    "{} was killed: it ran longer than {} s under the tracer, or was killed",
                    program.display(),
                    TIME_LIMIT.as_secs()
                )
                .into());
            }
            WaitStatus::Signaled(thread, _, _) if thread == pid => break None,
            WaitStatus::Stopped(thread, Signal::SIGTRAP) => {
                let mut registers = ptrace::getregs(thread)?;
                let address = registers.rip.wrapping_sub(1);
                let signal = if let Some(byte) = pending.remove(&address) {
                    memory.write_all_at(&[byte], address)?;
                    restored.insert(address);
                    ran.push(address.wrapping_sub(bias));
                    None
                } else if restored.contains(&address) {
                    // Another thread hit this breakpoint before it was put back.
                    None
                } else {
                    Some(Signal::SIGTRAP)
                };
                if signal.is_none() {
                    registers.rip = address;
                    ptrace::setregs(thread, registers)?;
                }
                ptrace::cont(thread, signal)?;
            }
            // A new thread starts stopped; a clone event stops its parent.
            WaitStatus::Stopped(thread, Signal::SIGSTOP) | WaitStatus::PtraceEvent(thread, ..) => {
                ptrace::cont(thread, None)?;
            }
            WaitStatus::Stopped(thread, signal) => ptrace::cont(thread, signal)?,
            _ => {}
        }
    };
    guard.take();
    let _ = done.send(());
    let _ = writer.join();
    let stdout = reader.join().map_err(|_| "the output reader panicked")??;
    let mut by_address: HashMap<u64, Vec<&str>> = HashMap::new();
    for (address, name) in &functions.symbols {
        by_address.entry(*address).or_default().push(name);
    }
    // A name is listed once, where it first ran: distinct local functions can share one
    // (`__rust_try` of two codegen units), and the linker orders by name.
    let mut seen = HashSet::new();
    let functions = ran
        .iter()
        .flat_map(|address| by_address.get(address).into_iter().flatten())
        .filter(|name| seen.insert(**name))
        .map(|name| (*name).to_owned())
        .collect();
    Ok(Trace {
        functions,
        stdout,
        exit_code,
    })
}

/// The hidden `xtask trace-fixture` command the tracer's tests run: it calls
/// [`fixture_in_a_thread`] in a new thread, and never calls [`fixture_never_called`].
pub(crate) fn run_fixture() -> Result<(), Box<dyn Error>> {
    let value = std::thread::spawn(|| fixture_in_a_thread(std::hint::black_box(20)))
        .join()
        .map_err(|_| "the fixture thread panicked")?;
    if value == 0 {
        fixture_never_called();
    }
    Ok(())
}

/// Runs in the fixture's thread (see [`run_fixture`]).
#[inline(never)]
fn fixture_in_a_thread(n: u64) -> u64 {
    (1..=std::hint::black_box(n)).product()
}

/// Never runs (see [`run_fixture`]).
#[inline(never)]
fn fixture_never_called() {
    std::hint::black_box(());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stripped_or_foreign_file_is_refused_with_a_reason() {
        let error = functions(b"MZ not an ELF file").unwrap_err();
        assert_eq!(error.to_string(), "not a 64-bit little-endian ELF file");
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let error = functions(&me[..64]).unwrap_err();
        assert_eq!(error.to_string(), "the ELF file is truncated");
        // No section headers at all, as after `strip --strip-all --remove-section=*`.
        let mut stripped = me.clone();
        stripped[0x3c..0x3e].copy_from_slice(&[0, 0]);
        let error = functions(&stripped).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the ELF file has no symbol table (it is stripped)"
        );
    }

    #[test]
    fn the_test_programs_own_functions_are_found() {
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let found = functions(&me).unwrap();
        let (start, _, size) = found.code;
        assert!(size > 0);
        assert!(
            found
                .symbols
                .iter()
                .all(|(address, _)| (start..start + size).contains(address))
        );
        // Mangled either way (`_ZN5xtask5order...` or `_RNv...5xtask5order...`).
        for name in [
            "5order9functions",
            "the_test_programs_own_functions_are_found",
        ] {
            assert!(
                found
                    .symbols
                    .iter()
                    .any(|(_, symbol)| symbol.contains(name)),
                "{name} is not in the symbol table"
            );
        }
        assert!(found.symbols.windows(2).all(|pair| pair[0] <= pair[1]));
    }
}
