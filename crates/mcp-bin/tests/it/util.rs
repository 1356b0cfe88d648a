//! The one harness for running the binary (after ripgrep's `tests/util.rs`): [`BIN`], a
//! [`command`] whose environment is cleaned of everything the binary reads, and [`Dir`], a
//! temporary folder that runs the binary inside itself.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The binary under test.
pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_botmesh-mcp");

/// Every environment variable the binary reads, from the one file that reads them: removed
/// from each [`command`], so the settings of whoever runs the tests never reach them (a test
/// sets what it needs).
#[path = "../../src/env.rs"]
#[expect(
    dead_code,
    reason = "the harness names the variables; only the binary reads them"
)]
mod env;

/// `botmesh-mcp` with a clean environment; stdin is empty unless the test pipes it.
pub(crate) fn command() -> Command {
    let mut command = Command::new(BIN);
    for var in env::Var::ALL {
        command.env_remove(var.name());
    }
    command.stdin(Stdio::null());
    command
}

/// Runs `command` with `input` on its stdin (written from another thread, so a large input
/// cannot dead-lock against a full stdout pipe) and collects everything.
pub(crate) fn run_with_input(mut command: Command, input: &str) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn botmesh-mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_owned();
    let writer = std::thread::spawn(move || {
        // The binary may exit before reading everything (e.g. `--help`): not an error here.
        let _ = stdin.write_all(input.as_bytes());
    });
    let output = child.wait_with_output().expect("wait for botmesh-mcp");
    writer.join().expect("the stdin writer");
    output
}

/// A temporary folder, unique per test and process, removed on drop.
pub(crate) struct Dir {
    dir: PathBuf,
}

impl Dir {
    /// A new empty folder; `name` says which test made it.
    pub(crate) fn new(name: &str) -> Dir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "botmesh-mcp-it-{name}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create a temporary folder");
        Dir { dir }
    }

    /// Writes `text` to `rel` (`/`-separated), creating its folders.
    pub(crate) fn write(&self, rel: &str, text: &str) -> &Dir {
        let path = self.path().join(rel);
        fs::create_dir_all(path.parent().expect("a parent")).expect("create folders");
        fs::write(path, text).expect("write a file");
        self
    }

    /// Creates the folder `rel` (and its parents).
    pub(crate) fn create_dir(&self, rel: &str) -> &Dir {
        fs::create_dir_all(self.path().join(rel)).expect("create a folder");
        self
    }

    /// The folder's path.
    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }

    /// The folder's path as text (temporary folders have UTF-8 paths here).
    pub(crate) fn root(&self) -> &str {
        self.dir.to_str().expect("a UTF-8 temporary path")
    }

    /// [`command`], run inside this folder.
    pub(crate) fn command(&self) -> Command {
        let mut command = command();
        command.current_dir(&self.dir);
        command
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}
