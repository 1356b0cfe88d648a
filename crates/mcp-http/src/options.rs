//! [`HttpOptions`]: everything the HTTP transport decides around the server.
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

/// The address used when none is given: loopback only, port 3000.
pub const DEFAULT_ADDR: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(Ipv4Addr::LOCALHOST), 3000);

/// How the HTTP transport serves an [`McpServer`](botmesh_mcp::McpServer).
///
/// Built from [`Default`] plus `with_*` methods:
///
/// ```
/// use botmesh_mcp_http::HttpOptions;
/// let options = HttpOptions::default()
///     .with_path("/mcp/tools")
///     .with_rate_limit_per_minute(600);
/// assert_eq!(options.path, "/mcp/tools");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// Where to listen (default [`DEFAULT_ADDR`], `127.0.0.1:3000`; port 0 picks a free port).
    pub addr: SocketAddr,
    /// The MCP endpoint path (default `/mcp`); every other path answers 404.
    pub path: String,
    /// Issue no session ids: every POST is served on its own, with the revision from its
    /// `MCP-Protocol-Version` header (default false).
    pub stateless: bool,
    /// A session unused for this long is forgotten and its id answers 404 (default 30 minutes).
    pub session_idle: Duration,
    /// The most sessions held at once (default 10,000); past it, `initialize` answers 503.
    pub max_sessions: usize,
    /// The tokens file (hashes and scopes, see [`new_token`](crate::new_token)); when set, every
    /// request needs `Authorization: Bearer <token>`. Required for a non-loopback address.
    pub tokens_file: Option<PathBuf>,
    /// Extra origins or host names accepted in `Origin` and `Host` besides the loopback names.
    pub allowed_origins: Vec<String>,
    /// Origins answered with CORS headers (off when empty; `*` means any origin).
    pub cors_origins: Vec<String>,
    /// Requests per minute per token, or per client address without tokens (default 120; 0 = off).
    pub rate_limit_per_minute: u32,
    /// The longest a client may take to send a request's headers, and then its body (default 30 s).
    pub request_timeout: Duration,
    /// The body limit in bytes; `None` (the default) uses the server's max message length.
    pub max_body_bytes: Option<usize>,
    /// On shutdown, how long in-flight requests get to finish (default 10 s).
    pub shutdown_grace: Duration,
    /// The most request-body bytes held at once across all requests (default
    /// [`DEFAULT_MAX_INFLIGHT_BODY`], 64 MiB). A request whose body would exceed it is answered
    /// `503` with `Retry-After` before its body is read; a body larger than the whole budget
    /// answers `413`. A body is counted from its `Content-Length` (a chunked body as it arrives)
    /// until its answer is ready.
    pub max_inflight_body: usize,
    /// The most requests one token (or, without tokens, one client address) may have in flight at
    /// once (default 8; 0 = no cap). Past it, a request answers `429` with `Retry-After`.
    pub max_concurrent_per_token: usize,
    /// A second listener serving only `/metrics`, `/healthz` and `/readyz`, without
    /// authentication (for a private network); `None` (the default) serves them on
    /// [`addr`](Self::addr) only.
    pub metrics_addr: Option<SocketAddr>,
    /// Append one JSON line per tool call to this file (see the crate docs, "Operating it").
    pub audit_file: Option<PathBuf>,
    /// A file holding the secret shared by every instance behind a load balancer: session ids
    /// become self-verifying, so any instance accepts a session another one opened.
    pub session_secret_file: Option<PathBuf>,
}

/// The default of [`HttpOptions::max_inflight_body`]: 64 MiB.
pub const DEFAULT_MAX_INFLIGHT_BODY: usize = 64 * 1024 * 1024;

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            addr: DEFAULT_ADDR,
            path: "/mcp".to_owned(),
            stateless: false,
            session_idle: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            tokens_file: None,
            allowed_origins: Vec::new(),
            cors_origins: Vec::new(),
            rate_limit_per_minute: 120,
            request_timeout: Duration::from_secs(30),
            max_body_bytes: None,
            shutdown_grace: Duration::from_secs(10),
            max_inflight_body: DEFAULT_MAX_INFLIGHT_BODY,
            max_concurrent_per_token: 8,
            metrics_addr: None,
            audit_file: None,
            session_secret_file: None,
        }
    }
}

impl HttpOptions {
    /// Sets [`addr`](Self::addr).
    pub fn with_addr(mut self, addr: SocketAddr) -> Self {
        self.addr = addr;
        self
    }
    /// Sets [`path`](Self::path).
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }
    /// Sets [`stateless`](Self::stateless).
    pub fn with_stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }
    /// Sets [`session_idle`](Self::session_idle).
    pub fn with_session_idle(mut self, idle: Duration) -> Self {
        self.session_idle = idle;
        self
    }
    /// Sets [`max_sessions`](Self::max_sessions).
    pub fn with_max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }
    /// Sets [`tokens_file`](Self::tokens_file).
    pub fn with_tokens_file(mut self, file: Option<PathBuf>) -> Self {
        self.tokens_file = file;
        self
    }
    /// Sets [`allowed_origins`](Self::allowed_origins).
    pub fn with_allowed_origins(mut self, origins: Vec<String>) -> Self {
        self.allowed_origins = origins;
        self
    }
    /// Sets [`cors_origins`](Self::cors_origins).
    pub fn with_cors_origins(mut self, origins: Vec<String>) -> Self {
        self.cors_origins = origins;
        self
    }
    /// Sets [`rate_limit_per_minute`](Self::rate_limit_per_minute).
    pub fn with_rate_limit_per_minute(mut self, limit: u32) -> Self {
        self.rate_limit_per_minute = limit;
        self
    }
    /// Sets [`request_timeout`](Self::request_timeout).
    pub fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }
    /// Sets [`max_body_bytes`](Self::max_body_bytes).
    pub fn with_max_body_bytes(mut self, limit: Option<usize>) -> Self {
        self.max_body_bytes = limit;
        self
    }
    /// Sets [`shutdown_grace`](Self::shutdown_grace).
    pub fn with_shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }
    /// Sets [`max_inflight_body`](Self::max_inflight_body).
    pub fn with_max_inflight_body(mut self, bytes: usize) -> Self {
        self.max_inflight_body = bytes;
        self
    }
    /// Sets [`max_concurrent_per_token`](Self::max_concurrent_per_token).
    pub fn with_max_concurrent_per_token(mut self, max: usize) -> Self {
        self.max_concurrent_per_token = max;
        self
    }
    /// Sets [`metrics_addr`](Self::metrics_addr).
    pub fn with_metrics_addr(mut self, addr: Option<SocketAddr>) -> Self {
        self.metrics_addr = addr;
        self
    }
    /// Sets [`audit_file`](Self::audit_file).
    pub fn with_audit_file(mut self, file: Option<PathBuf>) -> Self {
        self.audit_file = file;
        self
    }
    /// Sets [`session_secret_file`](Self::session_secret_file).
    pub fn with_session_secret_file(mut self, file: Option<PathBuf>) -> Self {
        self.session_secret_file = file;
        self
    }
}
