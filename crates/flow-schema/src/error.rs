//! Errors that are the caller's fault (an unmigratable version, a bad target).

/// A request this crate cannot honour; an invalid *document* is never an error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The document's `version` is not an integer 0–2.
    #[error("version must be an integer from 0 to 2, found {found}")]
    BadVersion {
        /// The offending value, rendered as JSON.
        found: String,
    },
    /// The migration target is outside what this version can do.
    #[error("target {target} is not possible for a version {from} document (allowed: {from}-2)")]
    BadTarget {
        /// The document's version.
        from: u64,
        /// The target asked for.
        target: u64,
    },
}
