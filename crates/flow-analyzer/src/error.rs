//! The errors of this crate: only argument parsing can fail; analysis never does.

/// A caller error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A direction other than `TD`, `LR`, `BT` or `RL`.
    #[error("unknown direction {0:?} (expected TD, LR, BT or RL)")]
    UnknownDirection(String),
    /// A format other than `mermaid` or `json`.
    #[error("unknown format {0:?} (expected mermaid or json)")]
    UnknownFormat(String),
    /// A report format other than `text`, `json` or `github`.
    #[error("unknown report format {0:?} (expected text, json or github)")]
    UnknownReportFormat(String),
    /// A source text that is not JSON.
    #[error("{name} is not JSON: {reason}")]
    NotJson {
        /// The name the caller gave the source (a file name as typed).
        name: String,
        /// What the JSON parser said, with line and column.
        reason: String,
    },
}
