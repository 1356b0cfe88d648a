//! Errors of serving a stream.

/// Why serving a stream stopped before the end of its input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// Reading the input failed.
    #[error("reading the input failed")]
    Read(#[source] std::io::Error),
}
