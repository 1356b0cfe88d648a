//! The Streamable HTTP transport of botmesh-mcp: one [`McpServer`] hosted for a whole team,
//! safe by default.
//!
//! ```no_run
//! use botmesh_mcp::{ServerOptions, create_mcp_server};
//! use botmesh_mcp_http::{HttpOptions, serve};
//! let server = create_mcp_server(ServerOptions::default())?;
//! // Blocks until SIGINT/SIGTERM, then lets in-flight requests finish.
//! serve(server, HttpOptions::default())?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What it serves
//! - `POST <path>` (default `/mcp`) with one JSON-RPC message, or a batch where the server's
//!   rule allows one (`botmesh_mcp::accepts_batches`: every revision but 2026-07-28), answered as `application/json` (or as a one-event `text/event-stream` when the
//!   client accepts only that); only notifications or responses answer `202` with no body.
//!   `Accept` without JSON or an event stream answers `406`; a `Content-Type` other than
//!   `application/json` answers `415`.
//! - A successful `initialize` returns `Mcp-Session-Id` (128 random bits, hex); later POSTs
//!   without it answer `400`, with an unknown, expired (idle longer than
//!   [`HttpOptions::session_idle`]) or other-token one `404`. `DELETE` closes a session (`204`).
//!   `GET` answers `405` with `Allow` (there is no server-initiated stream). With
//!   [`HttpOptions::stateless`] no session ids are issued: each POST is served by a session
//!   opened at the revision of its `MCP-Protocol-Version` header (2025-03-26 when absent).
//! - `MCP-Protocol-Version`: absent means 2025-03-26 (or the session's revision); an unsupported
//!   value answers `400` listing the revisions spoken; never required on `initialize`. The value
//!   `2026-07-28` routes the POST to the server's stateless path, where `Mcp-Method` (and
//!   `Mcp-Name` for `tools/call`) must repeat the body and the header must equal the body's
//!   `_meta` version (`-32020` otherwise; checked by the server, `botmesh_mcp::RoutingHeaders`) (no session, and
//!   `-32601` → `404`, `-32602`/`-32022`/… → `400`).
//! - Bodies larger than the server's max message length (in bytes here) answer `413`, decided
//!   from `Content-Length` or while streaming, never by holding the whole body; a body that is
//!   not JSON, or neither an object nor an array, answers `400`. Both carry the error stdio
//!   gives a line of the same bytes, in the same words (`botmesh_mcp::parse_message`,
//!   `botmesh_mcp::message_too_long`). Headers and
//!   then the body must each arrive within [`HttpOptions::request_timeout`] (a slow body answers
//!   `408`, slow headers close the connection).
//! - SIGINT/SIGTERM stop accepting, turn `/readyz` to `503`, let in-flight requests finish (up
//!   to [`HttpOptions::shutdown_grace`]), sync the audit file and return.
//!
//! # Safety
//! - Listens on `127.0.0.1:3000` unless told otherwise; a non-loopback address without a tokens
//!   file is refused ([`Error::InsecureBind`]).
//! - DNS-rebinding protection: `Host` and `Origin` must name a loopback host, the bound address,
//!   or an [`HttpOptions::allowed_origins`] entry (`403` otherwise; no `Origin` is fine).
//! - Bearer tokens ([`new_token`], [`HttpOptions::tokens_file`]): only SHA-256 hashes are stored,
//!   compared in constant time; missing or invalid answers `401` with `WWW-Authenticate:
//!   Bearer`. A token's scopes limit its tools (the server answers an out-of-scope call with a
//!   tool result `isError: true` naming the scope). A session belongs to the token that opened it.
//! - CORS ([`HttpOptions::cors_origins`], off by default): preflights answered, `Mcp-Session-Id`
//!   exposed.
//! - Rate limit per token, or per client address without tokens (`429` with `Retry-After`).
//! - One audit line per tool call at `info` on target `botmesh_mcp_http::audit`: token id, tool
//!   (a catalogue name or `<unknown tool>`), outcome (`ok`, `tool_error`, `scope_denied`,
//!   `protocol_error`), duration; never arguments, documents, results or tokens.
//!
//! # Operating it
//! - Memory: a global budget of request bodies in flight ([`HttpOptions::max_inflight_body`]):
//!   twice the declared length is reserved before a byte of the body is read (`503` with
//!   `Retry-After` when it does not fit), then the estimated parsed size before parsing (`413`
//!   when it could never fit). A per-token cap on requests in flight
//!   ([`HttpOptions::max_concurrent_per_token`], `429`). Bodies over 64 KiB are parsed and
//!   served one at a time.
//! - `GET /healthz` and `GET /readyz` (`503` once shutdown began) need nothing; `GET /metrics`
//!   (Prometheus text) follows the token rule, or is served without one on
//!   [`HttpOptions::metrics_addr`].
//! - [`HttpOptions::audit_file`]: one JSON line per tool call, written before the answer.
//! - On Unix, `SIGHUP` re-reads the tokens file (a removed token is refused from the next
//!   request, a changed token's scopes apply from the next request, in open sessions too; a malformed file keeps the old tokens) and reopens the audit file.
//! - [`HttpOptions::session_secret_file`]: self-verifying session ids that every instance
//!   sharing the secret accepts.
//!
//! # Why an async runtime here
//! The stdio path stays synchronous (house style §4). This crate serves many concurrent,
//! long-lived, mostly idle keep-alive connections with per-connection timeouts and a graceful
//! shutdown that waits for in-flight requests. A thread per connection would cost a stack per
//! idle client and make the timeouts and the shutdown hand-rolled; `tokio` + `hyper` give all
//! of that, a correct HTTP/1.1 parser and keep-alive, in a few hundred kilobytes of binary. The
//! runtime never leaks out: [`serve`] is a blocking function, and the server itself stays sync
//! (tool calls run inline, or under `block_in_place` for bodies over 64 KiB).
//!
//! # Dependencies
//! - `tokio`: the runtime, sockets, timers and signals (see above).
//! - `hyper` 1 (`http1`, `server`): the HTTP/1.1 server; `hyper-util`: its tokio glue and
//!   graceful shutdown; `http-body-util`: the streaming body limit; `bytes`: hyper's body type.
//! - `subtle`: constant-time comparison of token hashes (well reviewed, tiny).
//! - `getrandom`: session ids and tokens from the operating system's generator.

mod audit;
mod error;
mod guard;
mod ops;
mod options;
mod sealed;
mod service;
mod state;
mod store;
mod tokens;

pub use error::Error;
pub use options::{DEFAULT_ADDR, DEFAULT_MAX_INFLIGHT_BODY, HttpOptions};
pub use tokens::new_token;

use botmesh_mcp::McpServer;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use service::Shared;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// How many bodies over 64 KiB are parsed and served at once (see `service.rs`; why one:
/// DECISIONS.md, "HTTP: one large body at a time").
const LARGE_BODIES_AT_ONCE: usize = 1;

/// The addresses a server actually listens on (useful with port 0), given to [`serve_with`]'s
/// `bound` callback before serving.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Listening {
    /// The MCP endpoint's listener.
    pub http: SocketAddr,
    /// The `--metrics` listener, when [`HttpOptions::metrics_addr`] is set.
    pub metrics: Option<SocketAddr>,
}

/// Serves `server` over HTTP until SIGINT or SIGTERM, then lets in-flight requests finish.
///
/// Fails before listening when the options are unsafe or unusable (see [`Error`]).
pub fn serve(server: McpServer, options: HttpOptions) -> Result<(), Error> {
    serve_until(server, options, shutdown_signal(), |addr| {
        tracing::info!(%addr, "botmesh-mcp listening over HTTP");
    })
}

/// Like [`serve`], but stops when `shutdown` completes instead of on a signal, and calls
/// `bound` with the address actually bound (useful with port 0) before serving.
pub fn serve_until<S, B>(
    server: McpServer,
    options: HttpOptions,
    shutdown: S,
    bound: B,
) -> Result<(), Error>
where
    S: Future<Output = ()>,
    B: FnOnce(SocketAddr),
{
    serve_with(server, options, shutdown, |listening: Listening| {
        bound(listening.http);
    })
}

/// Like [`serve_until`], but tells `bound` every address listened on ([`Listening`]).
pub fn serve_with<S, B>(
    server: McpServer,
    options: HttpOptions,
    shutdown: S,
    bound: B,
) -> Result<(), Error>
where
    S: Future<Output = ()>,
    B: FnOnce(Listening),
{
    let shared = prepare(server, options)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("botmesh-http")
        .build()
        .map_err(Error::Runtime)?;
    runtime.block_on(run(Arc::new(shared), shutdown, bound))
}

fn check_path(path: &str) -> Result<(), Error> {
    let ok = path.starts_with('/')
        && !path
            .bytes()
            .any(|b| b.is_ascii_whitespace() || b.is_ascii_control() || b == b'?' || b == b'#');
    if ok { Ok(()) } else { Err(Error::BadPath) }
}

fn prepare(server: McpServer, options: HttpOptions) -> Result<Shared, Error> {
    check_path(&options.path)?;
    if !options.addr.ip().is_loopback() && options.tokens_file.is_none() {
        return Err(Error::InsecureBind { addr: options.addr });
    }
    let tokens = match &options.tokens_file {
        Some(path) => Some(tokens::TokenStore::open(path)?),
        None => None,
    };
    let guard = guard::Guard::new(
        options.addr,
        &options.allowed_origins,
        &options.cors_origins,
    )?;
    let limiter = (options.rate_limit_per_minute > 0)
        .then(|| state::RateLimiter::new(options.rate_limit_per_minute));
    let audit = match &options.audit_file {
        Some(path) => Some(audit::AuditFile::open(path)?),
        None => None,
    };
    let store = if options.stateless {
        store::SessionStore::None
    } else if let Some(path) = &options.session_secret_file {
        store::SessionStore::Sealed(sealed::Sealer::open(path, options.session_idle)?)
    } else {
        store::SessionStore::Table(state::Sessions::new(
            options.session_idle,
            options.max_sessions,
        ))
    };
    let max_body = options
        .max_body_bytes
        .unwrap_or_else(|| server.max_message_length());
    // A body counts at least twice against the budget (its bytes, then its parsed value), so one
    // larger than half the budget could never be served: such bodies answer 413.
    let max_body = max_body.min(options.max_inflight_body / 2);
    Ok(Shared {
        store,
        max_body,
        budget: Arc::new(ops::Budget::new(options.max_inflight_body)),
        concurrency: (options.max_concurrent_per_token > 0)
            .then(|| Arc::new(ops::Concurrency::new(options.max_concurrent_per_token))),
        metrics: ops::Metrics::default(),
        audit,
        ready: std::sync::atomic::AtomicBool::new(true),
        large_gate: tokio::sync::Semaphore::new(LARGE_BODIES_AT_ONCE),
        server,
        guard,
        tokens,
        limiter,
        options,
    })
}

async fn run<S, B>(shared: Arc<Shared>, shutdown: S, bound: B) -> Result<(), Error>
where
    S: Future<Output = ()>,
    B: FnOnce(Listening),
{
    let addr = shared.options.addr;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| Error::Bind { addr, source })?;
    let local = listener
        .local_addr()
        .map_err(|source| Error::Bind { addr, source })?;
    let metrics = match shared.options.metrics_addr {
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|source| Error::Bind { addr, source })?;
            let local = listener
                .local_addr()
                .map_err(|source| Error::Bind { addr, source })?;
            Some((local, tokio::spawn(serve_ops(shared.clone(), listener))))
        }
        None => None,
    };
    #[cfg(unix)]
    let hangups = tokio::spawn(on_hangup(
        shared.clone(),
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
            .map_err(Error::Runtime)?,
    ));
    bound(Listening {
        http: local,
        metrics: metrics.as_ref().map(|(addr, _)| *addr),
    });
    let housekeeping = tokio::spawn(housekeeping(shared.clone()));
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(pair) => pair,
                    Err(error) => {
                        // Out of file descriptors and the like: wait instead of spinning.
                        tracing::warn!(%error, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let timeout = shared.options.request_timeout;
                let shared = shared.clone();
                let service = service_fn(move |request| {
                    service::handle(shared.clone(), peer.ip(), request)
                });
                let connection = http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(timeout)
                    .serve_connection(TokioIo::new(stream), service);
                let connection = graceful.watch(connection);
                tokio::spawn(async move {
                    if let Err(error) = connection.await {
                        tracing::debug!(%peer, %error, "connection ended with an error");
                    }
                });
            }
            () = &mut shutdown => break,
        }
    }
    shared.ready.store(false, Ordering::Release);
    drop(listener);
    housekeeping.abort();
    tracing::info!("shutting down: finishing in-flight requests");
    tokio::select! {
        () = graceful.shutdown() => tracing::info!("all connections closed"),
        () = tokio::time::sleep(shared.options.shutdown_grace) => {
            tracing::warn!("shutdown grace period over; dropping the remaining connections");
        }
    }
    #[cfg(unix)]
    hangups.abort();
    if let Some((_, task)) = metrics {
        task.abort();
    }
    if let Some(audit) = &shared.audit {
        audit.flush();
    }
    Ok(())
}

/// The `--metrics` listener: `/metrics`, `/healthz` and `/readyz` only, until the server stops.
async fn serve_ops(shared: Arc<Shared>, listener: tokio::net::TcpListener) {
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(pair) => pair,
            Err(error) => {
                tracing::warn!(%error, "metrics accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let shared = shared.clone();
        let timeout = shared.options.request_timeout;
        let service = service_fn(move |request| service::handle_ops(shared.clone(), request));
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(timeout)
            .serve_connection(TokioIo::new(stream), service);
        tokio::spawn(async move {
            let _ = connection.await;
        });
    }
}

/// On `SIGHUP`: read the tokens file again and reopen the audit file.
#[cfg(unix)]
async fn on_hangup(shared: Arc<Shared>, mut hangup: tokio::signal::unix::Signal) {
    while hangup.recv().await.is_some() {
        tracing::info!("SIGHUP received: reloading the tokens file, reopening the audit file");
        if let Some(tokens) = &shared.tokens {
            tokens.reload(true);
        }
        if let Some(audit) = &shared.audit {
            audit.reopen();
        }
    }
}

/// Once a second: forget idle sessions and full rate buckets, reload a tokens file whose content
/// changed.
async fn housekeeping(shared: Arc<Shared>) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        shared.store.sweep();
        if let Some(limiter) = &shared.limiter {
            limiter.sweep();
        }
        if let Some(tokens) = &shared.tokens {
            tokens.reload(false);
        }
    }
}

/// Completes on SIGINT or (on Unix) SIGTERM.
async fn shutdown_signal() {
    let interrupt = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::warn!(%error, "cannot listen for SIGINT");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => tracing::info!("SIGINT received"),
        () = terminate => tracing::info!("SIGTERM received"),
    }
}
