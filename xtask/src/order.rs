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
//! and the thread resumed, so every function costs one stop at most. The program therefore
//! needs its symbol table (`-C strip=none`): the distribution build links twice, once with
//! symbols to trace, once ordered (see `dist.rs`).
//!
//! Threads and `vfork` children (which share the program's memory) are followed; a `fork` child
//! gets its original code back and runs untraced; after an `exec`, nothing more is recorded. The
//! program runs as it would alone, with two exceptions, fine for the server it is made for: a
//! SIGSTOP sent to it is dropped, and a program that handles SIGTRAP itself may see the tracer's.
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
/// that lie in its (first) executable segment. A file without a symbol table (stripped) is an
/// error that says so; so is any offset or size that points outside the file. It never panics.
pub(crate) fn functions(elf: &[u8]) -> Result<Functions, Box<dyn Error>> {
    const PT_LOAD: u64 = 1;
    const PF_X: u64 = 1;
    const SHT_SYMTAB: u64 = 2;
    const STT_FUNC: u64 = 2;
    const STT_GNU_IFUNC: u64 = 10;
    const MALFORMED: &str = "the ELF file is truncated or malformed";
    // `base + index * size`, or an error on overflow.
    let at = |base: u64, index: u64, size: u64| -> Result<u64, Box<dyn Error>> {
        index
            .checked_mul(size)
            .and_then(|offset| offset.checked_add(base))
            .ok_or_else(|| MALFORMED.into())
    };
    let read = |offset: u64, field: u64, len: u64| -> Result<u64, Box<dyn Error>> {
        crate::elf::read(elf, offset, field, len).ok_or_else(|| MALFORMED.into())
    };
    if !crate::elf::is_64_bit_little_endian(elf) {
        return Err("not a 64-bit little-endian ELF file".into());
    }
    let file_size = u64::try_from(elf.len())?;
    let mut found = Functions {
        entry: read(0, 0x18, 8)?,
        ..Functions::default()
    };
    let (phoff, phentsize, phnum) = (read(0, 0x20, 8)?, read(0, 0x36, 2)?, read(0, 0x38, 2)?);
    for index in 0..phnum {
        let header = at(phoff, index, phentsize)?;
        if read(header, 0, 4)? == PT_LOAD && read(header, 4, 4)? & PF_X != 0 {
            let (start, offset, size) = (
                read(header, 0x10, 8)?,
                read(header, 8, 8)?,
                read(header, 0x20, 8)?,
            );
            if start.checked_add(size).is_none()
                || offset.checked_add(size).is_none_or(|end| end > file_size)
            {
                return Err(MALFORMED.into());
            }
            found.code = (start, offset, size);
            break;
        }
    }
    let (code_start, _, code_size) = found.code;
    if code_size == 0 {
        return Err("the ELF file has no executable segment".into());
    }
    let code = code_start..code_start + code_size;
    let (shoff, shentsize, shnum) = (read(0, 0x28, 8)?, read(0, 0x3a, 2)?, read(0, 0x3c, 2)?);
    let mut symtab = None;
    for index in 0..shnum {
        let header = at(shoff, index, shentsize)?;
        if read(header, 4, 4)? == SHT_SYMTAB {
            symtab = Some(header);
            break;
        }
    }
    let symtab = symtab.ok_or("the ELF file has no symbol table (it is stripped)")?;
    let (offset, size, entsize) = (
        read(symtab, 0x18, 8)?,
        read(symtab, 0x20, 8)?,
        read(symtab, 0x38, 8)?,
    );
    let strtab = at(shoff, read(symtab, 0x28, 4)?, shentsize)?;
    let (names, names_size) = (read(strtab, 0x18, 8)?, read(strtab, 0x20, 8)?);
    if entsize < 24 || offset.checked_add(size).is_none_or(|end| end > file_size) {
        return Err(MALFORMED.into());
    }
    for index in 0..size / entsize {
        let symbol = at(offset, index, entsize)?;
        let kind = read(symbol, 4, 1)? & 0xf;
        let address = read(symbol, 8, 8)?;
        if !matches!(kind, STT_FUNC | STT_GNU_IFUNC) || !code.contains(&address) {
            continue;
        }
        let name_at = read(symbol, 0, 4)?;
        let name = names
            .checked_add(name_at)
            .filter(|_| name_at < names_size)
            .and_then(|start| usize::try_from(start).ok())
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
/// and returns the functions it ran. Its standard error is kept only to explain a program that
/// could not start. A run longer than two minutes is killed and reported as an error, and so is
/// a program whose output stays open five seconds after it exited (a process it started still
/// holds it).
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub(crate) fn trace(
    program: &Path,
    args: &[OsString],
    input: Vec<u8>,
) -> Result<Trace, Box<dyn Error>> {
    use nix::errno::Errno;
    use nix::sys::ptrace::{self, Event, Options};
    use nix::sys::signal::Signal;
    use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
    use nix::unistd::Pid;
    use std::collections::{HashMap, HashSet};
    use std::io::{Read, Write};
    use std::os::unix::fs::FileExt;
    use std::process::{Command, Stdio};
    use std::sync::mpsc;

    /// The child and every thread or process of it that is still ours to reap: on an early
    /// return it is killed and reaped, so no traced zombie is left behind.
    struct Kill(Pid);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = nix::sys::signal::kill(self.0, Signal::SIGKILL);
            // Traced threads are reaped one by one; the leader is reported last.
            loop {
                match waitpid(None::<Pid>, Some(WaitPidFlag::__WALL)) {
                    Ok(WaitStatus::Exited(pid, _) | WaitStatus::Signaled(pid, ..))
                        if pid == self.0 =>
                    {
                        break;
                    }
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
        }
    }
    /// A thread that vanished (its process exited under us) is not an error.
    fn gone(result: nix::Result<()>) -> Result<(), Box<dyn Error>> {
        match result {
            Err(Errno::ESRCH) | Ok(()) => Ok(()),
            Err(error) => Err(error.into()),
        }
    }
    const INT3: u8 = 0xcc;

    // One path for reading the symbols and for running: no PATH search, no other file.
    let program = std::fs::canonicalize(program)
        .map_err(|error| format!("{}: {error}", program.display()))?;
    let functions = functions(&std::fs::read(&program)?)
        .map_err(|error| format!("{}: {error}", program.display()))?;
    let mut child = Command::new(std::env::current_exe()?)
        .arg("trace-exec")
        .arg(&program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let pid = Pid::from_raw(i32::try_from(child.id())?);
    let mut guard = Some(Kill(pid));
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err("the traced program has no pipes".into());
    };
    // Both outputs are drained on their own threads, so the program never blocks on a pipe.
    let drain = |mut pipe: Box<dyn Read + Send>, limit: u64| {
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let result = (&mut pipe).take(limit).read_to_end(&mut kept);
            let _ = std::io::copy(&mut pipe, &mut std::io::sink());
            let _ = sender.send(result.map(|_| kept));
        });
        receiver
    };
    let stdout = drain(Box::new(stdout), u64::MAX);
    let stderr = drain(Box::new(stderr), 4096);

    // The trampoline's `exec` stops the new program before its first instruction.
    match waitpid(pid, Some(WaitPidFlag::__WALL))? {
        WaitStatus::Stopped(_, Signal::SIGTRAP) => {}
        status => {
            if matches!(status, WaitStatus::Exited(..) | WaitStatus::Signaled(..)) {
                guard.take(); // Reaped: its pid is no longer ours to kill.
            }
            let said = stderr
                .recv_timeout(std::time::Duration::from_secs(5))
                .ok()
                .and_then(Result::ok)
                .map(|text| String::from_utf8_lossy(&text).trim().to_owned())
                .unwrap_or_default();
            let reason = if said.is_empty() {
                format!("{status:?}; is ptrace allowed here?")
            } else {
                format!("{status:?}: {said}")
            };
            return Err(format!(
                "{} did not start under the tracer ({reason})",
                program.display()
            )
            .into());
        }
    }
    ptrace::setoptions(
        pid,
        Options::PTRACE_O_TRACECLONE
            | Options::PTRACE_O_TRACEFORK
            | Options::PTRACE_O_TRACEVFORK
            | Options::PTRACE_O_TRACEEXEC
            | Options::PTRACE_O_EXITKILL,
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
    let (code_start, _, code_size) = functions.code;
    let code_at = code_start.wrapping_add(bias);
    let open_memory = |process: Pid| {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(format!("/proc/{process}/mem"))
    };
    let memory = open_memory(pid)?;
    let mut code = vec![0; usize::try_from(code_size)?];
    memory.read_exact_at(&mut code, code_at)?;
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
    memory.write_all_at(&code, code_at)?;
    drop(code);

    std::thread::spawn(move || {
        // A program that exits without reading its input closes the pipe: not an error here.
        let _ = stdin.write_all(&input);
    });
    let (done, finished) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        // Only on a timeout: otherwise the program has been reaped (its pid may be reused).
        if let Err(mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(TIME_LIMIT) {
            let _ = nix::sys::signal::kill(pid, Signal::SIGKILL);
        }
    });

    let mut ran: Vec<u64> = Vec::new();
    let mut restored: HashSet<u64> = HashSet::new();
    // Threads and processes announced by their parent's event; forked processes announced but
    // not yet stopped; new ones stopped before their parent's event.
    let mut known: HashSet<Pid> = HashSet::from([pid]);
    let (mut forks, mut early) = (HashSet::new(), HashSet::new());
    // Gives a forked child its original code back, and lets it run untraced.
    let let_go = |child: Pid, pending: &HashMap<u64, u8>| -> Result<(), Box<dyn Error>> {
        if let Ok(copy) = open_memory(child) {
            for (&address, &byte) in pending {
                copy.write_all_at(&[byte], address)?;
            }
        }
        gone(ptrace::detach(child, None))
    };
    ptrace::cont(pid, None)?;
    let exit_code = loop {
        match waitpid(None::<Pid>, Some(WaitPidFlag::__WALL))? {
            WaitStatus::Exited(thread, code) if thread == pid => break Some(code),
            WaitStatus::Signaled(thread, signal, _) if thread == pid => {
                if signal == Signal::SIGKILL {
                    guard.take(); // Reaped: its pid is no longer ours to kill.
                    return Err(format!(
                        "{} was killed: it ran longer than {} s under the tracer, or was killed",
                        program.display(),
                        TIME_LIMIT.as_secs()
                    )
                    .into());
                }
                break None;
            }
            WaitStatus::Stopped(thread, Signal::SIGTRAP) => {
                let Ok(mut registers) = ptrace::getregs(thread) else {
                    continue; // The thread is gone.
                };
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
                    gone(ptrace::setregs(thread, registers))?;
                }
                gone(ptrace::cont(thread, signal))?;
            }
            // A new thread, `vfork` or `fork` child is announced by an event from its parent,
            // and starts with a SIGSTOP; the two arrive in either order.
            WaitStatus::PtraceEvent(thread, _, event) => {
                let new = ptrace::getevent(thread)
                    .ok()
                    .and_then(|id| i32::try_from(id).ok())
                    .map(Pid::from_raw);
                match new {
                    _ if event == Event::PTRACE_EVENT_EXEC as i32 => {
                        // After an `exec` the code is another program's: nothing more to
                        // record. A `vfork` child that execs is let go.
                        if thread != pid {
                            gone(ptrace::detach(thread, None))?;
                            continue;
                        }
                        pending.clear();
                        restored.clear();
                    }
                    Some(new) if event == Event::PTRACE_EVENT_FORK as i32 => {
                        if early.remove(&new) {
                            let_go(new, &pending)?;
                        } else {
                            forks.insert(new);
                        }
                    }
                    Some(new) => {
                        if early.remove(&new) {
                            gone(ptrace::cont(new, None))?;
                        } else {
                            known.insert(new);
                        }
                    }
                    None => {}
                }
                gone(ptrace::cont(thread, None))?;
            }
            // Threads and `vfork` children share the memory, breakpoints included: they are
            // followed like the program. A `fork` child has its own copy: it gets the original
            // bytes back and runs untraced. A SIGSTOP is not passed on (a limit of this tracer).
            WaitStatus::Stopped(thread, Signal::SIGSTOP) => {
                if forks.remove(&thread) {
                    let_go(thread, &pending)?;
                } else if known.contains(&thread) {
                    gone(ptrace::cont(thread, None))?;
                } else {
                    early.insert(thread);
                }
            }
            WaitStatus::Stopped(thread, signal) => gone(ptrace::cont(thread, signal))?,
            _ => {}
        }
    };
    guard.take();
    let _ = done.send(());
    let stdout = match stdout.recv_timeout(std::time::Duration::from_secs(5)) {
        Ok(result) => result?,
        Err(_) => {
            return Err(format!(
                "{} exited, but a process it started still holds its standard output open",
                program.display()
            )
            .into());
        }
    };
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
/// [`fixture_in_a_thread`] in a new thread, runs a child process (`sh -c "exit 3"`, started the
/// way `std` starts processes: `vfork`, then `exec`) and checks its exit status, and never calls
/// [`fixture_never_called`].
pub(crate) fn run_fixture() -> Result<(), Box<dyn Error>> {
    let value = std::thread::spawn(|| fixture_in_a_thread(std::hint::black_box(20)))
        .join()
        .map_err(|_| "the fixture thread panicked")?;
    if value == 0 {
        fixture_never_called();
    }
    let status = std::process::Command::new("sh")
        .args(["-c", "exit 3"])
        .status()?;
    if status.code() != Some(3) {
        return Err(format!("the fixture's child process ended with {status}").into());
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
    use proptest::prelude::*;

    /// A minimal ELF file: one executable segment (0x1000..0x1100, at file offset 0x100), and a
    /// symbol table with two functions in it, one object and one function outside it.
    fn small_elf() -> Vec<u8> {
        let mut elf = vec![0u8; 0x400];
        let mut put = |at: usize, bytes: &[u8]| elf[at..at + bytes.len()].copy_from_slice(bytes);
        put(0, b"\x7fELF\x02\x01\x01");
        put(0x18, &0x1000u64.to_le_bytes()); // e_entry
        put(0x20, &0x40u64.to_le_bytes()); // e_phoff
        put(0x28, &0x300u64.to_le_bytes()); // e_shoff
        put(0x36, &56u16.to_le_bytes()); // e_phentsize
        put(0x38, &1u16.to_le_bytes()); // e_phnum
        put(0x3a, &64u16.to_le_bytes()); // e_shentsize
        put(0x3c, &3u16.to_le_bytes()); // e_shnum
        put(0x40, &1u32.to_le_bytes()); // PT_LOAD
        put(0x44, &5u32.to_le_bytes()); // R + X
        put(0x48, &0x100u64.to_le_bytes()); // p_offset
        put(0x50, &0x1000u64.to_le_bytes()); // p_vaddr
        put(0x60, &0x100u64.to_le_bytes()); // p_filesz
        let names = b"\0alpha\0beta\0data\0outside\0";
        put(0x2a0, names);
        // Symbols at 0x200: null, alpha (FUNC), beta (FUNC), data (OBJECT), outside (FUNC).
        for (index, (name, kind, address)) in [
            (1u32, 2u8, 0x1000u64),
            (7, 2, 0x1040),
            (12, 1, 0x1000),
            (17, 2, 0x5000),
        ]
        .into_iter()
        .enumerate()
        {
            let symbol = 0x200 + 24 * (index + 1);
            put(symbol, &name.to_le_bytes());
            put(symbol + 4, &[kind]);
            put(symbol + 8, &address.to_le_bytes());
        }
        // Section headers at 0x300: null, .symtab (linked to 2), .strtab.
        put(0x340 + 4, &2u32.to_le_bytes());
        put(0x340 + 0x18, &0x200u64.to_le_bytes());
        put(0x340 + 0x20, &(5 * 24u64).to_le_bytes());
        put(0x340 + 0x28, &2u32.to_le_bytes());
        put(0x340 + 0x38, &24u64.to_le_bytes());
        put(0x380 + 4, &3u32.to_le_bytes());
        put(0x380 + 0x18, &0x2a0u64.to_le_bytes());
        put(0x380 + 0x20, &(names.len() as u64).to_le_bytes());
        elf
    }

    #[test]
    fn only_functions_inside_the_code_are_read() {
        let found = functions(&small_elf()).unwrap();
        assert_eq!(found.entry, 0x1000);
        assert_eq!(found.code, (0x1000, 0x100, 0x100));
        assert_eq!(
            found.symbols,
            [(0x1000, "alpha".to_owned()), (0x1040, "beta".to_owned())]
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 5000,
            failure_persistence: None,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0xE1F),
            ..ProptestConfig::default()
        })]

        /// Damaged files (any bytes changed, extreme offsets and sizes, cut short) give an
        /// answer or an error, never a panic.
        #[test]
        fn a_damaged_file_never_panics(
            bytes in proptest::collection::vec((0usize..0x400, any::<u8>()), 1..8),
            words in proptest::collection::vec(
                (
                    // Half the time one of the offset or size fields, else anywhere.
                    prop_oneof![
                        proptest::sample::select(vec![
                            0x20, 0x28, 0x48, 0x50, 0x60, 0x358, 0x360, 0x378, 0x398, 0x3a0,
                            0x230, 0x248,
                        ]),
                        0usize..0x3f8,
                    ],
                    prop_oneof![Just(u64::MAX), Just(u64::MAX - 1), any::<u64>()],
                ),
                0..3,
            ),
            length in 0usize..=0x400,
        ) {
            let mut elf = small_elf();
            for (at, byte) in bytes {
                elf[at] = byte;
            }
            for (at, word) in words {
                elf[at..at + 8].copy_from_slice(&word.to_le_bytes());
            }
            elf.truncate(length);
            let _ = functions(&elf);
        }
    }

    #[test]
    fn a_stripped_or_foreign_file_is_refused_with_a_reason() {
        let error = functions(b"MZ not an ELF file").unwrap_err();
        assert_eq!(error.to_string(), "not a 64-bit little-endian ELF file");
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let error = functions(&me[..64]).unwrap_err();
        assert_eq!(error.to_string(), "the ELF file is truncated or malformed");
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
