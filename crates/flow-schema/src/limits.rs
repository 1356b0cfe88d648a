//! Every limit of the flow document, named once and used by both the validator and the schema.

/// The current flow document version.
pub const CURRENT_VERSION: u64 = 2;
