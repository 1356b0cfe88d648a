//! One HTTP request in three stages: admission (headers only), reading and parsing the body,
//! serving (the server decides, this module carries).
//!
//! Order: `GET /healthz`, `GET /readyz` (no other check) → `Host`/`Origin` (403) → `GET /metrics`
//! (behind the bearer token when tokens are on) → path (404) → `OPTIONS` (CORS preflight, before
//! auth) → bearer token (401) → rate limit (429) → per-token concurrency (429) → method (405) →
//! `Accept` (406) / `Content-Type` (415) / `Content-Length` (400, 413) → body budget (503,
//! before a byte of the body is read) → body (413/408) → JSON (400) → `McpServer::plan`: an
//! unsupported `MCP-Protocol-Version` (400) → session from the store (400/404) →
//! `McpServer::serve`. Everything up to the budget is decided from the headers alone; nothing
//! here looks into a JSON-RPC message or answer (`cargo xtask tidy` holds it).
use crate::HttpOptions;
use crate::audit::{AuditFile, AuditLine};
use crate::guard::Guard;
use crate::ops::{Budget, Concurrency, Gauges, Metrics, Reservation};
use crate::state::RateLimiter;
use crate::store::{SessionStore, StoreError};
use crate::tokens::{TokenEntry, TokenStore};
use botmesh_mcp::{McpServer, Route, RoutingHeaders, Scope, Served, Session};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

/// Response bodies are always complete byte strings.
pub(crate) type Body = Full<Bytes>;

/// The session header (`Mcp-Session-Id`; header names are case-insensitive).
pub(crate) const SESSION_HEADER: HeaderName = HeaderName::from_static("mcp-session-id");
const VERSION_HEADER: HeaderName = HeaderName::from_static("mcp-protocol-version");

/// The 2026-07-28 routing headers, handed to the server as they came (`RoutingHeaders`).
const METHOD_HEADER: HeaderName = HeaderName::from_static("mcp-method");
const NAME_HEADER: HeaderName = HeaderName::from_static("mcp-name");
/// Bodies larger than this run the server with `block_in_place`, so a long tool call does not
/// hold a runtime worker that other connections need.
const INLINE_BODY_LIMIT: usize = 64 * 1024;

/// Everything every request needs, shared by all connections.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) server: McpServer,
    pub(crate) options: HttpOptions,
    pub(crate) guard: Guard,
    pub(crate) tokens: Option<TokenStore>,
    /// Where sessions live between requests (the table, sealed ids, or none).
    pub(crate) store: SessionStore,
    pub(crate) limiter: Option<RateLimiter>,
    /// The body limit in bytes.
    pub(crate) max_body: usize,
    /// The bytes of request bodies held at once.
    pub(crate) budget: Arc<Budget>,
    /// Requests in flight per token (or client address); `None` without a cap.
    pub(crate) concurrency: Option<Arc<Concurrency>>,
    pub(crate) metrics: Metrics,
    pub(crate) audit: Option<AuditFile>,
    /// False once shutdown began: `/readyz` answers 503.
    pub(crate) ready: AtomicBool,
    /// Turns for parsing and serving a body over [`INLINE_BODY_LIMIT`].
    pub(crate) large_gate: tokio::sync::Semaphore,
}

impl Shared {
    /// The metrics page.
    pub(crate) fn metrics_text(&self) -> String {
        self.metrics.render(&Gauges {
            bodies_in_flight: self.budget.bodies(),
            body_bytes_in_flight: self.budget.used(),
            body_budget_bytes: self.budget.limit(),
            sessions: self.store.len(),
            ready: self.ready.load(Ordering::Acquire),
        })
    }
}

/// What a request turned out to be, for the metrics.
#[derive(Debug)]
struct Labels {
    /// Counted in `botmesh_mcp_http_requests_total` (false for health, readiness and metrics).
    counted: bool,
    method: &'static str,
    tool: &'static str,
}

/// Answers `/healthz`, `/readyz` and `/metrics` (the `--metrics` listener serves only these).
pub(crate) fn ops_endpoint(shared: &Shared, method: &Method, path: &str) -> Option<Response<Body>> {
    if method != Method::GET && method != Method::HEAD {
        return None;
    }
    let text = |status, body: &'static str| {
        response(
            status,
            Some("text/plain; charset=utf-8"),
            Bytes::from_static(body.as_bytes()),
        )
    };
    match path {
        "/healthz" => Some(text(StatusCode::OK, "ok\n")),
        "/readyz" if shared.ready.load(Ordering::Acquire) => Some(text(StatusCode::OK, "ready\n")),
        "/readyz" => Some(text(StatusCode::SERVICE_UNAVAILABLE, "shutting down\n")),
        "/metrics" => Some(response(
            StatusCode::OK,
            Some("text/plain; version=0.0.4; charset=utf-8"),
            Bytes::from(shared.metrics_text()),
        )),
        _ => None,
    }
}

/// Serves one request on the `--metrics` listener: only the operations endpoints.
pub(crate) async fn handle_ops(
    shared: Arc<Shared>,
    request: Request<Incoming>,
) -> Result<Response<Body>, std::convert::Infallible> {
    Ok(
        ops_endpoint(&shared, request.method(), request.uri().path())
            .unwrap_or_else(|| http_error(StatusCode::NOT_FOUND, -32000, "not found")),
    )
}

/// How a request body is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reply {
    Json,
    EventStream,
}

fn header_str(headers: &HeaderMap, name: impl header::AsHeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// A JSON-RPC error without an id, as the body of an HTTP error.
fn error_body(code: i64, message: &str, data: Option<Value>) -> Bytes {
    let mut error = json!({ "code": code, "message": message });
    if let Some(data) = data {
        error["data"] = data;
    }
    Bytes::from(botmesh_mcp::json_line(
        &json!({ "jsonrpc": "2.0", "id": null, "error": error }),
    ))
}

fn response(status: StatusCode, content_type: Option<&'static str>, body: Bytes) -> Response<Body> {
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = status;
    if let Some(content_type) = content_type {
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    }
    response
}

/// An HTTP error whose body is a JSON-RPC error (code -32000 unless given).
fn http_error(status: StatusCode, code: i64, message: &str) -> Response<Body> {
    response(
        status,
        Some("application/json"),
        error_body(code, message, None),
    )
}

fn with_header(mut response: Response<Body>, name: HeaderName, value: &str) -> Response<Body> {
    if let Ok(value) = HeaderValue::from_str(value) {
        response.headers_mut().insert(name, value);
    }
    response
}

fn allow(shared: &Shared) -> &'static str {
    if shared.options.stateless {
        "POST, OPTIONS"
    } else {
        "POST, DELETE, OPTIONS"
    }
}

/// Answers one request; never fails (every problem is a status code).
pub(crate) async fn handle(
    shared: Arc<Shared>,
    peer: IpAddr,
    request: Request<Incoming>,
) -> Result<Response<Body>, std::convert::Infallible> {
    let origin = header_str(request.headers(), header::ORIGIN).map(str::to_owned);
    let preflight = request.method() == Method::OPTIONS
        && request
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    let start = Instant::now();
    let mut labels = Labels {
        counted: true,
        // Until the server plans the body (`Plan::method`): answered before it was read.
        method: "none",
        tool: "",
    };
    let mut response = route(&shared, peer, request, &mut labels).await;
    if labels.counted {
        shared.metrics.record(
            labels.method,
            labels.tool,
            response.status().as_u16(),
            start.elapsed(),
        );
    }
    if let Some(origin) = origin.filter(|o| shared.guard.cors_allowed(o)) {
        add_cors(response.headers_mut(), &origin, preflight);
    }
    Ok(response)
}

fn add_cors(headers: &mut HeaderMap, origin: &str, preflight: bool) {
    let Ok(origin) = HeaderValue::from_str(origin) else {
        return;
    };
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    headers.append(header::VARY, HeaderValue::from_static("Origin"));
    headers.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static(
            "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate, Retry-After",
        ),
    );
    if preflight {
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET, POST, DELETE, OPTIONS"),
        );
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static(
                "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name",
            ),
        );
        headers.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static("600"),
        );
    }
}

async fn route(
    shared: &Shared,
    peer: IpAddr,
    request: Request<Incoming>,
    labels: &mut Labels,
) -> Response<Body> {
    let path = request.uri().path();
    if (path == "/healthz" || path == "/readyz")
        && let Some(response) = ops_endpoint(shared, request.method(), path)
    {
        labels.counted = false;
        return response;
    }
    let headers = request.headers();
    // A value that is not visible ASCII must fail the check, not count as absent.
    let raw = |name| {
        headers
            .get(name)
            .map(|v: &HeaderValue| v.to_str().unwrap_or("\u{0}"))
    };
    if !shared.guard.host_allowed(raw(header::HOST)) {
        tracing::warn!(%peer, "refused a request for a host name not on the allow-list (403)");
        return http_error(StatusCode::FORBIDDEN, -32000, "forbidden: host not allowed");
    }
    if !shared.guard.origin_allowed(raw(header::ORIGIN)) {
        tracing::warn!(%peer, "refused a request from an origin not on the allow-list (403)");
        return http_error(
            StatusCode::FORBIDDEN,
            -32000,
            "forbidden: origin not allowed",
        );
    }
    if request.uri().path() == "/metrics" && request.uri().path() != shared.options.path {
        if let Some(store) = &shared.tokens
            && let Err(presented) = authenticate(store, headers)
        {
            return unauthorized(presented);
        }
        if let Some(response) = ops_endpoint(shared, request.method(), "/metrics") {
            labels.counted = false;
            return response;
        }
    }
    if request.uri().path() != shared.options.path {
        return http_error(StatusCode::NOT_FOUND, -32000, "not found");
    }
    if request.method() == Method::OPTIONS {
        let r = response(StatusCode::NO_CONTENT, None, Bytes::new());
        return with_header(r, header::ALLOW, allow(shared));
    }
    let token = match &shared.tokens {
        None => None,
        Some(store) => match authenticate(store, headers) {
            Ok(entry) => Some(entry),
            Err(presented) => return unauthorized(presented),
        },
    };
    if let Some(limiter) = &shared.limiter {
        let key = match &token {
            Some(entry) => entry.id.clone(),
            None => peer.to_string(),
        };
        if let Err(wait) = limiter.check(&key) {
            shared.metrics.rate_limited.fetch_add(1, Ordering::Relaxed);
            let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            let r = http_error(StatusCode::TOO_MANY_REQUESTS, -32000, "rate limit exceeded");
            return with_header(r, header::RETRY_AFTER, &seconds.max(1).to_string());
        }
    }
    let method = request.method().clone();
    let _slot = match (&shared.concurrency, method == Method::POST) {
        (Some(cap), true) => {
            let key = match &token {
                Some(entry) => entry.id.clone(),
                None => peer.to_string(),
            };
            match cap.enter(&key) {
                Some(slot) => Some(slot),
                None => {
                    shared
                        .metrics
                        .concurrency_refused
                        .fetch_add(1, Ordering::Relaxed);
                    let r = http_error(
                        StatusCode::TOO_MANY_REQUESTS,
                        -32000,
                        "too many concurrent requests for this token",
                    );
                    let r = with_header(r, header::CONNECTION, "close");
                    return with_header(r, header::RETRY_AFTER, "1");
                }
            }
        }
        _ => None,
    };
    match method {
        Method::POST => post(shared, request, token, labels).await,
        Method::DELETE if !shared.options.stateless => {
            delete(shared, request.headers(), token.as_ref())
        }
        _ => {
            let r = http_error(StatusCode::METHOD_NOT_ALLOWED, -32000, "method not allowed");
            with_header(r, header::ALLOW, allow(shared))
        }
    }
}

/// The bearer token's entry; `Err(true)` when a token was presented but is not valid.
fn authenticate(store: &TokenStore, headers: &HeaderMap) -> Result<TokenEntry, bool> {
    let value = header_str(headers, header::AUTHORIZATION).ok_or(false)?;
    let (scheme, token) = value.trim().split_once(' ').ok_or(true)?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(false);
    }
    store.verify(token.trim()).ok_or(true)
}

fn unauthorized(presented: bool) -> Response<Body> {
    let (challenge, message) = if presented {
        (
            r#"Bearer realm="botmesh-mcp", error="invalid_token""#,
            "unauthorized: invalid bearer token",
        )
    } else {
        (
            r#"Bearer realm="botmesh-mcp""#,
            "unauthorized: a bearer token is required",
        )
    };
    let r = http_error(StatusCode::UNAUTHORIZED, -32000, message);
    with_header(r, header::WWW_AUTHENTICATE, challenge)
}

fn delete(shared: &Shared, headers: &HeaderMap, token: Option<&TokenEntry>) -> Response<Body> {
    let Some(id) = header_str(headers, SESSION_HEADER) else {
        return store_error(StoreError::MissingId);
    };
    if shared.store.close(id, token.map(|t| t.id.as_str())) {
        response(StatusCode::NO_CONTENT, None, Bytes::new())
    } else {
        store_error(StoreError::NotFound)
    }
}

/// Reads `Accept`: JSON when it allows it, else an event stream when it allows that.
fn reply_kind(headers: &HeaderMap) -> Option<Reply> {
    let accept = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|item| {
            item.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .collect::<Vec<_>>();
    let has = |t: &str| accept.iter().any(|a| a == t);
    if has("application/json") || has("application/*") || has("*/*") {
        Some(Reply::Json)
    } else if has("text/event-stream") {
        Some(Reply::EventStream)
    } else {
        None
    }
}

fn is_json_content(headers: &HeaderMap) -> bool {
    header_str(headers, header::CONTENT_TYPE).is_some_and(|v| {
        v.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .eq_ignore_ascii_case("application/json")
    })
}

/// Why a body was not read whole.
enum BodyError {
    TooLarge,
    OverBudget,
    Unreadable,
}

/// Reads the body into one buffer sized from `Content-Length` (no second copy), refusing more
/// than `limit` bytes (checked on `Content-Length` first, then while streaming), a chunked body
/// that outgrows the budget, and a body slower than `timeout`.
async fn read_body(
    request: Request<Incoming>,
    limit: usize,
    timeout: Duration,
    reservation: &mut Reservation,
    declared: Option<usize>,
) -> Result<Vec<u8>, Response<Body>> {
    let mut body = request.into_body();
    let mut buffer: Vec<u8> = Vec::with_capacity(declared.unwrap_or(0).min(limit));
    let read = async {
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|_| BodyError::Unreadable)?;
            if let Ok(data) = frame.into_data() {
                let total = buffer.len() + data.len();
                if total > limit {
                    return Err(BodyError::TooLarge);
                }
                if !reservation.grow_to(total.saturating_mul(2)) {
                    return Err(BodyError::OverBudget);
                }
                buffer.extend_from_slice(&data);
            }
        }
        Ok(())
    };
    match tokio::time::timeout(timeout, read).await {
        Err(_) => {
            tracing::warn!("a client sent its request body too slowly (408)");
            let r = http_error(
                StatusCode::REQUEST_TIMEOUT,
                -32000,
                "request body timed out",
            );
            Err(with_header(r, header::CONNECTION, "close"))
        }
        Ok(Err(BodyError::TooLarge)) => Err(too_large(limit)),
        Ok(Err(BodyError::OverBudget)) => Err(over_budget()),
        Ok(Err(BodyError::Unreadable)) => Err(http_error(
            StatusCode::BAD_REQUEST,
            -32000,
            "bad request: unreadable body",
        )),
        Ok(Ok(())) => Ok(buffer),
    }
}

/// `413` for a body over the per-message limit, with the answer stdio gives a line over its
/// limit (`botmesh_mcp::message_too_long`); the connection closes so the rest is not drained.
fn too_large(limit: usize) -> Response<Body> {
    let body = Bytes::from(botmesh_mcp::json_line(&botmesh_mcp::message_too_long(
        limit,
    )));
    let r = response(
        StatusCode::PAYLOAD_TOO_LARGE,
        Some("application/json"),
        body,
    );
    with_header(r, header::CONNECTION, "close")
}

/// `413` for a body whose parsed form could never fit the request-body budget (an HTTP
/// condition, with no stdio counterpart).
fn too_large_for_the_budget() -> Response<Body> {
    let r = http_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        -32600,
        "message too large: parsed, it would exceed the server's request-body budget (--max-inflight-body)",
    );
    with_header(r, header::CONNECTION, "close")
}

/// `503` for a body the budget cannot hold now; the connection closes so the unread body is not
/// drained.
fn over_budget() -> Response<Body> {
    let r = http_error(
        StatusCode::SERVICE_UNAVAILABLE,
        -32000,
        "server busy: too many request bodies in flight, retry later",
    );
    let r = with_header(r, header::CONNECTION, "close");
    with_header(r, header::RETRY_AFTER, "1")
}

/// What a POST's headers decided, before its body is read.
struct Admitted {
    reply: Reply,
    /// The `MCP-Protocol-Version` value (trimmed), if any.
    version: Option<String>,
    /// The 2026-07-28 routing headers, handed to the server as they came.
    routing: RoutingHeaders,
    session_id: Option<String>,
    /// The declared `Content-Length`.
    declared: Option<usize>,
}

/// A body read and parsed, with the budget it holds until the answer is built.
struct Parsed<'a> {
    message: Value,
    /// Served under `block_in_place` (over [`INLINE_BODY_LIMIT`]).
    large: bool,
    _reservation: Reservation,
    _large_turn: Option<tokio::sync::SemaphorePermit<'a>>,
}

async fn post(
    shared: &Shared,
    request: Request<Incoming>,
    token: Option<TokenEntry>,
    labels: &mut Labels,
) -> Response<Body> {
    let admitted = match admit(shared, request.headers()) {
        Ok(admitted) => admitted,
        Err(response) => return response,
    };
    let parsed = match read_message(shared, request, admitted.declared).await {
        Ok(parsed) => parsed,
        Err(response) => return response,
    };
    let caller = Caller {
        token_id: token.as_ref().map(|t| t.id.clone()),
        scopes: token.map(|t| t.scopes),
    };
    serve(shared, admitted, parsed, &caller, labels)
}

/// The POST's own header checks: `Accept` (406), `Content-Type` (415), `Content-Length` (400,
/// 413); then what the server needs from the headers.
#[expect(
    clippy::result_large_err,
    reason = "the error is the refusal itself, built once and returned at once"
)]
fn admit(shared: &Shared, headers: &HeaderMap) -> Result<Admitted, Response<Body>> {
    let Some(reply) = reply_kind(headers) else {
        return Err(http_error(
            StatusCode::NOT_ACCEPTABLE,
            -32000,
            "not acceptable: Accept must include application/json or text/event-stream",
        ));
    };
    if !is_json_content(headers) {
        return Err(http_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            -32000,
            "unsupported media type: Content-Type must be application/json",
        ));
    }
    let declared =
        match header_str(headers, header::CONTENT_LENGTH).map(|v| v.trim().parse::<u64>()) {
            None => None,
            Some(Ok(n)) => Some(usize::try_from(n).unwrap_or(usize::MAX)),
            Some(Err(_)) => {
                return Err(http_error(
                    StatusCode::BAD_REQUEST,
                    -32000,
                    "bad request: bad Content-Length",
                ));
            }
        };
    if declared.is_some_and(|n| n > shared.max_body) {
        return Err(too_large(shared.max_body));
    }
    let version = header_str(headers, VERSION_HEADER).map(|v| v.trim().to_owned());
    let values = |name| {
        headers
            .get_all(name)
            .iter()
            .map(|v| v.as_bytes().to_vec())
            .collect()
    };
    Ok(Admitted {
        reply,
        routing: RoutingHeaders {
            version: version.clone().unwrap_or_default(),
            methods: values(METHOD_HEADER),
            names: values(NAME_HEADER),
        },
        version,
        session_id: header_str(headers, SESSION_HEADER).map(str::to_owned),
        declared,
    })
}

/// Reads and parses the body within the budget: `503` when the budget cannot hold it now,
/// `413` when it never could, `408` when it is too slow, `400` when it is not JSON (`-32700`)
/// or neither an object nor an array (`-32600`).
async fn read_message<'a>(
    shared: &'a Shared,
    request: Request<Incoming>,
    declared: Option<usize>,
) -> Result<Parsed<'a>, Response<Body>> {
    // Decided before a byte of the body is read: twice the declared length (the bytes, and at
    // least as much again once parsed), or nothing yet for a chunked body (which then grows its
    // reservation as it arrives). After reading, the reservation grows to the bytes plus the
    // estimated parsed size (`ops::parsed_size_estimate`).
    let Some(mut reservation) = shared
        .budget
        .reserve(declared.unwrap_or(0).saturating_mul(2))
    else {
        shared
            .metrics
            .budget_refused
            .fetch_add(1, Ordering::Relaxed);
        return Err(over_budget());
    };
    let body = match read_body(
        request,
        shared.max_body,
        shared.options.request_timeout,
        &mut reservation,
        declared,
    )
    .await
    {
        Ok(body) => body,
        Err(response) => {
            if response.status() == StatusCode::SERVICE_UNAVAILABLE {
                shared
                    .metrics
                    .budget_refused
                    .fetch_add(1, Ordering::Relaxed);
            }
            return Err(response);
        }
    };
    let large = body.len() > INLINE_BODY_LIMIT;
    // Before parsing: what the parsed value will take. A body that could never fit answers 413,
    // one that cannot fit now 503; either way it is dropped unparsed.
    let parsed_size = if large {
        tokio::task::block_in_place(|| crate::ops::parsed_size_estimate(&body))
    } else {
        crate::ops::parsed_size_estimate(&body)
    };
    let needed = body.len().saturating_add(parsed_size);
    if needed > shared.budget.limit() {
        tracing::warn!(
            bytes = body.len(),
            parsed_estimate = parsed_size,
            "refused a body whose parsed form would exceed the whole body budget (413)"
        );
        return Err(too_large_for_the_budget());
    }
    if !reservation.grow_to(needed) {
        shared
            .metrics
            .budget_refused
            .fetch_add(1, Ordering::Relaxed);
        return Err(over_budget());
    }
    // Large bodies are parsed and served one at a time: parsing multiplies a body's memory
    // (a JSON value takes several times its text) and on a few cores running more of them at
    // once only slows each down, while this keeps runtime workers free for small calls.
    let large_turn = if large {
        match shared.large_gate.acquire().await {
            Ok(permit) => Some(permit),
            Err(_) => return Err(over_budget()),
        }
    } else {
        None
    };
    // Parsed as stdio parses a line: a body that is no message gets stdio's answer, word for
    // word (`-32700` not UTF-8 or not JSON, `-32600` neither an object nor an array).
    let parsed = if large {
        tokio::task::block_in_place(|| botmesh_mcp::parse_message(&body))
    } else {
        botmesh_mcp::parse_message(&body)
    };
    // The bytes go as soon as they are parsed; the reservation stays until the answer is built.
    drop(body);
    let message = match parsed {
        Ok(message) => message,
        Err(answer) => {
            let body = Bytes::from(botmesh_mcp::json_line(&answer));
            return Err(response(
                StatusCode::BAD_REQUEST,
                Some("application/json"),
                body,
            ));
        }
    };
    Ok(Parsed {
        message,
        large,
        _reservation: reservation,
        _large_turn: large_turn,
    })
}

/// Serves a parsed message: the server plans it, the store gives the session, the server serves
/// it (the one call), the store keeps what it opened.
fn serve(
    shared: &Shared,
    admitted: Admitted,
    parsed: Parsed<'_>,
    caller: &Caller,
    labels: &mut Labels,
) -> Response<Body> {
    let Parsed { message, large, .. } = parsed;
    let plan = shared.server.plan(admitted.version.as_deref(), &message);
    labels.method = plan.method;
    labels.tool = plan.tool;
    let token_id = caller.token_id.as_deref();
    let (mut session, resumed) = match plan.route {
        Route::UnsupportedVersion => {
            return unsupported_version(admitted.version.as_deref().unwrap_or(""));
        }
        Route::Stateless => (Session::stateless(), None),
        Route::Open => (Session::new(), None),
        Route::Resume { revision } => {
            let id = admitted.session_id.as_deref();
            match shared.store.resume(id, token_id, revision) {
                Ok(mut resumed) => (std::mem::take(&mut resumed.session), Some(resumed)),
                Err(error) => return store_error(error),
            }
        }
    };
    // The token's scopes as they are now (a reload may have narrowed them), on every request
    // of every store: never the ones a session was opened with.
    session.set_scopes(caller.scopes.clone());
    let routing = (plan.route == Route::Stateless).then_some(&admitted.routing);
    let served = run(shared, &mut session, message, routing, caller, large);
    if plan.route == Route::Stateless {
        return stateless_reply(&served, admitted.reply);
    }
    let session_id = match (served.opened, resumed) {
        (Some(_), None) => match shared.store.open(session, token_id) {
            Ok(id) => id,
            Err(error) => return store_error(error),
        },
        (Some(_), Some(mut resumed)) => {
            resumed.session = session;
            SessionStore::save(resumed);
            None
        }
        (None, _) => None,
    };
    legacy_reply(
        served.answer.as_ref(),
        admitted.reply,
        session_id.as_deref(),
    )
}

fn store_error(error: StoreError) -> Response<Body> {
    match error {
        StoreError::MissingId => http_error(
            StatusCode::BAD_REQUEST,
            -32000,
            "bad request: missing Mcp-Session-Id header",
        ),
        StoreError::NotFound => http_error(StatusCode::NOT_FOUND, -32001, "session not found"),
        StoreError::Full => {
            let r = http_error(
                StatusCode::SERVICE_UNAVAILABLE,
                -32000,
                "too many open sessions",
            );
            with_header(r, header::RETRY_AFTER, "60")
        }
        StoreError::NoRandomness => http_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            -32603,
            "no randomness for a session id",
        ),
    }
}

fn unsupported_version(value: &str) -> Response<Body> {
    let supported: Vec<&str> = botmesh_mcp::PROTOCOL_REVISIONS.to_vec();
    let message = format!(
        "bad request: unsupported MCP-Protocol-Version (supported: {})",
        supported.join(", ")
    );
    let data = json!({ "supported": supported, "requested": value });
    response(
        StatusCode::BAD_REQUEST,
        Some("application/json"),
        error_body(-32600, &message, Some(data)),
    )
}

fn body_of(answer: &Value, reply: Reply) -> (&'static str, Bytes) {
    match reply {
        // Written like the stdio lines (U+0085, U+2028, U+2029 escaped): an SSE `data:` line
        // and a line-splitting client must get the message whole.
        Reply::Json => (
            "application/json",
            Bytes::from(botmesh_mcp::json_line(answer)),
        ),
        Reply::EventStream => (
            "text/event-stream",
            Bytes::from(format!(
                "event: message\ndata: {}\n\n",
                botmesh_mcp::json_line(answer)
            )),
        ),
    }
}

fn legacy_reply(answer: Option<&Value>, reply: Reply, session_id: Option<&str>) -> Response<Body> {
    let Some(answer) = answer else {
        return response(StatusCode::ACCEPTED, None, Bytes::new());
    };
    let (content_type, body) = body_of(answer, reply);
    let r = response(StatusCode::OK, Some(content_type), body);
    match session_id {
        Some(id) => with_header(r, SESSION_HEADER, id),
        None => r,
    }
}

/// 2026-07-28 maps some JSON-RPC errors to HTTP statuses (`basic/transports/streamable-http.mdx`).
fn stateless_reply(served: &Served, reply: Reply) -> Response<Body> {
    let Some(answer) = &served.answer else {
        return response(StatusCode::ACCEPTED, None, Bytes::new());
    };
    let status = match served.error_code() {
        Some(-32601) => StatusCode::NOT_FOUND,
        Some(-32700 | -32600 | -32602 | -32020 | -32021 | -32022) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    };
    let (content_type, body) = body_of(answer, reply);
    response(status, Some(content_type), body)
}

/// Runs the server on one message and writes one audit line per tool call it served: token id,
/// tool, outcome and duration; never arguments, results or the token.
fn run(
    shared: &Shared,
    session: &mut Session,
    message: Value,
    routing: Option<&RoutingHeaders>,
    caller: &Caller,
    large: bool,
) -> Served {
    let start = Instant::now();
    let served = if large {
        tokio::task::block_in_place(|| shared.server.serve(session, message, routing))
    } else {
        shared.server.serve(session, message, routing)
    };
    let micros = u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX);
    for call in &served.tool_calls {
        let outcome = call.outcome.as_str();
        tracing::info!(
            target: "botmesh_mcp_http::audit",
            token = caller.token_id.as_deref().unwrap_or("-"),
            tool = call.tool,
            outcome,
            duration_us = micros,
            "tool call"
        );
        if let Some(audit) = &shared.audit {
            audit.write(&AuditLine {
                time: crate::audit::rfc3339(SystemTime::now()),
                token_id: caller.token_id.as_deref(),
                tool: call.tool,
                status: outcome,
                duration_us: micros,
            });
        }
    }
    served
}

/// Who sent a request: the token's id and scopes (`None` without tokens).
#[derive(Debug, Default)]
struct Caller {
    token_id: Option<String>,
    scopes: Option<Vec<Scope>>,
}
