//! The example document (skeleton).

/// A realistic document that validates and lints clean.
pub const EXAMPLE_FLOW_DOCUMENT: &str = "{}";
