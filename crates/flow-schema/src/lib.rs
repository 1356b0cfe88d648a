//! The botmesh flow document contract: model, limits, validation, JSON Schema generation,
//! migration, canonical JSON and digest, diff, and the example document.
//!
//! Everything here is a pure function of its arguments: no I/O, no clocks, no panics on any
//! JSON input. An invalid document is data (`Validation { valid: false, .. }`), never an `Err`.

mod canonical;
mod diff;
mod error;
mod example;
mod limits;
mod migrate;
mod model;
mod schema;
mod validate;

pub use canonical::{Digest, canonical_json, digest};
pub use diff::{ChangedStep, Diff, diff};
pub use error::Error;
pub use example::EXAMPLE_FLOW_DOCUMENT;
pub use limits::*;
pub use migrate::{AppliedStep, Migration, migrate};
pub use schema::{json_schema, json_schema_string, limits_json, step_kinds};
pub use validate::{Issue, Summary, Validation, validate};
