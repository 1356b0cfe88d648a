//! Options for creating and serving a server.

use crate::McpServer;
use std::io;
use std::path::PathBuf;

/// What server to make, for [`crate::create_mcp_server`] and [`crate::run_stdio`]: build from
/// `Default` and the `with_*` methods.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerOptions {
    /// The Markdown tree served by `docs_search`/`docs_page`; without it (or when it does not
    /// exist) those two tools are not advertised.
    pub docs_dir: Option<PathBuf>,
    /// The largest message accepted, in characters.
    pub max_message_length: usize,
    /// Serve only these tools (a named subset of the catalogue); `None` serves them all. A name
    /// that is no tool at all makes [`crate::create_mcp_server`] fail.
    pub tools: Option<Vec<String>>,
    /// Serve the MCP Apps view (`ui://botmesh/flow`) to a client that declares the extension
    /// `io.modelcontextprotocol/ui` (default `true`). With `false` the server never declares
    /// resources nor links a tool to a view, whatever the client declares; neither does a server
    /// whose `tools` leave out `flow_render`, which the view draws with.
    pub ui: bool,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            docs_dir: None,
            max_message_length: crate::DEFAULT_MAX_MESSAGE_LENGTH,
            tools: None,
            ui: true,
        }
    }
}

impl ServerOptions {
    /// Sets the docs directory.
    pub fn with_docs_dir(mut self, docs_dir: Option<PathBuf>) -> Self {
        self.docs_dir = docs_dir;
        self
    }

    /// Sets the largest message accepted, in characters.
    pub fn with_max_message_length(mut self, max_message_length: usize) -> Self {
        self.max_message_length = max_message_length;
        self
    }

    /// Serves only the named tools (an unknown name is an error when the server is created).
    pub fn with_tools(mut self, tools: Option<Vec<String>>) -> Self {
        self.tools = tools;
        self
    }

    /// Serves the MCP Apps view to clients that declare it (`true`, the default) or to none.
    pub fn with_ui(mut self, ui: bool) -> Self {
        self.ui = ui;
        self
    }
}

/// One stream to serve, for [`crate::serve_stream`]: the server answering it, and where each
/// answer line goes.
#[non_exhaustive]
pub struct StreamOptions<W> {
    /// The server answering the stream.
    pub server: McpServer,
    /// Receives each outgoing line (without its newline). An error stops further writes (the
    /// peer has gone), but the input is still read to its end.
    pub write: W,
}

impl<W: FnMut(&str) -> io::Result<()>> StreamOptions<W> {
    /// Serve `server`, handing answer lines to `write`.
    pub fn new(server: McpServer, write: W) -> Self {
        StreamOptions { server, write }
    }
}
