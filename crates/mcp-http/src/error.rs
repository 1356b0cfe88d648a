//! The error type of the HTTP transport.
use std::net::SocketAddr;

/// Everything that can stop the HTTP transport from starting, or a token from being issued.
///
/// Messages are one lowercase sentence and never name a file path.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A non-loopback address was given without a tokens file.
    #[error(
        "refusing to listen on {addr} without a tokens file because anyone who can reach that address could call every tool (pass a tokens file, or listen on 127.0.0.1)"
    )]
    InsecureBind {
        /// The address that was refused.
        addr: SocketAddr,
    },
    /// The listening socket could not be opened.
    #[error("cannot listen on {addr}")]
    Bind {
        /// The address that could not be bound.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The endpoint path is not an absolute URL path.
    #[error("the HTTP path must start with `/` and hold no spaces, `?` or `#`")]
    BadPath,
    /// An allowed or CORS origin could not be understood.
    #[error(
        "cannot read `{0}` as an origin (expected `https://host[:port]`, a host name, or `*` for CORS)"
    )]
    BadOrigin(String),
    /// The tokens file could not be read.
    #[error("cannot read the tokens file")]
    ReadTokens(#[source] std::io::Error),
    /// The tokens file could not be written.
    #[error("cannot write the tokens file")]
    WriteTokens(#[source] std::io::Error),
    /// A line of the tokens file is not a token entry.
    #[error("line {line} of the tokens file is not a token entry")]
    MalformedTokens {
        /// The 1-based line number.
        line: usize,
    },
    /// A scope that no tool belongs to.
    #[error("unknown scope `{0}` (the scopes are {names})", names = scope_names())]
    UnknownScope(String),
    /// A token was requested without any scope.
    #[error("a token needs at least one scope ({})", scope_names())]
    NoScopes,
    /// The operating system did not provide random bytes.
    #[error("cannot draw random bytes from the operating system")]
    Random,
    /// The async runtime or the signal handlers could not be set up.
    #[error("cannot start the HTTP runtime")]
    Runtime(#[source] std::io::Error),
    /// The audit file could not be opened.
    #[error("cannot open the audit file")]
    Audit(#[source] std::io::Error),
    /// The session secret file could not be read.
    #[error("cannot read the session secret file")]
    ReadSessionSecret(#[source] std::io::Error),
    /// The session secret is too short to be a secret.
    #[error("the session secret must hold at least {min} bytes (try `openssl rand -hex 32`)")]
    ShortSessionSecret {
        /// The minimum length in bytes.
        min: usize,
    },
}

/// Every scope name, quoted: `` `docs`, `flow` `` (read from [`botmesh_mcp::Scope`]).
fn scope_names() -> String {
    let names: Vec<String> = botmesh_mcp::Scope::ALL
        .iter()
        .map(|scope| format!("`{scope}`"))
        .collect();
    names.join(", ")
}
