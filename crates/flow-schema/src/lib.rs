//! The botmesh flow document contract: model, limits, validation, JSON Schema generation,
//! migration, canonical JSON and digest, diff, the example document, and the compiled form of a
//! flow set that every engine reads ([`program`]: what a flow means at run time, decided once).
//!
//! Everything here is a pure function of its arguments: no I/O, no clocks, no panics on any
//! JSON input. An invalid document is data (`Validation { valid: false, .. }`), never an `Err`.
//!
//! ```
//! let document = serde_json::json!({ "version": 2, "id": "hi", "steps": [{ "id": "a", "kind": "mesage" }] });
//! let validation = botmesh_flow_schema::validate(&document);
//! assert!(!validation.valid);
//! assert_eq!(validation.issues[0].path, "/steps/0/kind");
//! assert!(botmesh_flow_schema::digest(&document).digest.starts_with("sha256:"));
//! ```
//!
//! Dependencies beyond the design's list, each doing a standard job better than a hand copy:
//! - `regex-syntax`: parses `ask.pattern` and `matches` values into a syntax tree (refusing
//!   look-around and back-references, as RE2 does), which `validate` then holds to RE2's rules;
//!   and its tables of Unicode general categories (feature `unicode-gencat`), for the letters
//!   and digits of runtime §2 ([`is_letter_or_digit`]); no regex engine. The runtime, in the
//!   same binary, uses the same tables for RE2's `\pL`, so they cost the binary nothing;
//! - `rustc-hash`: FxHash for the lookup-only maps of compiling a [`Program`] (step ids, flow
//!   ids), as the analyzer uses it;
//! - `strsim`: edit distances for "did you mean" suggestions;
//! - `unicode-ident`: Unicode's `XID_Continue`, the word characters RE2 allows in capture group
//!   names (a 10 KB table; the crate is already in every Rust build, through `proc-macro2`);
//! - `ryu-js`: formats numbers exactly as ECMAScript's `Number.prototype.toString`, which
//!   RFC 8785 requires and the JavaScript runtime's digests depend on;
//! - `unicode-normalization`: NFD, to fold accents when migration derives a flow id from a name
//!   and when messages and keywords are normalized ([`normalize`]);
//! - dev-only: `jsonschema` (the schema/validator agreement test), `regex-syntax` with its
//!   Unicode tables (a test checks every RE2 class name against them), `serde_jcs` (a second RFC
//!   8785 implementation to agree with), `proptest`, `expect-test`.

mod canonical;
mod compact;
mod diff;
mod error;
mod example;
mod fix;
mod limits;
mod matching;
mod migrate;
mod model;
mod pointer;
pub mod program;
mod rename;
mod schema;
mod source_map;
mod step_shape;
mod suggest;
mod validate;

pub use canonical::{Digest, canonical_json, digest};
pub use compact::compact_schema;
pub use diff::{ChangedStep, Diff, FieldChange, MAX_DIFF_DEPTH, MAX_DIFF_VALUE, StepEntry, diff};
pub use error::Error;
pub use example::EXAMPLE_FLOW_DOCUMENT;
pub use fix::{
    Applicability, Fix, PatchError, apply_patch, remove_patch, rename_patch, replace_patch,
};
pub use limits::{
    BUILT_IN_VARIABLES, CURRENT_VERSION, DEFAULT_RETRIES, FLOW_ID_PATTERN, HANDLER_PATTERN,
    LOCALE_PATTERN, MAX_ARGS_DEPTH, MAX_BUTTON_ID, MAX_BUTTON_TITLE, MAX_BUTTONS, MAX_CAPTION,
    MAX_CASES, MAX_CONDITION_CHILDREN, MAX_CONDITION_DEPTH, MAX_DELAY_SECONDS, MAX_FILENAME,
    MAX_FLOW_ID, MAX_HANDLER, MAX_HEADER, MAX_IN_VALUES, MAX_KEYWORD, MAX_KEYWORDS, MAX_LATITUDE,
    MAX_LIST_BUTTON, MAX_LIST_ROWS, MAX_LOCATION_ADDRESS, MAX_LOCATION_NAME, MAX_LONGITUDE,
    MAX_METADATA_DESCRIPTION, MAX_METADATA_TITLE, MAX_QUEUE, MAX_RETRIES, MAX_ROW_DESCRIPTION,
    MAX_ROW_ID, MAX_ROW_TITLE, MAX_SECTION_ROWS, MAX_SECTION_TITLE, MAX_SECTIONS, MAX_SHORT_TEXT,
    MAX_STEP_ID, MAX_STEPS, MAX_TAG, MAX_TAGS, MAX_TEMPLATE_NAME, MAX_TEMPLATE_PARAMETER,
    MAX_TEMPLATE_PARAMETERS, MAX_TEXT, MAX_URL, MAX_VARIABLE_DESCRIPTION, MAX_VARIABLE_NAME,
    MAX_VARIABLES, MIN_DELAY_SECONDS, MIN_KEYWORDS, MIN_STEPS, STEP_ID_PATTERN,
    TEMPLATE_LANGUAGE_PATTERN, TEMPLATE_NAME_PATTERN, URL_PATTERN, VARIABLE_NAME_PATTERN,
};
pub use matching::{contains_words, in_ranges, is_letter_or_digit, normalize, starts_with_words};
pub use migrate::{AppliedStep, Migration, migrate};
pub use model::{
    Button, Case, Comparison, Condition, FlowDocument, InputKind, MatchMode, MediaKind, Metadata,
    Row, Scalar, Section, Step, StepKind, Trigger, Variable,
};
pub use pointer::{escape_token, push_token, unescape_token};
pub use program::{Program, is_variable_name};
pub use schema::{
    FLOW_SCHEMA_JSON, json_schema, json_schema_string, limits_json, step_kinds,
    strip_null_from_optional_properties,
};
pub use source_map::{Location, Member, SourceMap, SyntaxError, edit_text, parse_with_positions};
pub use suggest::nearest_name;
pub use validate::{
    Issue, MAX_PATTERN_PROGRAM, Summary, TOP_LEVEL_KEYS, Validation, re2_as_regex_syntax, validate,
};
