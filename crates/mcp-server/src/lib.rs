//! botmesh-mcp: a Model Context Protocol server that gives an AI coding agent the deterministic
//! pieces of the botmesh bot framework: validate, analyze, migrate, diff and digest a flow
//! document, and search the project's Markdown guides. Every tool is a pure function of its
//! arguments: no network, no credentials, nothing written to disk.
//!
//! The items at this crate's root are the whole API, and stable (semver). The tool catalogue,
//! the framing and the libraries behind the tools are not exported: the tools a server offers
//! are the built-in ones (narrowed with [`ServerOptions::with_tools`]), so no custom tool type
//! is promised.
//!
//! Serve a stream from another Rust program:
//!
//! ```
//! use botmesh_mcp::{ServerOptions, StreamOptions, create_mcp_server, serve_stream};
//!
//! let server = create_mcp_server(ServerOptions::default())?;
//! let input = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"demo","version":"1"}}}
//! {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flow_digest","arguments":{"document":{"version":2}}}}
//! "#;
//! let mut answers = Vec::new();
//! serve_stream(&input[..], StreamOptions::new(server, |line: &str| {
//!     answers.push(line.to_owned());
//!     Ok(())
//! }))?;
//! assert_eq!(answers.len(), 2);
//! assert!(answers[1].contains("sha256:"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod apps;
mod args;
mod catalogue;
mod error;
mod exchange;
mod options;
mod protocol;
mod serve;
mod server;
mod stateless;
mod tools;

pub use catalogue::Scope;
pub use error::{OptionsError, ServeError};
pub use exchange::{CallOutcome, Plan, Route, RoutingHeaders, Served, ToolCall, UNKNOWN_TOOL};
pub use options::{ServerOptions, StreamOptions};
pub use protocol::{
    LATEST_INITIALIZE_REVISION, LATEST_PROTOCOL_REVISION, PROTOCOL_REVISIONS, SERVER_NAME,
    SERVER_TITLE, SERVER_VERSION, accepts_batches, meta,
};
pub use serve::{run_stdio, serve_stream};
pub use server::{McpServer, Session, create_mcp_server};
pub use stateless::is_stateless_request;

/// A realistic version 2 flow document that validates and lints with no diagnostic (what the
/// `flow_example` tool returns), as JSON text.
pub const EXAMPLE_FLOW_DOCUMENT: &str = botmesh_flow_schema::EXAMPLE_FLOW_DOCUMENT;

/// The default largest message, in characters (16 Mi).
pub const DEFAULT_MAX_MESSAGE_LENGTH: usize = botmesh_jsonrpc::DEFAULT_MAX_MESSAGE_LENGTH;

/// The compact JSON text of a message as the server writes it: one line, with U+0085, U+2028
/// and U+2029 escaped inside strings so a client that splits lines the Unicode way (Python's
/// `str.splitlines()`) never cuts a message. A transport that serializes its own answers (the
/// HTTP one) writes them with this.
///
/// ```
/// let line = botmesh_mcp::json_line(&serde_json::json!({ "text": "a\u{2028}b" }));
/// assert_eq!(line, r#"{"text":"a\u2028b"}"#);
/// ```
pub fn json_line(value: &serde_json::Value) -> String {
    botmesh_jsonrpc::to_json_line(value)
}

/// Parses the bytes of one whole message (an HTTP request body) as a stdio line is parsed: an
/// object or a batch array, or else (`Err`) the error answer stdio gives a line of the same
/// bytes, in the same words: `-32700` for bytes that are not UTF-8 or not JSON, `-32600` for
/// JSON that is neither an object nor an array. A transport answers a bad body with it, so
/// stdio and HTTP never word the same mistake differently.
///
/// ```
/// let answer = botmesh_mcp::parse_message(b"42").unwrap_err();
/// assert_eq!(answer["error"]["message"], "invalid request: a message must be a JSON object");
/// assert!(botmesh_mcp::parse_message(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).is_ok());
/// ```
pub fn parse_message(bytes: &[u8]) -> Result<serde_json::Value, serde_json::Value> {
    botmesh_jsonrpc::parse_message(bytes).map_err(|answer| answer.to_value())
}

/// The error answer to a message longer than `limit` bytes (`-32600`, `id: null`), worded as
/// stdio's answer to a line longer than its limit in characters.
pub fn message_too_long(limit: usize) -> serde_json::Value {
    botmesh_jsonrpc::too_long(limit, "bytes").to_value()
}

#[cfg(test)]
mod tests;
