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
    "max-inflight-body",
    "max-concurrent-per-token",
    "metrics",
    "audit",
    "session-secret-file",
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
                "max-inflight-body" => {
                    let text = parser.value()?.string()?;
                    options.with_max_inflight_body(parse_bytes("--max-inflight-body", &text)?)
                }
                "max-concurrent-per-token" => {
                    options.with_max_concurrent_per_token(parser.value()?.parse()?)
                }
                "metrics" => {
                    let addr = parse_addr(&parser.value()?.string()?)
                        .map_err(|e| UsageError(e.0.replace("--http", "--metrics")))?;
                    options.with_metrics_addr(Some(addr))
                }
                "audit" => options.with_audit_file(Some(parser.value()?.into())),
                "session-secret-file" => {
                    options.with_session_secret_file(Some(parser.value()?.into()))
                }
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

    /// A byte count: digits with an optional K, M or G suffix (powers of 1024; `iB`/`B` allowed).
    pub(super) fn parse_bytes(flag: &str, text: &str) -> Result<usize, UsageError> {
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

    /// Restarts the process (same pid, same arguments) with glibc's mmap threshold fixed at its
    /// initial 128 KiB, unless the environment already sets it. Called before serving HTTP.
    ///
    /// glibc raises the threshold to the size of each large block freed (up to 32 MiB), so
    /// after a burst of large bodies, blocks of that size would stay in the heap (the figures:
    /// DECISIONS.md, "HTTP: a fixed mmap threshold"). `mallopt` would need `unsafe`, which the
    /// workspace forbids; the variable is read by glibc at start-up, hence the `exec`. Runs
    /// before any thread exists; on failure the server simply runs with glibc's defaults.
    pub(crate) fn fixed_mmap_threshold() {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            use crate::env::Var;
            use std::os::unix::process::CommandExt;
            // glibc's variable that fixes malloc's mmap threshold (the bytes from which an
            // allocation gets its own mapping, returned to the system when freed).
            if Var::MmapThreshold.read().is_some() {
                return;
            }
            let Ok(exe) = std::env::current_exe() else {
                return;
            };
            // Returns only when exec failed; logging is not set up yet.
            let _failed = std::process::Command::new(exe)
                .args(std::env::args_os().skip(1))
                .env(Var::MmapThreshold.name(), "131072")
                .exec();
        }
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

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::enabled::parse_bytes;

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

    /// Nothing to prepare without HTTP.
    pub(crate) fn fixed_mmap_threshold() {}

    /// Unreachable: no [`Serve`] value exists.
    pub(crate) fn serve(_server: McpServer, options: Serve) -> ExitCode {
        match options {}
    }

    /// Unreachable: `token` is refused while parsing.
    pub(crate) fn new_token(_scopes: &[String], _tokens: &Path) -> ExitCode {
        ExitCode::from(2)
    }
}
