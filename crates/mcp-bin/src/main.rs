//! The `botmesh-mcp` command: argument parsing, logging set-up and exit codes; nothing else.
//!
//! - `botmesh-mcp [--docs DIR] [--tools LIST]` serves MCP over stdio until stdin ends;
//! - `botmesh-mcp --http ADDR [...]` serves the same tools over Streamable HTTP (`http.rs`);
//! - the subcommands of [`SUBCOMMANDS`], each in its module: `check` validates and lints flow
//!   files for CI, `render` draws one as PNG or SVG, `chat` talks to one in a terminal, `test`
//!   runs conversation test files (with coverage, for CI), `migrate` brings version 0 and 1
//!   flow files to version 2;
//! - `botmesh-mcp token new --scopes LIST --tokens FILE` adds a bearer token for `--http`.
//!
//! `--help` is [`usage`]: this file's usage lines, then each subcommand's own, so the two never
//! disagree (an end-to-end test holds every usage text to its parser's flags, and the README's
//! copy of the usage lines to `--help`).

mod chat;
mod check;
mod env;
mod http;
mod logjson;
mod migrate;
mod render;
mod test;

use botmesh_mcp::{OptionsError, ServeError, ServerOptions, create_mcp_server, run_stdio};
use env::Var;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

/// The top of `--help`: what the command is, and how it serves.
const USAGE_HEAD: &str = "\
botmesh-mcp: an MCP server for botmesh flow documents and guides

Usage:
  botmesh-mcp [--docs DIR] [--tools LIST] [--no-ui]        serve MCP on stdio
  botmesh-mcp --http ADDR [HTTP OPTIONS] [--docs DIR] [--tools LIST] [--no-ui]";

/// The rest of `--help`, after the subcommands' usage lines (and before the environment).
const USAGE_TAIL: &str = "  botmesh-mcp token new --scopes flow,docs --tokens FILE

botmesh-mcp COMMAND --help prints what the options of a command do.

Options:
  --docs DIR            serve docs_search and docs_page over this Markdown tree
                        (default: $BOTMESH_DOCS_DIR, then the legacy $BOTWA_DOCS_DIR)
  --tools LIST          serve only these tools (comma-separated names)
  --no-ui               never offer the MCP Apps view (ui://botmesh/flow: the picture and
                        the phone) to clients that show it (default: offered; also off
                        with BOTMESH_UI=0)
  --log-format FORMAT   text (default) or json, for the logs on stderr
  -h, --help            print this help and exit
  -V, --version         print the version and exit

HTTP options (Streamable HTTP, one server for a team):
  --http ADDR           listen on ADDR (e.g. 127.0.0.1:8080, or a port for 127.0.0.1);
                        a non-loopback address needs --tokens
  --http-path PATH      the MCP endpoint (default /mcp)
  --stateless           issue no session ids (several instances behind a load balancer)
  --session-idle SECS   close sessions idle this long (default 1800)
  --tokens FILE         require bearer tokens from FILE (made by `botmesh-mcp token new`)
  --allow-origin ORIGIN accept this Origin/Host besides loopback (repeatable)
  --cors ORIGIN         answer CORS requests from ORIGIN (repeatable; off by default)
  --rate-limit N        requests (POSTs) per minute per token or client address
                        (default 120, 0: off); per instance
  --max-inflight-body BYTES
                        request-body bytes held at once, all clients together (default 64M;
                        suffixes K, M, G); past it a request answers 503 before its body is read
  --max-concurrent-per-token N
                        requests in flight per token or client address (default 8, 0: off)
  --metrics ADDR        also serve /metrics, /healthz and /readyz on ADDR, without a token
  --audit FILE          append one JSON line per tool call to FILE (reopened on SIGHUP)
  --session-secret-file FILE
                        self-verifying session ids: instances sharing FILE accept each
                        other's sessions (no sticky sessions needed)

On SIGHUP the tokens file is read again and the audit file reopened; SIGTERM and SIGINT stop
accepting, finish in-flight requests and exit 0.

Logs go to stderr (filter with RUST_LOG, e.g. RUST_LOG=debug); stdout carries only protocol
messages. On stdio the server exits with status 0 when stdin ends.";

/// A subcommand: the word that names it, what runs it (on the arguments after that word), and
/// its usage text, whose first paragraph (its usage lines) the top-level `--help` quotes.
struct Subcommand {
    name: &'static str,
    run: fn(Vec<OsString>) -> ExitCode,
    usage: fn() -> &'static str,
}

/// Every subcommand but `token` (parsed here, with the server's flags): a new one is a row.
const SUBCOMMANDS: &[Subcommand] = &[
    Subcommand {
        name: "check",
        run: check::run,
        usage: check::usage,
    },
    Subcommand {
        name: "render",
        run: render::run,
        usage: render::usage,
    },
    Subcommand {
        name: "chat",
        run: chat::run,
        usage: chat::usage,
    },
    Subcommand {
        name: "test",
        run: test::run,
        usage: test::usage,
    },
    Subcommand {
        name: "migrate",
        run: migrate::run,
        usage: migrate::usage,
    },
];

/// The longest line of the usage lines `--help` writes; longer ones are wrapped between
/// bracketed groups, the continuation aligned after the command's name.
const USAGE_WIDTH: usize = 96;

/// The usage lines of a subcommand's usage text (its first paragraph, `usage: ` left out), as
/// `--help` writes them: two spaces in, wrapped at [`USAGE_WIDTH`].
fn usage_lines(usage: &str) -> Vec<String> {
    let paragraph = usage.split("\n\n").next().unwrap_or(usage);
    let paragraph = paragraph.strip_prefix("usage: ").unwrap_or(paragraph);
    // A line that does not start with the command's name continues the one before it.
    let mut commands: Vec<String> = Vec::new();
    for line in paragraph.lines() {
        let words = line.trim();
        match commands.last_mut() {
            Some(last) if !words.starts_with("botmesh-mcp") => {
                last.push(' ');
                last.push_str(words);
            }
            _ => commands.push(words.to_owned()),
        }
    }
    commands.iter().flat_map(|command| wrap(command)).collect()
}

/// `command` on lines of at most [`USAGE_WIDTH`] characters, broken only between top-level
/// groups (never inside `[...]`), continuation lines aligned after `botmesh-mcp NAME `.
fn wrap(command: &str) -> Vec<String> {
    let mut units: Vec<String> = Vec::new();
    let mut depth = 0usize;
    for word in command.split(' ') {
        match units.last_mut() {
            Some(unit) if depth > 0 => {
                unit.push(' ');
                unit.push_str(word);
            }
            _ => units.push(word.to_owned()),
        }
        depth = (depth + word.matches('[').count()).saturating_sub(word.matches(']').count());
    }
    let indent = " ".repeat(2 + units.iter().take(2).map(|u| u.len() + 1).sum::<usize>());
    let mut lines = Vec::new();
    let mut line = String::from("  ");
    for unit in units {
        if line.len() + unit.len() > USAGE_WIDTH && line.len() > indent.len() {
            lines.push(line.trim_end().to_owned());
            line.clone_from(&indent);
        }
        line.push_str(&unit);
        line.push(' ');
    }
    lines.push(line.trim_end().to_owned());
    lines
}

/// The top-level `--help`: the server's usage lines, each subcommand's, the options, and the
/// environment variables the binary reads.
fn usage() -> String {
    let mut text = format!("{USAGE_HEAD}\n");
    for subcommand in SUBCOMMANDS {
        for line in usage_lines((subcommand.usage)()) {
            text.push_str(&line);
            text.push('\n');
        }
    }
    text.push_str(USAGE_TAIL);
    text.push_str("\n\nEnvironment:\n");
    for var in Var::ALL {
        text.push_str(&format!("  {:<24}{}\n", var.name(), var.help()));
    }
    text.pop();
    text
}

/// What the command line asks for.
enum Command {
    /// The server options, how to serve HTTP (stdio without), and whether logs are JSON lines.
    Serve(ServerOptions, Option<http::Serve>, bool),
    NewToken {
        scopes: Vec<String>,
        tokens: PathBuf,
    },
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

fn comma_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(str::to_owned)
        .collect()
}

fn parse_token_command(args: Vec<OsString>) -> Result<Command, UsageError> {
    use lexopt::prelude::*;
    if !http::ENABLED {
        return Err(http::unavailable("token"));
    }
    let mut parser = lexopt::Parser::from_args(args);
    match parser.next()? {
        Some(Value(action)) if action == "new" => {}
        Some(other) => return Err(other.unexpected().into()),
        None => {
            return Err(UsageError(
                "token: say `token new --scopes LIST --tokens FILE`".into(),
            ));
        }
    }
    let (mut scopes, mut tokens) = (None, None);
    while let Some(arg) = parser.next()? {
        match arg {
            Long("scopes") => scopes = Some(comma_list(&parser.value()?.string()?)),
            Long("tokens") => tokens = Some(PathBuf::from(parser.value()?)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    match (scopes, tokens) {
        (Some(scopes), Some(tokens)) => Ok(Command::NewToken { scopes, tokens }),
        _ => Err(UsageError(
            "token new needs --scopes LIST and --tokens FILE".into(),
        )),
    }
}

fn parse(args: Vec<OsString>) -> Result<Command, UsageError> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut docs: Option<PathBuf> = None;
    let mut tools: Option<Vec<String>> = None;
    let mut http_flags = http::Flags::default();
    let mut json_logs = false;
    let mut no_ui = false;
    while let Some(arg) = parser.next()? {
        match arg {
            Short('h') | Long("help") => return Ok(Command::Help),
            Short('V') | Long("version") => return Ok(Command::Version),
            Long("docs") => docs = Some(parser.value()?.into()),
            // An unknown name is an error when the server is made (`OptionsError`).
            Long("tools") => tools = Some(comma_list(&parser.value()?.string()?)),
            Long("no-ui") => no_ui = true,
            Long("log-format") => match parser.value()?.string()?.as_str() {
                "json" => json_logs = true,
                "text" => json_logs = false,
                other => {
                    return Err(UsageError(format!(
                        "--log-format: expected text or json, got {other}"
                    )));
                }
            },
            Long(flag) if http::FLAGS.contains(&flag) => {
                let flag = flag.to_owned();
                http_flags.read(&flag, &mut parser)?;
            }
            _ => return Err(arg.unexpected().into()),
        }
    }
    let http = http_flags.finish()?;
    let docs = docs.or_else(|| {
        [Var::DocsDir, Var::LegacyDocsDir]
            .into_iter()
            .find_map(|var| var.read().filter(|value| !value.is_empty()))
            .map(PathBuf::from)
    });
    let ui = !no_ui && ui_from_env(Var::Ui.read())?;
    Ok(Command::Serve(
        ServerOptions::default()
            .with_docs_dir(docs)
            .with_tools(tools)
            .with_ui(ui),
        http,
        json_logs,
    ))
}

/// `BOTMESH_UI`: whether to offer the MCP Apps view. Unset or empty: yes; `1`, `true`, `yes`,
/// `on`: yes; `0`, `false`, `no`, `off`: no (any case); anything else is a usage error, so a
/// typo never leaves the view on without a word.
fn ui_from_env(value: Option<OsString>) -> Result<bool, UsageError> {
    let Some(value) = value else {
        return Ok(true);
    };
    let text = value.to_string_lossy().trim().to_ascii_lowercase();
    match text.as_str() {
        "" | "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(UsageError(format!(
            "BOTMESH_UI: expected 0 or 1 (or false/true, no/yes, off/on), got {:?}",
            value.to_string_lossy()
        ))),
    }
}

/// Logs to stderr; `RUST_LOG` (a `target=level,...` list) overrides the default, which is
/// warnings, plus the HTTP transport's audit lines when serving HTTP.
fn init_logging(http: bool, json: bool) {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::prelude::*;
    let default = if http {
        Targets::new()
            .with_default(LevelFilter::WARN)
            .with_target("botmesh_mcp_http", LevelFilter::INFO)
    } else {
        Targets::new().with_default(LevelFilter::WARN)
    };
    let filter = Var::RustLog
        .read()
        .and_then(|spec| spec.into_string().ok())
        .and_then(|spec| spec.parse::<Targets>().ok())
        .unwrap_or(default);
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(false);
    if json {
        let layer = layer.event_format(logjson::JsonLines);
        tracing_subscriber::registry()
            .with(filter)
            .with(layer)
            .init();
    } else {
        tracing_subscriber::registry()
            .with(filter)
            .with(layer)
            .init();
    }
}

#[expect(clippy::print_stdout, reason = "the command's own help and version")]
fn main() -> ExitCode {
    let mut args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let first = args.first().and_then(|arg| arg.to_str());
    if let Some(subcommand) = SUBCOMMANDS.iter().find(|s| Some(s.name) == first) {
        args.remove(0);
        return (subcommand.run)(args);
    }
    let command = if first == Some("token") {
        args.remove(0);
        parse_token_command(args)
    } else {
        parse(args)
    };
    match command {
        Ok(Command::Help) => {
            println!("{}", usage());
            ExitCode::SUCCESS
        }
        Ok(Command::Version) => {
            println!("botmesh-mcp {}", botmesh_mcp::SERVER_VERSION);
            ExitCode::SUCCESS
        }
        Ok(Command::NewToken { scopes, tokens }) => http::new_token(&scopes, &tokens),
        Ok(Command::Serve(options, http, json_logs)) => {
            if http.is_some() {
                http::fixed_mmap_threshold();
            }
            init_logging(http.is_some(), json_logs);
            let served = match http {
                None => run_stdio(options),
                Some(http) => match create_mcp_server(options) {
                    Ok(server) => return http::serve(server, http),
                    Err(error) => Err(ServeError::Options(error)),
                },
            };
            match served {
                Ok(()) => ExitCode::SUCCESS,
                Err(ServeError::Options(OptionsError::UnknownTool { name, known })) => usage_error(
                    &format!("--tools: unknown tool \"{name}\" (known: {known})"),
                ),
                Err(error) => {
                    tracing::error!("{error}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(UsageError(message)) => usage_error(&message),
    }
}

/// Prints a usage error and the usage on stderr; exit status 2.
#[expect(clippy::print_stderr, reason = "the command's own usage errors")]
fn usage_error(message: &str) -> ExitCode {
    eprintln!("botmesh-mcp: {message}\n\n{}", usage());
    ExitCode::from(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_lines_are_quoted_whole_and_wrapped_between_groups() {
        let text = "usage: botmesh-mcp x FILE [--aaaa AAAA]... [--bbbb [--cccc CCCC] [--dddd]]\n                     [--eeee EEEE] [--ffff FFFF] [--gggg GGGG] [--hhhh HHHH] [--iiii IIII] FILE...\n       botmesh-mcp x --jjjj\n\nOptions.";
        assert_eq!(
            usage_lines(text),
            [
                "  botmesh-mcp x FILE [--aaaa AAAA]... [--bbbb [--cccc CCCC] [--dddd]] [--eeee EEEE]",
                "                [--ffff FFFF] [--gggg GGGG] [--hhhh HHHH] [--iiii IIII] FILE...",
                "  botmesh-mcp x --jjjj",
            ]
        );
        let help = usage();
        for subcommand in SUBCOMMANDS {
            for line in usage_lines((subcommand.usage)()) {
                assert!(line.len() <= USAGE_WIDTH, "{line}");
                assert!(help.contains(&line), "{line}");
            }
        }
    }
}
