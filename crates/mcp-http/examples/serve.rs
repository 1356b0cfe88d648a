//! Serves botmesh-mcp over HTTP until SIGINT/SIGTERM, with the flags `botmesh-mcp --http` takes:
//! `cargo run -p botmesh-mcp-http --example serve -- --http 127.0.0.1:3000 [--http-path P]
//! [--stateless] [--session-idle SECS] [--tokens FILE] [--allow-origin O]... [--cors O]...
//! [--rate-limit N] [--tools LIST] [--docs DIR]`, and `serve token new --scopes LIST --tokens FILE`
//! (prints a new token once on stdout).
use botmesh_mcp::{ServerOptions, create_mcp_server};
use botmesh_mcp_http::{HttpOptions, serve};
use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::INFO)
        .init();
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            tracing::error!("{message}");
            ExitCode::from(2)
        }
    }
}

#[expect(
    clippy::print_stdout,
    reason = "the token is the command's output, printed once"
)]
fn token_new(args: &[String]) -> Result<(), String> {
    let value = |flag: &str| {
        let at = args.iter().position(|a| a == flag);
        at.and_then(|i| args.get(i + 1))
            .ok_or_else(|| format!("token new needs {flag}"))
    };
    let scopes: Vec<String> = value("--scopes")?.split(',').map(str::to_owned).collect();
    let file = std::path::PathBuf::from(value("--tokens")?);
    let token = botmesh_mcp_http::new_token(&file, &scopes).map_err(|e| e.to_string())?;
    println!("{token}");
    Ok(())
}

fn run() -> Result<(), String> {
    let all: Vec<String> = std::env::args().skip(1).collect();
    if all.len() >= 2 && all[0] == "token" && all[1] == "new" {
        return token_new(&all[2..]);
    }
    let mut http = HttpOptions::default();
    let mut server = ServerOptions::default();
    let mut args = std::env::args().skip(1);
    let (mut allowed, mut cors) = (Vec::new(), Vec::new());
    while let Some(flag) = args.next() {
        if flag == "--stateless" {
            http = http.with_stateless(true);
            continue;
        }
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = |v: &str| {
            v.parse::<u64>()
                .map_err(|_| format!("{flag}: not a number"))
        };
        http = match flag.as_str() {
            "--http" => http.with_addr(value.parse().map_err(|_| "--http: not an address")?),
            "--http-path" => http.with_path(value),
            "--session-idle" => http.with_session_idle(Duration::from_secs(number(&value)?)),
            "--tokens" => http.with_tokens_file(Some(value.into())),
            "--rate-limit" => http.with_rate_limit_per_minute(
                u32::try_from(number(&value)?).map_err(|_| "--rate-limit: too large")?,
            ),
            "--allow-origin" => {
                allowed.push(value);
                http
            }
            "--cors" => {
                cors.push(value);
                http
            }
            "--tools" => {
                server = server.with_tools(Some(value.split(',').map(str::to_owned).collect()));
                http
            }
            "--docs" => {
                server = server.with_docs_dir(Some(value.into()));
                http
            }
            _ => return Err(format!("unknown flag {flag}")),
        };
    }
    let http = http.with_allowed_origins(allowed).with_cors_origins(cors);
    let server = create_mcp_server(server).map_err(|e| e.to_string())?;
    serve(server, http).map_err(|e| e.to_string())
}
