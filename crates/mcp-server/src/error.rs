//! Errors of creating a server and of serving a stream.

/// Why [`crate::ServerOptions`] cannot make a server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OptionsError {
    /// The tool list names a tool this server does not have (a typo, most likely).
    #[error("unknown tool \"{name}\" (known: {known})")]
    UnknownTool {
        /// The name as given.
        name: String,
        /// Every built-in tool name, comma-separated.
        known: String,
    },
}

/// Why serving a stream stopped before the end of its input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The options cannot make a server ([`crate::run_stdio`] creates one).
    #[error(transparent)]
    Options(#[from] OptionsError),
    /// Reading the input failed.
    #[error("reading the input failed")]
    Read(#[source] std::io::Error),
}
