//! What a transport hands the server besides a message, and what it gets back besides the
//! answer: the protocol's decisions, made here once, so that stdio and HTTP cannot disagree.
//!
//! A transport asks [`McpServer::plan`] how a message is to be served (open a session, resume
//! one, serve it statelessly, or refuse its version header), gets a session for it (a new one,
//! its stored one, [`Session::at_revision`] or [`Session::stateless`]), and calls
//! [`McpServer::serve`], which returns the answer with the tool calls it served and the revision
//! of a session it opened.

use crate::protocol::{LATEST_PROTOCOL_REVISION, Revision};
use crate::server::{McpServer, Session};
use serde_json::{Map, Value};

/// The name a tool call is reported under when the server has no such tool: a client's string
/// never reaches a log or a metrics label.
pub const UNKNOWN_TOOL: &str = "<unknown tool>";

/// The methods reported by name ([`Plan::method`]); any other is `other`, so a client cannot
/// grow a metrics label set.
const REPORTED_METHODS: [&str; 10] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "server/discover",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "notifications/initialized",
    "notifications/cancelled",
];

/// The 2026-07-28 routing headers of one HTTP POST, as received: `MCP-Protocol-Version`,
/// `Mcp-Method` and `Mcp-Name` must repeat what the body says
/// (`basic/transports/streamable-http.mdx`), or the request answers `-32020` with its id.
///
/// The server checks them after the `_meta` keys are found present (else `-32602`) and before
/// the version (`-32022`). Values are compared case-sensitively after trimming spaces and tabs;
/// a value written `=?base64?…?=` is decoded first; a header sent twice is a mismatch, and so is
/// one that is not visible ASCII.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoutingHeaders {
    /// The `MCP-Protocol-Version` value, trimmed.
    pub version: String,
    /// Every `Mcp-Method` value, in order, as bytes.
    pub methods: Vec<Vec<u8>>,
    /// Every `Mcp-Name` value, in order, as bytes.
    pub names: Vec<Vec<u8>>,
}

impl RoutingHeaders {
    /// Why the headers disagree with a request whose `_meta` carries both required keys, if they
    /// do.
    pub(crate) fn mismatch(
        &self,
        method: &str,
        params: &Map<String, Value>,
        body_version: &Value,
    ) -> Option<String> {
        if body_version.as_str() != Some(self.version.as_str()) {
            return Some(format!(
                "MCP-Protocol-Version header {:?} does not match params._meta {body_version}",
                self.version
            ));
        }
        match single(&self.methods, "Mcp-Method") {
            Err(reason) => return Some(reason),
            Ok(None) => return Some("the Mcp-Method header is missing".to_owned()),
            Ok(Some(value)) if value != method => {
                return Some(format!(
                    "Mcp-Method header {value:?} does not match method {method:?}"
                ));
            }
            Ok(Some(_)) => {}
        }
        let key = match method {
            "tools/call" | "prompts/get" => "name",
            "resources/read" => "uri",
            _ => return None,
        };
        let expected = params.get(key).and_then(Value::as_str)?;
        match single(&self.names, "Mcp-Name") {
            Err(reason) => Some(reason),
            Ok(None) => Some(format!(
                "the Mcp-Name header is missing (params.{key} is {expected:?})"
            )),
            Ok(Some(value)) if value != expected => Some(format!(
                "Mcp-Name header {value:?} does not match params.{key} {expected:?}"
            )),
            Ok(Some(_)) => None,
        }
    }
}

/// The one value of a header that must not repeat, decoded.
fn single(values: &[Vec<u8>], name: &str) -> Result<Option<String>, String> {
    match values {
        [] => Ok(None),
        [value] => decode(value)
            .map(Some)
            .ok_or_else(|| format!("the {name} header is malformed")),
        _ => Err(format!("the {name} header is sent more than once")),
    }
}

/// A header value: visible ASCII (and tabs) only, trimmed of spaces and tabs, `=?base64?…?=`
/// decoded as UTF-8.
fn decode(value: &[u8]) -> Option<String> {
    if !value
        .iter()
        .all(|b| *b == b'\t' || (0x20..0x7f).contains(b))
    {
        return None;
    }
    let text = std::str::from_utf8(value).ok()?.trim_matches([' ', '\t']);
    match text
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        Some(encoded) => String::from_utf8(base64_decode(encoded)?).ok(),
        None => Some(text.to_owned()),
    }
}

/// Standard base64 (RFC 4648 §4, padding optional); `None` on any other character.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut buffer, mut bits) = (0u32, 0u32);
    for byte in text.bytes() {
        let value = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        buffer = (buffer << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from(buffer >> bits).ok()?);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// How a transport serves one message ([`McpServer::plan`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// An `initialize`: serve it in a [`Session::new`]; when it succeeds
    /// ([`Served::opened`]), keep that session.
    Open,
    /// A message of a classic session: serve it in the session it names, or, for a transport
    /// without stored sessions, in [`Session::at_revision`] of `revision` (the version header's
    /// revision, 2025-03-26 without one, as the Streamable HTTP transport assumes).
    Resume {
        /// The revision the transport's header names.
        revision: &'static str,
    },
    /// A 2026-07-28 request: serve it on its own in a [`Session::stateless`], with the routing
    /// headers.
    Stateless,
    /// The version header names a revision this server does not speak, and the body is no
    /// stateless request: refuse it, listing [`crate::PROTOCOL_REVISIONS`].
    UnsupportedVersion,
}

/// What a message is and how to serve it, decided before serving ([`McpServer::plan`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// How to serve it.
    pub route: Route,
    /// The method as reported (a metrics label): a method this server knows by name, `batch`
    /// for an array, or `other`.
    pub method: &'static str,
    /// For a single `tools/call`: the catalogue's name of the tool, or [`UNKNOWN_TOOL`]; empty
    /// otherwise.
    pub tool: &'static str,
}

/// What the server did with one message ([`McpServer::serve`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Served {
    /// The answer (an object, or an array for a batch); `None` when nothing is owed.
    pub answer: Option<Value>,
    /// Every tool call served (requests only), in order: for audit lines and metrics.
    pub tool_calls: Vec<ToolCall>,
    /// The revision negotiated by an `initialize` that succeeded in this message.
    pub opened: Option<&'static str>,
}

impl Served {
    /// The error code of a single answer that is an error (a transport maps some to statuses).
    pub fn error_code(&self) -> Option<i64> {
        self.answer
            .as_ref()
            .and_then(|answer| answer.get("error"))
            .and_then(|error| error.get("code"))
            .and_then(Value::as_i64)
    }
}

/// One tool call the server served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolCall {
    /// The catalogue's name of the tool, or [`UNKNOWN_TOOL`].
    pub tool: &'static str,
    /// How it ended.
    pub outcome: CallOutcome,
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallOutcome {
    /// A result without `isError`.
    Ok,
    /// A result with `isError: true` (bad arguments, an impossible request).
    ToolError,
    /// Refused: the session's scopes do not allow the tool ([`Session::allows`]).
    ScopeDenied,
    /// A JSON-RPC error (unknown tool, bad `params`, a stateless envelope refused, a bug).
    ProtocolError,
}

impl CallOutcome {
    /// The outcome's name in audit lines: `ok`, `tool_error`, `scope_denied`, `protocol_error`.
    pub fn as_str(self) -> &'static str {
        match self {
            CallOutcome::Ok => "ok",
            CallOutcome::ToolError => "tool_error",
            CallOutcome::ScopeDenied => "scope_denied",
            CallOutcome::ProtocolError => "protocol_error",
        }
    }
}

/// Per-message state threaded through dispatch: the routing headers in, the report out.
#[derive(Debug, Default)]
pub(crate) struct Exchange<'a> {
    pub(crate) routing: Option<&'a RoutingHeaders>,
    pub(crate) tool_calls: Vec<ToolCall>,
    pub(crate) opened: Option<Revision>,
}

impl McpServer {
    /// How a transport serves `message`, from its `MCP-Protocol-Version` header (`None` when
    /// absent) and its body: the transport's whole protocol knowledge.
    ///
    /// The header `2026-07-28` routes to [`Route::Stateless`]; a classic revision or no header
    /// to [`Route::Open`] for `initialize`, else [`Route::Resume`]; an unknown value to
    /// [`Route::Stateless`] when the body is a stateless request (its `_meta` names a version,
    /// so the server answers `-32022` listing the versions), else
    /// [`Route::UnsupportedVersion`].
    pub fn plan(&self, version_header: Option<&str>, message: &Value) -> Plan {
        let method = message.get("method").and_then(Value::as_str);
        let reported = if message.is_array() {
            "batch"
        } else {
            method
                .and_then(|m| REPORTED_METHODS.iter().copied().find(|k| *k == m))
                .unwrap_or("other")
        };
        let tool = if method == Some("tools/call") {
            let name = message
                .get("params")
                .and_then(|params| params.get("name"))
                .and_then(Value::as_str);
            name.and_then(|name| self.tool_scope(name))
                .map_or(UNKNOWN_TOOL, |(name, _)| name)
        } else {
            ""
        };
        let classic = |revision: Option<Revision>| {
            if method == Some("initialize") {
                Route::Open
            } else {
                Route::Resume {
                    revision: revision.unwrap_or(Revision::WITHOUT_HEADER).as_str(),
                }
            }
        };
        let route = match version_header.map(str::trim) {
            None => classic(None),
            Some(LATEST_PROTOCOL_REVISION) => Route::Stateless,
            Some(value) => match Revision::parse(value) {
                Some(revision) => classic(Some(revision)),
                None if crate::is_stateless_request(message.get("params")) => Route::Stateless,
                None => Route::UnsupportedVersion,
            },
        };
        Plan {
            route,
            method: reported,
            tool,
        }
    }

    /// Serves one parsed message (object) or batch (array) in `session`, with the routing
    /// headers of a 2026-07-28 POST (`None` elsewhere, as on stdio), and reports what a
    /// transport needs besides the answer. The batch rule is [`crate::accepts_batches`].
    pub fn serve(
        &self,
        session: &mut Session,
        message: Value,
        routing: Option<&RoutingHeaders>,
    ) -> Served {
        let mut exchange = Exchange {
            routing,
            ..Exchange::default()
        };
        let answer = self.handle_value_in(session, message, &mut exchange);
        Served {
            answer,
            tool_calls: exchange.tool_calls,
            opened: exchange.opened.map(Revision::as_str),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        assert_eq!(
            base64_decode("Zmxvd19kaWdlc3Q=").as_deref(),
            Some(&b"flow_digest"[..])
        );
        assert_eq!(base64_decode("w6k").as_deref(), Some("é".as_bytes()));
        assert_eq!(base64_decode("a*b"), None);
    }

    fn headers(methods: &[&str], names: &[&str]) -> RoutingHeaders {
        RoutingHeaders {
            version: "2026-07-28".into(),
            methods: methods.iter().map(|m| m.as_bytes().to_vec()).collect(),
            names: names.iter().map(|n| n.as_bytes().to_vec()).collect(),
        }
    }

    #[test]
    fn each_header_is_checked() {
        let params: Map<String, Value> =
            serde_json::from_str(r#"{"name":"flow_digest","arguments":{}}"#).unwrap_or_default();
        let version = Value::from("2026-07-28");
        let check = |h: &RoutingHeaders, v: &Value| h.mismatch("tools/call", &params, v);
        let ok = headers(&["tools/call"], &["flow_digest"]);
        assert_eq!(check(&ok, &version), None);
        assert!(
            check(&ok, &Value::from("v999")).is_some_and(|m| m.contains("MCP-Protocol-Version"))
        );
        let cases = [
            headers(&[], &["flow_digest"]),
            headers(&["TOOLS/CALL"], &["flow_digest"]),
            headers(&["tools/call"], &[]),
            headers(&["tools/call"], &["flow_validate"]),
            headers(&["tools/call", "tools/call"], &["flow_digest"]),
            headers(&["tools/call"], &["flow_digest\u{7f}"]),
        ];
        for case in cases {
            assert!(check(&case, &version).is_some(), "{case:?}");
        }
        let padded = headers(&[" tools/call\t"], &["=?base64?Zmxvd19kaWdlc3Q=?="]);
        assert_eq!(check(&padded, &version), None);
    }
}
