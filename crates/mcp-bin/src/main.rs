//! The `botmesh-mcp` command: argument parsing, logging set-up and exit codes; nothing else.
//!
//! `botmesh-mcp [--docs DIR] [--tools LIST]` serves MCP over stdio until stdin ends;
//! `botmesh-mcp check ...` validates and lints flow files for CI.

mod check;

use botmesh_mcp::{ServerOptions, run_stdio};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "\
botmesh-mcp: an MCP server (stdio) for botmesh flow documents and guides

Usage:
  botmesh-mcp [--docs DIR] [--tools LIST]
  botmesh-mcp check [--subflows DIR|FILE]... [--format text|json|github] FILE...

Options:
  --docs DIR      serve docs_search and docs_page over this Markdown tree
                  (default: $BOTMESH_DOCS_DIR, then the legacy $BOTWA_DOCS_DIR)
  --tools LIST    serve only these tools (comma-separated names)
  -h, --help      print this help and exit
  -V, --version   print the version and exit

Logs go to stderr (filter with RUST_LOG, e.g. RUST_LOG=debug); stdout carries only protocol
messages. The server exits with status 0 when stdin ends.";

/// What the command line asks for.
enum Command {
    Serve(ServerOptions),
    Help,
    Version,
}

/// A usage error: printed with the usage on stderr, exit status 2.
struct UsageError(String);

impl From<lexopt::Error> for UsageError {
    fn from(error: lexopt::Error) -> Self {
        UsageError(error.to_string())
    }
}

fn parse(args: Vec<OsString>) -> Result<Command, UsageError> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut docs: Option<PathBuf> = None;
    let mut tools: Option<Vec<String>> = None;
    while let Some(arg) = parser.next()? {
        match arg {
            Short('h') | Long("help") => return Ok(Command::Help),
            Short('V') | Long("version") => return Ok(Command::Version),
            Long("docs") => docs = Some(parser.value()?.into()),
            Long("tools") => {
                let list = parser.value()?.string()?;
                let names: Vec<String> = list
                    .split(',')
                    .map(str::trim)
                    .filter(|name| !name.is_empty())
                    .map(str::to_owned)
                    .collect();
                let known = botmesh_mcp::internal::builtin_tool_names();
                if let Some(unknown) = names.iter().find(|name| !known.contains(&name.as_str())) {
                    return Err(UsageError(format!(
                        "--tools: unknown tool \"{unknown}\" (known: {})",
                        known.join(", ")
                    )));
                }
                tools = Some(names);
            }
            _ => return Err(arg.unexpected().into()),
        }
    }
    let docs = docs.or_else(|| {
        ["BOTMESH_DOCS_DIR", "BOTWA_DOCS_DIR"]
            .into_iter()
            .find_map(|name| std::env::var_os(name).filter(|value| !value.is_empty()))
            .map(PathBuf::from)
    });
    if let Some(dir) = &docs
        && !dir.is_dir()
    {
        tracing::warn!(
            "docs directory {} does not exist; docs_search and docs_page are not served",
            dir.display()
        );
    }
    Ok(Command::Serve(
        ServerOptions::default()
            .with_docs_dir(docs)
            .with_tools(tools),
    ))
}

fn init_logging() {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::prelude::*;
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|spec| spec.parse::<Targets>().ok())
        .unwrap_or_else(|| Targets::new().with_default(LevelFilter::WARN));
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(false);
    tracing_subscriber::registry()
        .with(filter)
        .with(layer)
        .init();
}

#[expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "the command's own help, version and usage errors"
)]
fn main() -> ExitCode {
    let mut args: Vec<OsString> = std::env::args_os().skip(1).collect();
    if args.first().is_some_and(|arg| arg == "check") {
        args.remove(0);
        return check::run(args);
    }
    init_logging();
    match parse(args) {
        Ok(Command::Help) => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Ok(Command::Version) => {
            println!("botmesh-mcp {}", botmesh_mcp::SERVER_VERSION);
            ExitCode::SUCCESS
        }
        Ok(Command::Serve(options)) => match run_stdio(options) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                tracing::error!("{error}");
                ExitCode::FAILURE
            }
        },
        Err(UsageError(message)) => {
            eprintln!("botmesh-mcp: {message}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
