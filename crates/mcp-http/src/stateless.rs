//! The 2026-07-28 routing headers: `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` must
//! repeat what the body says (`basic/transports/streamable-http.mdx`), or the POST answers
//! `400` with `-32020` and the request's id.
//!
//! Order (the stateless ladder): a body whose `params._meta` lacks the version or the client
//! capabilities is left to the server (`-32602`); then these header checks (`-32020`); then the
//! server's version check (`-32022`) and dispatch. Values are compared case-sensitively after
//! trimming optional whitespace; a value written `=?base64?…?=` is decoded first; a routing
//! header sent twice is a mismatch.

use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

pub(crate) const METHOD_HEADER: HeaderName = HeaderName::from_static("mcp-method");
pub(crate) const NAME_HEADER: HeaderName = HeaderName::from_static("mcp-name");
use botmesh_mcp::meta::{CLIENT_CAPABILITIES as CAPABILITIES_KEY, PROTOCOL_VERSION as VERSION_KEY};

/// The routing headers of one POST, read before its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RoutingHeaders {
    version: String,
    methods: Vec<HeaderValue>,
    names: Vec<HeaderValue>,
}

impl RoutingHeaders {
    /// Reads the headers; `version` is the (trimmed) `MCP-Protocol-Version` value.
    pub(crate) fn read(headers: &HeaderMap, version: &str) -> Self {
        RoutingHeaders {
            version: version.to_owned(),
            methods: headers.get_all(METHOD_HEADER).iter().cloned().collect(),
            names: headers.get_all(NAME_HEADER).iter().cloned().collect(),
        }
    }

    /// The `MCP-Protocol-Version` header value.
    pub(crate) fn version(&self) -> &str {
        &self.version
    }

    /// Why the headers disagree with `message`, if they do (requests only: a notification is
    /// never answered).
    pub(crate) fn mismatch(&self, message: &Value) -> Option<String> {
        message.get("id")?;
        let params = message.get("params");
        let meta = params
            .and_then(|params| params.get("_meta"))
            .and_then(Value::as_object)?;
        let (Some(body_version), Some(_)) = (meta.get(VERSION_KEY), meta.get(CAPABILITIES_KEY))
        else {
            return None; // The server answers -32602 for a missing `_meta` field.
        };
        if body_version.as_str() != Some(self.version.as_str()) {
            return Some(format!(
                "MCP-Protocol-Version header {:?} does not match params._meta {body_version}",
                self.version
            ));
        }
        let method = message.get("method").and_then(Value::as_str)?;
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
        let expected = params
            .and_then(|params| params.get(key))
            .and_then(Value::as_str)?;
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
fn single(values: &[HeaderValue], name: &str) -> Result<Option<String>, String> {
    match values {
        [] => Ok(None),
        [value] => decode(value)
            .map(Some)
            .ok_or_else(|| format!("the {name} header is malformed")),
        _ => Err(format!("the {name} header is sent more than once")),
    }
}

/// A header value: trimmed of optional whitespace, `=?base64?…?=` decoded as UTF-8.
fn decode(value: &HeaderValue) -> Option<String> {
    let text = value.to_str().ok()?.trim_matches([' ', '\t']);
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
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn headers(pairs: &[(&'static str, &'static str)]) -> RoutingHeaders {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        RoutingHeaders::read(&map, "2026-07-28")
    }

    fn call(version: &str) -> Value {
        json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"flow_digest","arguments":{},"_meta":{VERSION_KEY: version, CAPABILITIES_KEY: {}}}})
    }

    #[test]
    fn base64_round_trips() {
        assert_eq!(
            base64_decode("Zmxvd19kaWdlc3Q=").as_deref(),
            Some(&b"flow_digest"[..])
        );
        assert_eq!(base64_decode("w6k").as_deref(), Some("é".as_bytes()));
        assert_eq!(base64_decode("a*b"), None);
    }

    #[test]
    fn each_header_is_checked() {
        let ok = [("mcp-method", "tools/call"), ("mcp-name", "flow_digest")];
        assert_eq!(headers(&ok).mismatch(&call("2026-07-28")), None);
        assert!(
            headers(&ok)
                .mismatch(&call("v999"))
                .is_some_and(|m| m.contains("MCP-Protocol-Version"))
        );
        let cases: [&[(&'static str, &'static str)]; 5] = [
            &[("mcp-name", "flow_digest")],
            &[("mcp-method", "TOOLS/CALL"), ("mcp-name", "flow_digest")],
            &[("mcp-method", "tools/call")],
            &[("mcp-method", "tools/call"), ("mcp-name", "flow_validate")],
            &[
                ("mcp-method", "tools/call"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "flow_digest"),
            ],
        ];
        for case in cases {
            assert!(
                headers(case).mismatch(&call("2026-07-28")).is_some(),
                "{case:?}"
            );
        }
        let padded = [
            ("mcp-method", " tools/call\t"),
            ("mcp-name", "=?base64?Zmxvd19kaWdlc3Q=?="),
        ];
        assert_eq!(headers(&padded).mismatch(&call("2026-07-28")), None);
        let notification = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{}});
        assert_eq!(headers(&[]).mismatch(&notification), None);
        let no_meta = json!({"jsonrpc":"2.0","id":1,"method":"tools/list"});
        assert_eq!(
            headers(&[]).mismatch(&no_meta),
            None,
            "the server answers -32602"
        );
    }
}
