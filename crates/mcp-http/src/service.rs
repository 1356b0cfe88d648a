//! One HTTP request: the checks in order, then the server's answer.
//!
//! Order: `Host`/`Origin` (403) → path (404) → `OPTIONS` (CORS preflight, before auth) → bearer
//! token (401) → rate limit (429) → method (405) → `Accept` (406) / `Content-Type` (415) →
//! `MCP-Protocol-Version` (400) → session (400/404) → body (413/408) → JSON (400) → server.
use crate::HttpOptions;
use crate::guard::Guard;
use crate::modern::RoutingHeaders;
use crate::state::{RateLimiter, Sessions};
use crate::tokens::{TokenEntry, TokenStore};
use botmesh_mcp::{McpServer, Scope, Session};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Response bodies are always complete byte strings.
pub(crate) type Body = Full<Bytes>;

/// The session header (`Mcp-Session-Id`; header names are case-insensitive).
pub(crate) const SESSION_HEADER: HeaderName = HeaderName::from_static("mcp-session-id");
const VERSION_HEADER: HeaderName = HeaderName::from_static("mcp-protocol-version");

/// The revision assumed when a POST carries no `MCP-Protocol-Version` and no session says more.
const DEFAULT_REVISION: &str = "2025-03-26";
/// The only revision under which a POST body may be a batch.
const BATCH_REVISION: &str = "2025-03-26";
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
    pub(crate) sessions: Sessions,
    pub(crate) limiter: Option<RateLimiter>,
    /// For stateless POSTs: a session already initialized at each legacy revision.
    pub(crate) templates: Vec<(&'static str, Session)>,
    /// The body limit in bytes.
    pub(crate) max_body: usize,
}

/// Which rules a POST is served under, from its `MCP-Protocol-Version` header.
///
/// [`Era::Modern`] POSTs also carry the 2026-07-28 routing headers (`crate::modern`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Era {
    /// 2024-11-05 … 2025-11-25: sessions via `initialize`; `None` when the header is absent.
    Legacy(Option<&'static str>),
    /// 2026-07-28: every POST on its own, no session; the routing headers to check.
    Modern(RoutingHeaders),
}

/// A POST's era as far as its headers tell, before the body is read.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Route {
    /// A revision this server speaks.
    Known(Era),
    /// A version this server does not speak: a body in the stateless envelope takes the modern
    /// ladder (`-32022` with the supported versions); anything else answers `400` listing them.
    Unknown(RoutingHeaders),
}

/// The legacy revisions: every revision spoken except the stateless one.
fn legacy_revision(value: &str) -> Option<&'static str> {
    botmesh_mcp::PROTOCOL_REVISIONS
        .iter()
        .copied()
        .find(|r| *r == value && *r != botmesh_mcp::LATEST_PROTOCOL_REVISION)
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
    Bytes::from(json!({ "jsonrpc": "2.0", "id": null, "error": error }).to_string())
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
    let mut response = route(&shared, peer, request).await;
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

async fn route(shared: &Shared, peer: IpAddr, request: Request<Incoming>) -> Response<Body> {
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
            let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            let r = http_error(StatusCode::TOO_MANY_REQUESTS, -32000, "rate limit exceeded");
            return with_header(r, header::RETRY_AFTER, &seconds.max(1).to_string());
        }
    }
    let method = request.method().clone();
    match method {
        Method::POST => post(shared, request, token).await,
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
        return http_error(
            StatusCode::BAD_REQUEST,
            -32000,
            "bad request: missing Mcp-Session-Id header",
        );
    };
    match shared.sessions.get(id) {
        Some(slot) if slot.token_id.as_deref() == token.map(|t| t.id.as_str()) => {
            shared.sessions.remove(id);
            response(StatusCode::NO_CONTENT, None, Bytes::new())
        }
        _ => http_error(StatusCode::NOT_FOUND, -32001, "session not found"),
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

/// Reads the body, refusing more than `limit` bytes (checked on `Content-Length` first, then
/// while streaming, so an oversized body is never held whole) and a body slower than `timeout`.
async fn read_body(
    request: Request<Incoming>,
    limit: usize,
    timeout: Duration,
) -> Result<Bytes, Response<Body>> {
    let too_large = || {
        let r = http_error(StatusCode::PAYLOAD_TOO_LARGE, -32600, "message too large");
        with_header(r, header::CONNECTION, "close")
    };
    let declared = header_str(request.headers(), header::CONTENT_LENGTH)
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > u64::try_from(limit).unwrap_or(u64::MAX)) {
        return Err(too_large());
    }
    let body = Limited::new(request.into_body(), limit);
    match tokio::time::timeout(timeout, body.collect()).await {
        Err(_) => {
            tracing::warn!("a client sent its request body too slowly (408)");
            let r = http_error(
                StatusCode::REQUEST_TIMEOUT,
                -32000,
                "request body timed out",
            );
            Err(with_header(r, header::CONNECTION, "close"))
        }
        Ok(Err(error)) if error.is::<LengthLimitError>() => Err(too_large()),
        Ok(Err(_)) => Err(http_error(
            StatusCode::BAD_REQUEST,
            -32000,
            "bad request: unreadable body",
        )),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
    }
}

async fn post(
    shared: &Shared,
    request: Request<Incoming>,
    token: Option<TokenEntry>,
) -> Response<Body> {
    let headers = request.headers();
    let Some(reply) = reply_kind(headers) else {
        return http_error(
            StatusCode::NOT_ACCEPTABLE,
            -32000,
            "not acceptable: Accept must include application/json or text/event-stream",
        );
    };
    if !is_json_content(headers) {
        return http_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            -32000,
            "unsupported media type: Content-Type must be application/json",
        );
    }
    let route = match header_str(headers, VERSION_HEADER).map(str::trim) {
        None => Route::Known(Era::Legacy(None)),
        Some(v) if v == botmesh_mcp::LATEST_PROTOCOL_REVISION => {
            Route::Known(Era::Modern(RoutingHeaders::read(headers, v)))
        }
        Some(v) => match legacy_revision(v) {
            Some(revision) => Route::Known(Era::Legacy(Some(revision))),
            None => Route::Unknown(RoutingHeaders::read(headers, v)),
        },
    };
    let session_id = header_str(headers, SESSION_HEADER).map(str::to_owned);
    let body = match read_body(request, shared.max_body, shared.options.request_timeout).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    let message: Value = match serde_json::from_slice(&body) {
        Ok(message) => message,
        Err(_) => {
            let r = response(
                StatusCode::BAD_REQUEST,
                Some("application/json"),
                error_body(-32700, "parse error", None),
            );
            return r;
        }
    };
    if !(message.is_object() || message.is_array()) {
        return http_error(
            StatusCode::BAD_REQUEST,
            -32600,
            "invalid request: expected an object or a batch array",
        );
    }
    let caller = Caller {
        token_id: token.as_ref().map(|t| t.id.clone()),
        scopes: token.map(|t| t.scopes),
    };
    let large = body.len() > INLINE_BODY_LIMIT;
    let era = match route {
        Route::Known(era) => era,
        Route::Unknown(routing) if botmesh_mcp::is_stateless_request(message.get("params")) => {
            Era::Modern(routing)
        }
        Route::Unknown(routing) => return unsupported_version(routing.version()),
    };
    match era {
        Era::Modern(routing) => {
            if message.is_array() {
                return batch_refused();
            }
            if let Some(reason) = routing.mismatch(&message) {
                let id = message.get("id").cloned().unwrap_or(Value::Null);
                let body = json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "error": { "code": -32020, "message": format!("header mismatch: {reason}") }
                });
                return modern_reply(Some(body), reply);
            }
            let mut session = Session::stateless();
            session.set_scopes(caller.scopes.clone());
            let answer = run(shared, &mut session, message, &caller, large);
            modern_reply(answer, reply)
        }
        Era::Legacy(header_revision) => {
            let initialize = message.get("method").and_then(Value::as_str) == Some("initialize");
            if shared.options.stateless || initialize {
                let revision = header_revision.unwrap_or(DEFAULT_REVISION);
                if message.is_array() && revision != BATCH_REVISION {
                    return batch_refused();
                }
                let mut session = if initialize {
                    Session::new()
                } else {
                    shared
                        .templates
                        .iter()
                        .find(|(r, _)| *r == revision)
                        .map(|(_, s)| s.clone())
                        .unwrap_or_default()
                };
                session.set_scopes(caller.scopes.clone());
                let answer = run(shared, &mut session, message, &caller, large);
                let opened = answer.as_ref().is_some_and(|a| a.get("result").is_some());
                if !initialize || shared.options.stateless || !opened {
                    return legacy_reply(answer, reply, None);
                }
                let id = match crate::tokens::random_bytes::<16>() {
                    Ok(bytes) => crate::tokens::hex(&bytes),
                    Err(_) => {
                        return http_error(
                            StatusCode::INTERNAL_SERVER_ERROR,
                            -32603,
                            "no randomness for a session id",
                        );
                    }
                };
                if shared
                    .sessions
                    .insert(id.clone(), caller.token_id.clone(), session)
                    .is_err()
                {
                    let r = http_error(
                        StatusCode::SERVICE_UNAVAILABLE,
                        -32000,
                        "too many open sessions",
                    );
                    return with_header(r, header::RETRY_AFTER, "60");
                }
                legacy_reply(answer, reply, Some(&id))
            } else {
                let Some(id) = session_id else {
                    return http_error(
                        StatusCode::BAD_REQUEST,
                        -32000,
                        "bad request: missing Mcp-Session-Id header",
                    );
                };
                let slot = match shared.sessions.get(&id) {
                    Some(slot) if slot.token_id == caller.token_id => slot,
                    _ => return http_error(StatusCode::NOT_FOUND, -32001, "session not found"),
                };
                // Work on a copy so concurrent requests of one session do not wait for each
                // other; a request that changed the state (a repeated `initialize`) stores it back.
                let mut session = slot.snapshot();
                let before = session.protocol_revision();
                let revision = before.unwrap_or(DEFAULT_REVISION);
                if message.is_array() && revision != BATCH_REVISION {
                    return batch_refused();
                }
                let answer = run(shared, &mut session, message, &caller, large);
                if session.protocol_revision() != before {
                    slot.store(session);
                }
                legacy_reply(answer, reply, None)
            }
        }
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

fn batch_refused() -> Response<Body> {
    http_error(
        StatusCode::BAD_REQUEST,
        -32600,
        "invalid request: batches are only accepted under protocol revision 2025-03-26",
    )
}

fn body_of(answer: &Value, reply: Reply) -> (&'static str, Bytes) {
    match reply {
        Reply::Json => ("application/json", Bytes::from(answer.to_string())),
        Reply::EventStream => (
            "text/event-stream",
            Bytes::from(format!("event: message\ndata: {answer}\n\n")),
        ),
    }
}

fn legacy_reply(answer: Option<Value>, reply: Reply, session_id: Option<&str>) -> Response<Body> {
    let Some(answer) = answer else {
        return response(StatusCode::ACCEPTED, None, Bytes::new());
    };
    let (content_type, body) = body_of(&answer, reply);
    let r = response(StatusCode::OK, Some(content_type), body);
    match session_id {
        Some(id) => with_header(r, SESSION_HEADER, id),
        None => r,
    }
}

/// 2026-07-28 maps some JSON-RPC errors to HTTP statuses (`basic/transports/streamable-http.mdx`).
fn modern_reply(answer: Option<Value>, reply: Reply) -> Response<Body> {
    let Some(answer) = answer else {
        return response(StatusCode::ACCEPTED, None, Bytes::new());
    };
    let status = match answer.pointer("/error/code").and_then(Value::as_i64) {
        Some(-32601) => StatusCode::NOT_FOUND,
        Some(-32700 | -32600 | -32602 | -32020 | -32021 | -32022) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    };
    let (content_type, body) = body_of(&answer, reply);
    response(status, Some(content_type), body)
}

/// One tool call in a message, as the audit line names it.
struct Call {
    id: Value,
    /// The catalogue's name for the tool, or `<unknown tool>`: a client's string never reaches
    /// a log.
    tool: &'static str,
    /// The tool exists but the session's scopes do not allow it ([`Session::allows`], the
    /// server's own check).
    denied: bool,
}

/// The tool calls (requests, not notifications) in a message.
fn tool_calls(server: &McpServer, message: &Value, session: &Session) -> Vec<Call> {
    let one = |m: &Value| -> Option<Call> {
        if m.get("method").and_then(Value::as_str) != Some("tools/call") {
            return None;
        }
        let id = m.get("id")?.clone();
        let name = m
            .pointer("/params/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        let tool = server.tool_scope(name);
        Some(Call {
            id,
            tool: tool.map_or("<unknown tool>", |(name, _)| name),
            denied: tool.is_some_and(|(_, scope)| !session.allows(scope)),
        })
    };
    match message {
        Value::Array(items) => items.iter().filter_map(one).collect(),
        other => one(other).into_iter().collect(),
    }
}

fn outcome(answer: Option<&Value>, id: &Value) -> &'static str {
    let find = |a: &Value| a.get("id") == Some(id);
    let found = match answer {
        Some(Value::Array(items)) => items.iter().find(|a| find(a)),
        Some(a) if find(a) => Some(a),
        _ => None,
    };
    match found {
        None => "no_answer",
        Some(a) if a.get("error").is_some() => "protocol_error",
        Some(a) if a.pointer("/result/isError") == Some(&Value::Bool(true)) => "tool_error",
        Some(_) => "ok",
    }
}

/// Runs the server on one message and writes one audit line per tool call: token id, tool,
/// outcome and duration; never arguments, results or the token.
fn run(
    shared: &Shared,
    session: &mut Session,
    message: Value,
    caller: &Caller,
    large: bool,
) -> Option<Value> {
    let calls = tool_calls(&shared.server, &message, session);
    let start = Instant::now();
    let answer = if large {
        tokio::task::block_in_place(|| shared.server.handle_value(session, message))
    } else {
        shared.server.handle_value(session, message)
    };
    let micros = u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX);
    for call in calls {
        let outcome = match outcome(answer.as_ref(), &call.id) {
            "tool_error" if call.denied => "scope_denied",
            other => other,
        };
        tracing::info!(
            target: "botmesh_mcp_http::audit",
            token = caller.token_id.as_deref().unwrap_or("-"),
            tool = call.tool,
            outcome,
            duration_us = micros,
            "tool call"
        );
    }
    answer
}

/// Who sent a request: the token's id and scopes (`None` without tokens).
#[derive(Debug, Default)]
struct Caller {
    token_id: Option<String>,
    scopes: Option<Vec<Scope>>,
}
