//! The HTTP side of the command line: the `--http` flags, `token new`, and serving. Built only
//! with the `http` feature (on by default); without it, every HTTP flag and `token` is a usage
//! error saying so, and the binary carries no async runtime.

use crate::UsageError;
use std::path::Path;

/// The flags that only mean something with `--http` (and `--http` itself).
pub(crate) const FLAGS: &[&str] = &[
    "http",
    "http-path",
    "stateless",
    "session-idle",
    "tokens",
    "allow-origin",
    "cors",
    "rate-limit",
];

/// True when this build serves HTTP (the `http` feature).
pub(crate) const ENABLED: bool = cfg!(feature = "http");

/// The usage error of every HTTP flag and of `token` in a build without HTTP.
pub(crate) fn unavailable(what: &str) -> UsageError {
    UsageError(format!(
        "{what}: this botmesh-mcp was built without HTTP support (the `http` feature); serve \
         stdio, or use a build with default features"
    ))
}

#[cfg(feature = "http")]
pub(crate) use enabled::*;

#[cfg(not(feature = "http"))]
pub(crate) use disabled::*;

#[cfg(feature = "http")]
mod enabled {
    use super::{Path, UsageError};
    use botmesh_mcp::McpServer;
    use botmesh_mcp_http::HttpOptions;
    use lexopt::ValueExt as _;
    use std::net::SocketAddr;
    use std::process::ExitCode;
    use std::time::Duration;

    /// How to serve HTTP, once the command line is read.
    pub(crate) type Serve = Box<HttpOptions>;

    /// The HTTP flags, gathered while the command line is read.
    #[derive(Default)]
    pub(crate) struct Flags {
        addr: Option<SocketAddr>,
        /// The first flag seen that needs `--http`.
        needs_http: Option<String>,
        options: HttpOptions,
    }

    impl Flags {
        /// Reads one of [`super::FLAGS`] (and its value).
        pub(crate) fn read(
            &mut self,
            flag: &str,
            parser: &mut lexopt::Parser,
        ) -> Result<(), UsageError> {
            if flag != "http" {
                self.needs_http.get_or_insert_with(|| format!("--{flag}"));
            }
            let options = std::mem::take(&mut self.options);
            self.options = match flag {
                "http" => {
                    self.addr = Some(parse_addr(&parser.value()?.string()?)?);
                    options
                }
                "http-path" => options.with_path(parser.value()?.string()?),
                "stateless" => options.with_stateless(true),
                "session-idle" => {
                    let seconds: u64 = parser.value()?.parse()?;
                    options.with_session_idle(Duration::from_secs(seconds.max(1)))
                }
                "tokens" => options.with_tokens_file(Some(parser.value()?.into())),
                "allow-origin" => {
                    let mut options = options;
                    options.allowed_origins.push(parser.value()?.string()?);
                    options
                }
                "cors" => {
                    let mut options = options;
                    options.cors_origins.push(parser.value()?.string()?);
                    options
                }
                "rate-limit" => options.with_rate_limit_per_minute(parser.value()?.parse()?),
                _ => options,
            };
            Ok(())
        }

        /// `Some` when `--http` was given; an HTTP flag without `--http` is a usage error.
        pub(crate) fn finish(self) -> Result<Option<Serve>, UsageError> {
            match (self.addr, self.needs_http) {
                (Some(addr), _) => Ok(Some(Box::new(self.options.with_addr(addr)))),
                (None, Some(flag)) => Err(UsageError(format!("{flag} needs --http ADDR"))),
                (None, None) => Ok(None),
            }
        }
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

    /// Serves HTTP until SIGINT/SIGTERM.
    #[expect(clippy::print_stderr, reason = "the command's own error line")]
    pub(crate) fn serve(server: McpServer, options: Serve) -> ExitCode {
        match botmesh_mcp_http::serve(server, *options) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("botmesh-mcp: {error}");
                ExitCode::from(2)
            }
        }
    }

    /// `token new`: appends a token to the tokens file and prints it.
    #[expect(
        clippy::print_stdout,
        clippy::print_stderr,
        reason = "the token itself, and the command's own messages"
    )]
    pub(crate) fn new_token(scopes: &[String], tokens: &Path) -> ExitCode {
        match botmesh_mcp_http::new_token(tokens, scopes) {
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
}

#[cfg(not(feature = "http"))]
mod disabled {
    use super::{Path, UsageError, unavailable};
    use botmesh_mcp::McpServer;
    use std::process::ExitCode;

    /// Nothing: this build cannot serve HTTP.
    pub(crate) enum Serve {}

    /// Refuses every HTTP flag (a field, so that it is built like the real one).
    #[derive(Default)]
    pub(crate) struct Flags {
        _none: (),
    }

    impl Flags {
        /// Always a usage error: the build has no HTTP transport.
        pub(crate) fn read(
            &mut self,
            flag: &str,
            _parser: &mut lexopt::Parser,
        ) -> Result<(), UsageError> {
            Err(unavailable(&format!("--{flag}")))
        }

        /// Never HTTP.
        pub(crate) fn finish(self) -> Result<Option<Serve>, UsageError> {
            Ok(None)
        }
    }

    /// Unreachable: no [`Serve`] value exists.
    pub(crate) fn serve(_server: McpServer, options: Serve) -> ExitCode {
        match options {}
    }

    /// Unreachable: `token` is refused while parsing.
    pub(crate) fn new_token(_scopes: &[String], _tokens: &Path) -> ExitCode {
        ExitCode::from(2)
    }
}
