//! The `botmesh-mcp` command: argument parsing, logging set-up and exit codes; nothing else.
//!
//! - `botmesh-mcp [--docs DIR] [--tools LIST]` serves MCP over stdio until stdin ends;
//! - `botmesh-mcp --http ADDR [...]` serves the same tools over Streamable HTTP;
//! - `botmesh-mcp check ...` validates and lints flow files for CI;
//! - `botmesh-mcp test ...` runs conversation test files, with coverage, for CI;
//! - `botmesh-mcp migrate ...` brings version 0 and 1 flow files to version 2;
//! - `botmesh-mcp render ...` draws a flow file as PNG or SVG;
//! - `botmesh-mcp token new --scopes LIST --tokens FILE` adds a bearer token for `--http`.

mod chat;
mod check;
mod http;
mod logjson;
mod migrate;
mod render;
mod test;

use botmesh_mcp::{OptionsError, ServeError, ServerOptions, create_mcp_server, run_stdio};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "\
botmesh-mcp: an MCP server for botmesh flow documents and guides

Usage:
  botmesh-mcp [--docs DIR] [--tools LIST] [--no-ui]        serve MCP on stdio
  botmesh-mcp --http ADDR [HTTP OPTIONS] [--docs DIR] [--tools LIST] [--no-ui]
  botmesh-mcp check [--subflows DIR|FILE]... [--format text|json|github]
                    [--max-warnings N] [--fix [--unsafe-fixes] [--diff]] FILE...
  botmesh-mcp render FILE [--subflows DIR|FILE]... [--direction TD|LR|BT|RL]
                     [--theme light|dark] -o OUT.png|OUT.svg
  botmesh-mcp chat FILE [--subflows DIR|FILE]... [--message TEXT | --flow ID]
                   [--contact NAME] [--var NAME=VALUE]... [--handler NAME=JSON]...
  botmesh-mcp test [--subflows DIR|FILE]... [--format text|json|github|junit]
                   [--coverage] [--min-coverage PERCENT] FILE...
  botmesh-mcp test --generate FLOW [--subflows DIR|FILE]...
  botmesh-mcp migrate [--write] FILE...
  botmesh-mcp token new --scopes flow,docs --tokens FILE

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
        ["BOTMESH_DOCS_DIR", "BOTWA_DOCS_DIR"]
            .into_iter()
            .find_map(|name| std::env::var_os(name).filter(|value| !value.is_empty()))
            .map(PathBuf::from)
    });
    let ui = !no_ui && ui_from_env(std::env::var_os("BOTMESH_UI"))?;
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
    let filter = std::env::var("RUST_LOG")
        .ok()
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
    let command = match args.first().and_then(|arg| arg.to_str()) {
        Some("check") => {
            args.remove(0);
            return check::run(args);
        }
        Some("render") => {
            args.remove(0);
            return render::run(args);
        }
        Some("chat") => {
            args.remove(0);
            return chat::run(args);
        }
        Some("test") => {
            args.remove(0);
            return test::run(args);
        }
        Some("migrate") => {
            args.remove(0);
            return migrate::run(args);
        }
        Some("token") => {
            args.remove(0);
            parse_token_command(args)
        }
        _ => parse(args),
    };
    match command {
        Ok(Command::Help) => {
            println!("{USAGE}");
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
    eprintln!("botmesh-mcp: {message}\n\n{USAGE}");
    ExitCode::from(2)
}
