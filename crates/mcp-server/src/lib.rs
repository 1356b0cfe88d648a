//! botmesh-mcp: a Model Context Protocol server for botmesh flow documents (skeleton; the
//! server core issue fills it in).

mod server;

pub use server::{McpServer, ServerOptions, create_mcp_server};

/// The largest message accepted, in characters (16 Mi).
pub const DEFAULT_MAX_MESSAGE_LENGTH: usize = 16 * 1024 * 1024;

/// No semver promise: the framing, the tool catalogue and the libraries behind the tools.
pub mod internal {
    pub use crate::server::Session;
    pub use botmesh_docs_search as docs_search;
    pub use botmesh_flow_analyzer as flow_analyzer;
    pub use botmesh_flow_schema as flow_schema;
    pub use botmesh_jsonrpc as jsonrpc;
}
