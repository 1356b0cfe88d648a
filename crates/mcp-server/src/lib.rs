//! botmesh-mcp: a Model Context Protocol server that gives an AI coding agent the deterministic
//! pieces of the botmesh bot framework: validate, analyze, migrate, diff and digest a flow
//! document, and search the project's Markdown guides. Every tool is a pure function of its
//! arguments: no network, no credentials, nothing written to disk.
//!
//! The items at this crate's root are the stable API (semver). [`internal`] re-exports the
//! framing, the tool catalogue and the libraries behind the tools, with no semver promise.
//!
//! Serve a stream from another Rust program:
//!
//! ```
//! use botmesh_mcp::{ServeOptions, ServerOptions, create_mcp_server, serve_stream};
//!
//! let server = create_mcp_server(ServerOptions::default());
//! let input = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"demo","version":"1"}}}
//! {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flow_digest","arguments":{"document":{"version":2}}}}
//! "#;
//! let mut answers = Vec::new();
//! serve_stream(&input[..], ServeOptions::new(server, |line: &str| {
//!     answers.push(line.to_owned());
//!     Ok(())
//! }))?;
//! assert_eq!(answers.len(), 2);
//! assert!(answers[1].contains("sha256:"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod args;
mod catalogue;
mod error;
mod modern;
mod options;
mod protocol;
mod serve;
mod server;
mod tools;

pub use error::ServeError;
pub use options::{ServeOptions, ServerOptions};
pub use protocol::{
    LATEST_INITIALIZE_REVISION, LATEST_PROTOCOL_REVISION, PROTOCOL_REVISIONS, SERVER_NAME,
    SERVER_TITLE, SERVER_VERSION,
};
pub use serve::{run_stdio, serve_stream};
pub use server::{McpServer, create_mcp_server};

/// A realistic version 2 flow document that validates and lints with no diagnostic (what the
/// `flow_example` tool returns), as JSON text.
pub const EXAMPLE_FLOW_DOCUMENT: &str = botmesh_flow_schema::EXAMPLE_FLOW_DOCUMENT;

/// The default largest message, in characters (16 Mi).
pub const DEFAULT_MAX_MESSAGE_LENGTH: usize = botmesh_jsonrpc::DEFAULT_MAX_MESSAGE_LENGTH;

/// No semver promise: the framing, the tool catalogue, sessions and the libraries behind the
/// tools, for programs that accept breakage.
pub mod internal {
    pub use crate::catalogue::{
        Catalogue, Handler, ImageContent, Scope, Tool, ToolContext, ToolError, ToolOutput,
    };
    pub use crate::modern::carries_version;
    pub use crate::protocol::meta;
    pub use crate::server::Session;
    pub use crate::tools::builtin_tool_names;
    pub use botmesh_docs_search as docs_search;
    pub use botmesh_flow_analyzer as flow_analyzer;
    pub use botmesh_flow_render as flow_render;
    pub use botmesh_flow_schema as flow_schema;
    pub use botmesh_jsonrpc as jsonrpc;
}

#[cfg(test)]
mod tests;
