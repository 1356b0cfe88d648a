//! The stateless revision 2026-07-28 ([`LATEST_PROTOCOL_REVISION`]): per-request `_meta`,
//! `server/discover`, results ending with `resultType` and `_meta`.
//!
//! A request is served here when its `params._meta` carries
//! `io.modelcontextprotocol/protocolVersion` (and it is not `initialize`, which always opens a
//! legacy session), or when its session is [`crate::Session::stateless`]. The ladder, in
//! order: `_meta` must hold the version and the client capabilities (`-32602`); the version must
//! be one served on this path (`-32022` with `data.supported` and `data.requested`); the method
//! must exist in this revision (`-32601`: `ping`, `initialize` and `logging/setLevel` are gone).
//!
//! The client capabilities of each request decide for that request alone whether the MCP Apps
//! view is served (`apps.rs`): `server/discover` declares it, `tools/list` links the tools to it,
//! `resources/*` answer; for any other request's capabilities, this revision is served as if the
//! extension did not exist.

use crate::apps;
use crate::exchange::RoutingHeaders;
use crate::protocol::HEADER_MISMATCH;
use crate::protocol::{
    INSTRUCTIONS, LATEST_PROTOCOL_REVISION, LIST_TTL_MS, PROTOCOL_REVISIONS, Revision, SERVER_NAME,
    SERVER_TITLE, SERVER_VERSION, UNSUPPORTED_PROTOCOL_VERSION, meta,
};
use crate::server::{McpServer, Session};
use botmesh_jsonrpc::{ErrorObject, Id, Response, codes};
use serde_json::{Map, Value, json};
use std::sync::LazyLock;

/// True when a request's `params._meta` names a protocol version: the mark of a stateless
/// (2026-07-28) request. A bare `_meta` is not enough: legacy requests put `progressToken`
/// there. `initialize` is never stateless, whatever its params say.
///
/// ```
/// use serde_json::json;
///
/// let stateless = json!({ "_meta": { botmesh_mcp::meta::PROTOCOL_VERSION: "2026-07-28" } });
/// assert!(botmesh_mcp::is_stateless_request(Some(&stateless)));
/// assert!(!botmesh_mcp::is_stateless_request(Some(&json!({ "_meta": { "progressToken": 1 } }))));
/// ```
pub fn is_stateless_request(params: Option<&Value>) -> bool {
    params
        .and_then(|params| params.get("_meta"))
        .and_then(Value::as_object)
        .is_some_and(|meta| meta.contains_key(meta::PROTOCOL_VERSION))
}

/// `-32602` for a stateless request whose `_meta` lacks a required key.
pub(crate) fn missing_meta() -> ErrorObject {
    ErrorObject::new(
        codes::INVALID_PARAMS,
        format!(
            "params._meta must carry \"{}\" and \"{}\"",
            meta::PROTOCOL_VERSION,
            meta::CLIENT_CAPABILITIES
        ),
    )
}

/// The fields every stateless result ends with: `resultType` and the server identity in `_meta`.
/// Built once and written by reference into each answer (`Response::with_extra`).
static COMPLETE: LazyLock<Map<String, Value>> = LazyLock::new(|| {
    let mut fields = RESULT_TYPE.clone();
    fields.insert("_meta".into(), json!({ meta::SERVER_INFO: server_info() }));
    fields
});

/// `resultType` alone: what a result with a `_meta` of its own ends with (the server identity
/// then goes into that `_meta`, [`complete`]).
static RESULT_TYPE: LazyLock<Map<String, Value>> = LazyLock::new(|| {
    let mut fields = Map::new();
    fields.insert("resultType".into(), json!("complete"));
    fields
});

/// The server identity every stateless result carries in `_meta`.
fn server_info() -> Value {
    json!({ "name": SERVER_NAME, "title": SERVER_TITLE, "version": SERVER_VERSION })
}

/// [`COMPLETE`] plus the caching hints of `server/discover` and `tools/list`.
static CACHEABLE: LazyLock<Map<String, Value>> = LazyLock::new(|| {
    let mut fields = COMPLETE.clone();
    fields.insert("ttlMs".into(), json!(LIST_TTL_MS));
    fields.insert("cacheScope".into(), json!("public"));
    fields
});

/// The constant fields a stateless result of `method` carries.
fn result_extra(method: &str) -> &'static Map<String, Value> {
    match method {
        "server/discover"
        | "tools/list"
        | "resources/list"
        | "resources/read"
        | "resources/templates/list" => &CACHEABLE,
        _ => &COMPLETE,
    }
}

/// The answer to a stateless request whose result is `result`: the result, then its constant
/// fields. A result with a `_meta` of its own (a tool result for an MCP Apps view; never a
/// cacheable one) gets the server identity inside that `_meta`, then `resultType`.
pub(crate) fn complete(id: Id, method: &str, mut result: Value) -> Response {
    if let Some(own) = result.get_mut("_meta").and_then(Value::as_object_mut) {
        own.insert(meta::SERVER_INFO.into(), server_info());
        return Response::result(id, result).with_extra(&RESULT_TYPE);
    }
    Response::result(id, result).with_extra(result_extra(method))
}

/// Serves one request under the stateless revision.
pub(crate) fn dispatch(
    server: &McpServer,
    session: &Session,
    method: &str,
    params: Option<Value>,
    routing: Option<&RoutingHeaders>,
) -> Result<Value, ErrorObject> {
    let Some(Value::Object(params)) = params else {
        return Err(missing_meta());
    };
    let Some(request_meta) = params.get("_meta").and_then(Value::as_object) else {
        return Err(missing_meta());
    };
    let (Some(version), Some(capabilities)) = (
        request_meta.get(meta::PROTOCOL_VERSION),
        request_meta.get(meta::CLIENT_CAPABILITIES),
    ) else {
        return Err(missing_meta());
    };
    // The HTTP routing headers are checked once the envelope is complete, before its version.
    if let Some(reason) = routing.and_then(|routing| routing.mismatch(method, &params, version)) {
        return Err(ErrorObject::new(
            HEADER_MISMATCH,
            format!("header mismatch: {reason}"),
        ));
    }
    let Some(version) = version.as_str() else {
        return Err(ErrorObject::new(
            codes::INVALID_PARAMS,
            format!("\"{}\" must be a string", meta::PROTOCOL_VERSION),
        ));
    };
    if version != LATEST_PROTOCOL_REVISION {
        return Err(
            ErrorObject::new(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
                .with_data(json!({ "supported": PROTOCOL_REVISIONS, "requested": version })),
        );
    }
    let declared = server.apps_declared(Some(capabilities));
    let ui = declared.is_some();
    match method {
        "server/discover" => {
            let mut capabilities = Map::new();
            capabilities.insert("tools".into(), json!({}));
            if let Some(declared) = declared {
                declared.answer(&mut capabilities);
            }
            Ok(json!({
                "supportedVersions": PROTOCOL_REVISIONS,
                "capabilities": capabilities,
                "instructions": INSTRUCTIONS,
            }))
        }
        "tools/list" => server.tools_list(Revision::LATEST, ui, &without_meta(&params)),
        "tools/call" => server.tools_call(session, Revision::LATEST, ui, &params),
        "resources/list" if ui => apps::list(Revision::LATEST, &without_meta(&params)),
        "resources/read" if ui => apps::read(session, &params, true),
        "resources/templates/list" if ui => Ok(apps::templates()),
        _ => Err(ErrorObject::new(
            codes::METHOD_NOT_FOUND,
            format!("method not found in revision {LATEST_PROTOCOL_REVISION}: {method}"),
        )),
    }
}

/// The params without `_meta` (so `tools/list` sees only its own keys).
fn without_meta(params: &Map<String, Value>) -> Map<String, Value> {
    params
        .iter()
        .filter(|(key, _)| *key != "_meta")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}
