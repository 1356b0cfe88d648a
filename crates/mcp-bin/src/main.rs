//! The `botmesh-mcp` command: argument parsing, logging set-up and exit codes; nothing else.
//!
//! - `botmesh-mcp [--docs DIR] [--tools LIST]` serves MCP over stdio until stdin ends;
//! - `botmesh-mcp --http ADDR [...]` serves the same tools over Streamable HTTP;
//! - `botmesh-mcp check ...` validates and lints flow files for CI;
//! - `botmesh-mcp token new --scopes LIST --tokens FILE` adds a bearer token for `--http`.

mod check;
mod logjson;

use botmesh_mcp::{ServerOptions, create_mcp_server, run_stdio};
use botmesh_mcp_http::HttpOptions;
use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

const USAGE: &str = "\
botmesh-mcp: an MCP server for botmesh flow documents and guides

Usage:
  botmesh-mcp [--docs DIR] [--tools LIST]                  serve MCP on stdio
  botmesh-mcp --http ADDR [HTTP OPTIONS] [--docs DIR] [--tools LIST]
  botmesh-mcp check [--subflows DIR|FILE]... [--format text|json|github] FILE...
  botmesh-mcp token new --scopes flow,docs --tokens FILE

Options:
  --docs DIR            serve docs_search and docs_page over this Markdown tree
                        (default: $BOTMESH_DOCS_DIR, then the legacy $BOTWA_DOCS_DIR)
  --tools LIST          serve only these tools (comma-separated names)
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
  --log-format FORMAT   text (default) or json, for the logs on stderr

On SIGHUP the tokens file is read again and the audit file reopened; SIGTERM and SIGINT stop
accepting, finish in-flight requests and exit 0.

Logs go to stderr (filter with RUST_LOG, e.g. RUST_LOG=debug); stdout carries only protocol
messages. On stdio the server exits with status 0 when stdin ends.";

/// What the command line asks for.
enum Command {
    /// The server options, the HTTP options (stdio without), and whether logs are JSON lines.
    Serve(ServerOptions, Option<Box<HttpOptions>>, bool),
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

fn parse_addr(text: &str) -> Result<SocketAddr, UsageError> {
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    let text = text
        .strip_prefix("localhost:")
        .map_or_else(|| text.to_owned(), |port| format!("127.0.0.1:{port}"));
    text.parse().map_err(|_| {
        UsageError(format!(
            "--http: not an address: {text} (try 127.0.0.1:8080)"
        ))
    })
}

/// A byte count: digits with an optional K, M or G suffix (powers of 1024; `iB`/`B` allowed).
fn parse_bytes(flag: &str, text: &str) -> Result<usize, UsageError> {
    let upper = text.trim().to_ascii_uppercase();
    let upper = upper.trim_end_matches("IB").trim_end_matches('B');
    let (digits, shift) = match upper.char_indices().last() {
        Some((i, 'K')) => (&upper[..i], 10),
        Some((i, 'M')) => (&upper[..i], 20),
        Some((i, 'G')) => (&upper[..i], 30),
        _ => (upper, 0),
    };
    digits
        .trim()
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .filter(|n| *n > 0)
        .ok_or_else(|| UsageError(format!("{flag}: not a byte count: {text} (e.g. 64M)")))
}

fn parse_token_command(args: Vec<OsString>) -> Result<Command, UsageError> {
    use lexopt::prelude::*;
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
    let mut http: Option<HttpOptions> = None;
    let mut http_only: Option<String> = None;
    let mut http_options = HttpOptions::default();
    let mut json_logs = false;
    while let Some(arg) = parser.next()? {
        match arg {
            Short('h') | Long("help") => return Ok(Command::Help),
            Short('V') | Long("version") => return Ok(Command::Version),
            Long("docs") => docs = Some(parser.value()?.into()),
            Long("tools") => {
                let names = comma_list(&parser.value()?.string()?);
                let known = botmesh_mcp::internal::builtin_tool_names();
                if let Some(unknown) = names.iter().find(|name| !known.contains(&name.as_str())) {
                    return Err(UsageError(format!(
                        "--tools: unknown tool \"{unknown}\" (known: {})",
                        known.join(", ")
                    )));
                }
                tools = Some(names);
            }
            Long("http") => {
                http =
                    Some(HttpOptions::default().with_addr(parse_addr(&parser.value()?.string()?)?))
            }
            Long("http-path") => {
                http_only.get_or_insert_with(|| "--http-path".into());
                http_options = http_options.with_path(parser.value()?.string()?);
            }
            Long("stateless") => {
                http_only.get_or_insert_with(|| "--stateless".into());
                http_options = http_options.with_stateless(true);
            }
            Long("session-idle") => {
                http_only.get_or_insert_with(|| "--session-idle".into());
                let seconds: u64 = parser.value()?.parse()?;
                http_options = http_options.with_session_idle(Duration::from_secs(seconds.max(1)));
            }
            Long("tokens") => {
                http_only.get_or_insert_with(|| "--tokens".into());
                http_options = http_options.with_tokens_file(Some(parser.value()?.into()));
            }
            Long("allow-origin") => {
                http_only.get_or_insert_with(|| "--allow-origin".into());
                http_options.allowed_origins.push(parser.value()?.string()?);
            }
            Long("cors") => {
                http_only.get_or_insert_with(|| "--cors".into());
                http_options.cors_origins.push(parser.value()?.string()?);
            }
            Long("rate-limit") => {
                http_only.get_or_insert_with(|| "--rate-limit".into());
                http_options = http_options.with_rate_limit_per_minute(parser.value()?.parse()?);
            }
            Long("max-inflight-body") => {
                http_only.get_or_insert_with(|| "--max-inflight-body".into());
                let text = parser.value()?.string()?;
                http_options =
                    http_options.with_max_inflight_body(parse_bytes("--max-inflight-body", &text)?);
            }
            Long("max-concurrent-per-token") => {
                http_only.get_or_insert_with(|| "--max-concurrent-per-token".into());
                http_options = http_options.with_max_concurrent_per_token(parser.value()?.parse()?);
            }
            Long("metrics") => {
                http_only.get_or_insert_with(|| "--metrics".into());
                let addr = parse_addr(&parser.value()?.string()?)
                    .map_err(|e| UsageError(e.0.replace("--http", "--metrics")))?;
                http_options = http_options.with_metrics_addr(Some(addr));
            }
            Long("audit") => {
                http_only.get_or_insert_with(|| "--audit".into());
                http_options = http_options.with_audit_file(Some(parser.value()?.into()));
            }
            Long("session-secret-file") => {
                http_only.get_or_insert_with(|| "--session-secret-file".into());
                http_options = http_options.with_session_secret_file(Some(parser.value()?.into()));
            }
            Long("log-format") => match parser.value()?.string()?.as_str() {
                "json" => json_logs = true,
                "text" => json_logs = false,
                other => {
                    return Err(UsageError(format!(
                        "--log-format: expected text or json, got {other}"
                    )));
                }
            },
            _ => return Err(arg.unexpected().into()),
        }
    }
    let http = match (http, http_only) {
        (Some(http), _) => Some(Box::new(http_options.with_addr(http.addr))),
        (None, Some(flag)) => return Err(UsageError(format!("{flag} needs --http ADDR"))),
        (None, None) => None,
    };
    let docs = docs.or_else(|| {
        ["BOTMESH_DOCS_DIR", "BOTWA_DOCS_DIR"]
            .into_iter()
            .find_map(|name| std::env::var_os(name).filter(|value| !value.is_empty()))
            .map(PathBuf::from)
    });
    Ok(Command::Serve(
        ServerOptions::default()
            .with_docs_dir(docs)
            .with_tools(tools),
        http,
        json_logs,
    ))
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

/// The glibc variable that fixes malloc's mmap threshold (the bytes from which an allocation gets
/// its own mapping, returned to the system when freed).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD_VAR: &str = "MALLOC_MMAP_THRESHOLD_";

/// Serving HTTP, restarts the process (same pid, same arguments) with glibc's mmap threshold fixed
/// at its initial 128 KiB, unless the environment already sets it.
///
/// glibc raises the threshold to the size of each large block freed (up to 32 MiB), so after a
/// burst of 15 MiB bodies, blocks of that size stay in the heap: measured with
/// `crates/mcp-http/benches/body-burst.py`, resident memory stayed at 51 MiB instead of going back
/// to 5.6 MiB (see docs/guide/hosting.md). `mallopt` would need `unsafe`, which the workspace
/// forbids; the variable is read by glibc at start-up, hence the `exec`. Runs before any thread
/// exists; on failure the server simply runs with glibc's defaults.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn fixed_mmap_threshold() {
    use std::os::unix::process::CommandExt;
    if std::env::var_os(MMAP_THRESHOLD_VAR).is_some() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let error = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env(MMAP_THRESHOLD_VAR, "131072")
        .exec();
    // Only reached when exec failed; logging is not set up yet.
    let _ = error;
}

#[expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "the command's own help, version, token and usage errors"
)]
fn main() -> ExitCode {
    let mut args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let command = match args.first().and_then(|arg| arg.to_str()) {
        Some("check") => {
            args.remove(0);
            return check::run(args);
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
        Ok(Command::NewToken { scopes, tokens }) => {
            match botmesh_mcp_http::new_token(&tokens, &scopes) {
                Ok(token) => {
                    println!("{token}");
                    eprintln!(
                        "botmesh-mcp: token added to {} (shown once; only its hash is stored)",
                        tokens.display()
                    );
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    eprintln!("botmesh-mcp: {error}");
                    ExitCode::from(2)
                }
            }
        }
        Ok(Command::Serve(options, http, json_logs)) => {
            #[cfg(all(target_os = "linux", target_env = "gnu"))]
            if http.is_some() {
                fixed_mmap_threshold();
            }
            init_logging(http.is_some(), json_logs);
            match http {
                None => match run_stdio(options) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(error) => {
                        tracing::error!("{error}");
                        ExitCode::FAILURE
                    }
                },
                Some(http) => match botmesh_mcp_http::serve(create_mcp_server(options), *http) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(error) => {
                        eprintln!("botmesh-mcp: {error}");
                        ExitCode::from(2)
                    }
                },
            }
        }
        Err(UsageError(message)) => {
            eprintln!("botmesh-mcp: {message}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_bytes;

    #[test]
    fn byte_counts_take_binary_suffixes_and_refuse_junk() {
        let ok = |text| parse_bytes("--x", text).ok();
        assert_eq!(ok("1024"), Some(1024));
        assert_eq!(ok("64M"), Some(64 << 20));
        assert_eq!(ok("64MiB"), Some(64 << 20));
        assert_eq!(ok("2g"), Some(2 << 30));
        assert_eq!(ok("8KB"), Some(8 << 10));
        for bad in ["", "0", "M", "-1", "1.5M", "12Q"] {
            assert_eq!(ok(bad), None, "{bad}");
        }
    }
}
