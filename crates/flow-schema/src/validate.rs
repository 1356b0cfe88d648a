//! Validation: every problem of a document, in document order, each with an RFC 6901 pointer and
//! one short sentence naming the rule.
//!
//! The checks are hand-written over `serde_json::Value` (not serde errors, which stop at the
//! first problem). "Document order" is: an object's own problems (missing properties) first,
//! then its known properties in the order of the specification's tables, then its unknown
//! properties sorted by name; array elements in index order. Reference integrity (unique ids,
//! targets that exist, built-ins not written) is checked in the same pass, after a first pass
//! that collects the step ids.
//!
//! As the specification's settled details say, every string has at least 1 character unless a
//! range says otherwise, values included: `set.value`, a string variable's `default`, and the
//! `value` of `eq`, `ne`, `contains`, `startsWith` and the elements of `in` are never empty
//! strings.
//!
//! Choices where the specification is silent:
//! - Optional properties are left out, never `null` (`null` is only a value: `set.value`, which
//!   is how `set` clears a variable, and `eq`/`ne`/`in` values, which match an unset variable).
//! - `trigger.keywords` is optional (a `fallback` trigger needs none); `template.parameters`,
//!   `buttons`/`list` `header` and `footer` are optional.
//! - `media.url` is `https://` followed by at least one character, none of them white space
//!   (Unicode `White_Space`) or a control character (`Cc`).
//! - `action.args` depth: the `args` object is level 1 and each object or array inside adds one;
//!   the first container past level 32 is reported, nothing below it.
//! - Conditions deeper than 8 levels are reported at the first condition past the limit.
//! - A document whose `version` is not 2 gets exactly one issue (at `/version`) and nothing else.
//! - A step without a known `kind` is checked for its `id`, its `next` and properties that no
//!   kind has; its other properties cannot be judged.
//!
//! Regular expressions (`ask.pattern`, `matches`) are parsed with `regex-syntax`, which, like
//! RE2, rejects look-around and back-references, and the syntax tree is then held to RE2's rules
//! (`re2.rs`: its Unicode class names, flags, escapes and repetition limits).
use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::fix::{Fix, free_name, remove_patch, rename_patch, replace_patch};
use crate::limits::{
    BUILT_IN_VARIABLES, CURRENT_VERSION, MAX_ARGS_DEPTH, MAX_BUTTON_ID, MAX_BUTTON_TITLE,
    MAX_BUTTONS, MAX_CAPTION, MAX_CASES, MAX_CONDITION_CHILDREN, MAX_CONDITION_DEPTH,
    MAX_DELAY_SECONDS, MAX_FILENAME, MAX_FLOW_ID, MAX_HANDLER, MAX_HEADER, MAX_IN_VALUES,
    MAX_KEYWORD, MAX_KEYWORDS, MAX_LATITUDE, MAX_LIST_BUTTON, MAX_LIST_ROWS, MAX_LOCATION_ADDRESS,
    MAX_LOCATION_NAME, MAX_LONGITUDE, MAX_METADATA_DESCRIPTION, MAX_METADATA_TITLE, MAX_QUEUE,
    MAX_RETRIES, MAX_ROW_DESCRIPTION, MAX_ROW_ID, MAX_ROW_TITLE, MAX_SECTION_ROWS,
    MAX_SECTION_TITLE, MAX_SECTIONS, MAX_SHORT_TEXT, MAX_STEP_ID, MAX_STEPS, MAX_TAG, MAX_TAGS,
    MAX_TEMPLATE_NAME, MAX_TEMPLATE_PARAMETER, MAX_TEMPLATE_PARAMETERS, MAX_TEXT, MAX_URL,
    MAX_VARIABLE_DESCRIPTION, MAX_VARIABLE_NAME, MAX_VARIABLES, MIN_DELAY_SECONDS, MIN_KEYWORDS,
    MIN_STEPS,
};
use crate::model::StepKind;
use crate::pointer::push_token;
use crate::program::is_variable_name;
use crate::rename;
use crate::suggest::{
    KindHint, alias, closest, closest_property, did_you_mean, kind_hint, kind_of, literal, short,
    sure_alias, sure_kind, sure_property, sure_value, unique_closest,
};

mod re2;
pub use re2::MAX_PATTERN_PROGRAM;
pub use re2::as_regex_syntax as re2_as_regex_syntax;
#[cfg(test)]
mod tests;

/// One problem in a document.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Issue {
    /// RFC 6901 JSON Pointer to the offending node.
    pub path: String,
    /// One short sentence naming the rule.
    pub message: String,
    /// True when the issue is about the key itself (an unknown or misplaced property), so a
    /// position in the text points at the key rather than its value. Not serialized.
    #[serde(skip)]
    pub at_key: bool,
    /// The repair, when it is determined (see [`Fix`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
}

/// What a valid document holds.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Document version (always 2 when valid).
    pub version: u64,
    /// Flow id.
    pub id: String,
    /// Number of steps.
    pub steps: usize,
    /// Number of steps per kind.
    pub kinds: BTreeMap<String, usize>,
}

/// The result of [`validate`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Validation {
    /// True when there is no issue.
    pub valid: bool,
    /// Every problem, in document order.
    pub issues: Vec<Issue>,
    /// Present only when valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
}

/// The top-level keys of a version 2 document, in the order the spec lists them (and issues
/// come in).
pub const TOP_LEVEL_KEYS: [&str; 7] = [
    "$schema",
    "version",
    "id",
    "metadata",
    "trigger",
    "variables",
    "steps",
];
const METADATA: [&str; 4] = ["title", "description", "locale", "tags"];
const TRIGGER: [&str; 3] = ["keywords", "match", "fallback"];
const MATCH_MODES: [&str; 3] = ["exact", "contains", "startsWith"];
const VARIABLE: [&str; 3] = ["type", "default", "description"];
const VARIABLE_TYPES: [&str; 3] = ["string", "number", "boolean"];
const MEDIA_KINDS: [&str; 5] = ["image", "video", "audio", "document", "sticker"];
const INPUT_KINDS: [&str; 6] = ["text", "number", "email", "phone", "date", "yesno"];
const BUTTON: [&str; 3] = ["id", "title", "next"];
const SECTION: [&str; 2] = ["title", "rows"];
const ROW: [&str; 4] = ["id", "title", "description", "next"];
const CASE: [&str; 2] = ["when", "next"];
const LEAF: [&str; 3] = ["var", "op", "value"];
const OPS: [&str; 11] = [
    "eq",
    "ne",
    "lt",
    "lte",
    "gt",
    "gte",
    "contains",
    "startsWith",
    "matches",
    "exists",
    "in",
];

/// Names and codes with a fixed pattern.
#[derive(Clone, Copy)]
enum Shape {
    FlowId,
    StepId,
    Variable,
    Locale,
    TemplateName,
    TemplateLanguage,
    Handler,
}

impl Shape {
    fn matches(self, s: &str) -> bool {
        let b = s.as_bytes();
        let lower = |c: &u8| c.is_ascii_lowercase();
        let upper = |c: &u8| c.is_ascii_uppercase();
        match self {
            Shape::FlowId => {
                (1..=MAX_FLOW_ID).contains(&b.len())
                    && lower(&b[0])
                    && b[1..]
                        .iter()
                        .all(|c| lower(c) || c.is_ascii_digit() || *c == b'_' || *c == b'-')
            }
            Shape::StepId => {
                (1..=MAX_STEP_ID).contains(&b.len())
                    && b[0].is_ascii_alphabetic()
                    && b[1..]
                        .iter()
                        .all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-')
            }
            Shape::Variable => is_variable_name(s),
            Shape::Locale | Shape::TemplateLanguage => {
                let separator = if matches!(self, Shape::Locale) {
                    b'-'
                } else {
                    b'_'
                };
                let (language, region) = match b.iter().position(|c| *c == separator) {
                    Some(at) => (&b[..at], Some(&b[at + 1..])),
                    None => (b, None),
                };
                (2..=3).contains(&language.len())
                    && language.iter().all(lower)
                    && region.is_none_or(|r| r.len() == 2 && r.iter().all(upper))
            }
            Shape::TemplateName => {
                (1..=MAX_TEMPLATE_NAME).contains(&b.len())
                    && b.iter()
                        .all(|c| lower(c) || c.is_ascii_digit() || *c == b'_')
            }
            Shape::Handler => {
                (1..=MAX_HANDLER).contains(&b.len())
                    && b[0].is_ascii_alphabetic()
                    && b[1..]
                        .iter()
                        .all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.')
            }
        }
    }

    /// The rule a name breaks, with the lengths from the limits (a pattern's `{0,63}` is a
    /// first character and up to `MAX_* - 1` more).
    fn rule(self) -> String {
        match self {
            Shape::FlowId => format!(
                "must be a flow id: a lowercase letter, then up to {} lowercase letters, digits, \"_\" or \"-\"",
                MAX_FLOW_ID - 1
            ),
            Shape::StepId => format!(
                "must be a step id: a letter, then up to {} letters, digits, \"_\" or \"-\"",
                MAX_STEP_ID - 1
            ),
            Shape::Variable => format!(
                "must be a variable name: a lowercase letter or \"_\", then up to {} lowercase letters, digits or \"_\"",
                MAX_VARIABLE_NAME - 1
            ),
            Shape::Locale => "must be a locale such as \"en\" or \"pt-BR\"".to_owned(),
            Shape::TemplateName => format!(
                "must be a template name of 1-{MAX_TEMPLATE_NAME} lowercase letters, digits or \"_\""
            ),
            Shape::TemplateLanguage => {
                "must be a template language such as \"en\" or \"pt_BR\"".to_owned()
            }
            Shape::Handler => format!(
                "must be a handler name: a letter, then up to {} letters, digits, \"_\" or \".\"",
                MAX_HANDLER - 1
            ),
        }
    }
}

/// True when `name` is a valid flow id (`^[a-z][a-z0-9_-]{0,63}$`).
pub(crate) fn is_flow_id(name: &str) -> bool {
    Shape::FlowId.matches(name)
}

/// Validates a document against the version 2 contract: shape and reference integrity.
///
/// Never panics, whatever the JSON. A document whose `version` is not 2 gets exactly one issue,
/// at `/version`, that says to migrate it first.
pub fn validate(document: &Value) -> Validation {
    let mut v = Validator {
        issues: Vec::new(),
        path: String::new(),
        step_ids: BTreeMap::new(),
        step_order: Vec::new(),
        patterns: BTreeMap::new(),
        root: document,
        places: None,
    };
    let Some(root) = document.as_object() else {
        v.issue(format!(
            "must be an object (a flow document), found {}",
            kind_of(document)
        ));
        return v.finish(document);
    };
    if let Some(message) = version_problem(root.get("version")) {
        v.path.push_str("/version");
        v.issue(message);
        return v.finish(document);
    }
    v.document(root);
    v.finish(document)
}

/// What the `/version` issue tells the reader to do: the same words to an agent over MCP
/// (`flow_migrate`) and to a person at a terminal or in CI (`botmesh-mcp migrate`), since the
/// issue cannot know which one reads it.
const MIGRATE_FIRST: &str =
    "migrate it first (flow_migrate, or botmesh-mcp migrate FILE on the command line)";

/// Why `version` is not the current version, or `None` when it is.
fn version_problem(version: Option<&Value>) -> Option<String> {
    let Some(version) = version else {
        return Some(format!(
            "document has no version (read as version 0), the current version is {CURRENT_VERSION}: {MIGRATE_FIRST}"
        ));
    };
    match as_integer(version) {
        Some(n) if n == CURRENT_VERSION as f64 => None,
        Some(n) if n == 0.0 || n == 1.0 => Some(format!(
            "document version is {n}, the current version is {CURRENT_VERSION}: {MIGRATE_FIRST}"
        )),
        _ => Some(format!(
            "unsupported version {version}: the current version is {CURRENT_VERSION} (flow_migrate, or botmesh-mcp migrate FILE on the command line, upgrades versions 0 and 1)"
        )),
    }
}

/// The value of a JSON number with no fractional part (`2`, `2.0`, `2e0`).
fn as_integer(value: &Value) -> Option<f64> {
    let n = value.as_number()?;
    if n.is_i64() || n.is_u64() {
        return n.as_f64();
    }
    n.as_f64().filter(|f| f.fract() == 0.0)
}

fn quoted_list(items: &[&str]) -> String {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push('"');
        out.push_str(item);
        out.push('"');
    }
    out
}

fn is_scalar(value: &Value) -> bool {
    !matches!(value, Value::Array(_) | Value::Object(_))
}

struct Validator<'d> {
    issues: Vec<Issue>,
    path: String,
    /// Step id → index of its first step.
    step_ids: BTreeMap<&'d str, usize>,
    /// Step ids in document order (first occurrences), for suggestions.
    step_order: Vec<&'d str>,
    /// Regular expressions already parsed → why they are not RE2 syntax, if they are not.
    patterns: BTreeMap<&'d str, Option<String>>,
    /// The document, for fixes that change it in more than one place.
    root: &'d Value,
    /// Where the document names its variables, found on the first variable name with capitals.
    places: Option<(Vec<rename::Place>, rename::Names)>,
}

impl<'d> Validator<'d> {
    fn finish(self, document: &Value) -> Validation {
        let valid = self.issues.is_empty();
        let summary = valid.then(|| summary(document));
        Validation {
            valid,
            issues: self.issues,
            summary,
        }
    }

    fn issue(&mut self, message: String) {
        self.issues.push(Issue {
            path: self.path.clone(),
            message,
            at_key: false,
            fix: None,
        });
    }

    /// Gives the last issue a fix.
    fn with_fix(&mut self, fix: Option<Fix>) {
        if let Some(last) = self.issues.last_mut() {
            last.fix = fix;
        }
    }

    /// A fix that renames the unknown key `key` of the object at the current path to `new`,
    /// unless the object already has `new`.
    fn rename_fix(&self, object: &Map<String, Value>, key: &str, new: &str) -> Option<Fix> {
        if object.contains_key(new) {
            return None;
        }
        let mut from = self.path.clone();
        push_token(&mut from, key);
        let mut to = self.path.clone();
        push_token(&mut to, new);
        Some(Fix::safe(
            format!("rename \"{}\" to \"{new}\"", short(key)),
            rename_patch(&from, &to, object.get(key)?),
        ))
    }

    /// An issue about the key at the current path (not its value).
    fn key_issue(&mut self, message: String) {
        self.issue(message);
        if let Some(last) = self.issues.last_mut() {
            last.at_key = true;
        }
    }

    /// A [`Self::key_issue`] at `key` under the current path.
    fn key_issue_at(&mut self, token: &str, message: String) {
        let mark = self.push(token);
        self.key_issue(message);
        self.pop(mark);
    }

    fn push(&mut self, token: &str) -> usize {
        let mark = self.path.len();
        push_token(&mut self.path, token);
        mark
    }

    fn push_index(&mut self, index: usize) -> usize {
        let mark = self.path.len();
        // Writing to a String cannot fail.
        let _ = write!(self.path, "/{index}");
        mark
    }

    fn pop(&mut self, mark: usize) {
        self.path.truncate(mark);
    }

    /// Runs `check` on `object[key]`, when present, with the path pointing at it.
    fn field(
        &mut self,
        object: &'d Map<String, Value>,
        key: &str,
        check: impl FnOnce(&mut Self, &'d Value),
    ) {
        if let Some(value) = object.get(key) {
            let mark = self.push(key);
            check(self, value);
            self.pop(mark);
        }
    }

    /// Runs `check` on each element of an array, with the path pointing at it.
    fn each(&mut self, items: &'d [Value], mut check: impl FnMut(&mut Self, usize, &'d Value)) {
        for (index, item) in items.iter().enumerate() {
            let mark = self.push_index(index);
            check(self, index, item);
            self.pop(mark);
        }
    }

    /// Reports each of `keys` the object lacks; when the object has another name for it (`var`
    /// for an `ask`'s `save`, `type` for `kind`), the sentence says so.
    fn required(&mut self, object: &Map<String, Value>, keys: &[&str]) {
        for key in keys {
            if !object.contains_key(*key) {
                let other = object
                    .keys()
                    .find(|present| sure_alias(present, &[key]).is_some());
                let hint = other.map_or_else(String::new, |other| {
                    format!(" (\"{}\" is there: rename it to \"{key}\")", short(other))
                });
                self.issue(format!("missing required property \"{key}\"{hint}"));
            }
        }
    }

    /// Reports every property not in `allowed`, sorted by name.
    fn unknown(&mut self, object: &Map<String, Value>, allowed: &[&str]) {
        let mut unknown: Vec<&str> = object
            .keys()
            .map(String::as_str)
            .filter(|k| !allowed.contains(k))
            .collect();
        if unknown.is_empty() {
            return;
        }
        unknown.sort_unstable();
        for key in unknown {
            let hint = did_you_mean(closest_property(key, allowed));
            let fix = sure_property(key, allowed).and_then(|new| self.rename_fix(object, key, new));
            self.key_issue_at(key, format!("unknown property \"{}\"{hint}", short(key)));
            self.with_fix(fix);
        }
    }

    fn object(&mut self, value: &'d Value, what: &str) -> Option<&'d Map<String, Value>> {
        let object = value.as_object();
        if object.is_none() {
            self.issue(format!("must be {what}, found {}", kind_of(value)));
        }
        object
    }

    fn array(
        &mut self,
        value: &'d Value,
        min: usize,
        max: usize,
        noun: &str,
    ) -> Option<&'d [Value]> {
        match value.as_array() {
            Some(items) if (min..=max).contains(&items.len()) => Some(items),
            Some(items) => {
                self.issue(format!(
                    "{}, found {}",
                    array_rule(min, max, noun),
                    items.len()
                ));
                // Still check the elements: each problem is reported.
                Some(items)
            }
            None => {
                self.issue(format!(
                    "{}, found {}",
                    array_rule(min, max, noun),
                    kind_of(value)
                ));
                None
            }
        }
    }

    /// A string of `min..=max` characters (Unicode scalar values).
    fn text(&mut self, value: &'d Value, min: usize, max: usize) -> Option<&'d str> {
        let s = value.as_str();
        let ok = s.is_some_and(|s| {
            let len = if max == usize::MAX && min <= 1 {
                usize::from(!s.is_empty())
            } else {
                s.chars().count()
            };
            (min..=max).contains(&len)
        });
        if !ok {
            let rule = match (min, max) {
                (0, usize::MAX) => "must be a string".to_owned(),
                (1, usize::MAX) => "must be a non-empty string".to_owned(),
                _ => format!("must be a string of {min}-{max} characters"),
            };
            let found = match s {
                None => kind_of(value).to_owned(),
                Some("") => "an empty string".to_owned(),
                Some(s) => s.chars().count().to_string(),
            };
            self.issue(format!("{rule}, found {found}"));
            return None;
        }
        s
    }

    /// A value that may be of another type, but when it is a string, has at least 1 character.
    fn non_empty_if_string(&mut self, value: &'d Value) {
        if value.is_string() {
            self.text(value, 1, usize::MAX);
        }
    }

    fn name(&mut self, value: &'d Value, shape: Shape) -> Option<&'d str> {
        match value.as_str() {
            Some(s) if shape.matches(s) => Some(s),
            _ => {
                self.issue(format!("{}, found {}", shape.rule(), found_name(value)));
                None
            }
        }
    }

    /// One of `allowed`; another name for one (`greater` for `gt`) or a close spelling is
    /// suggested, and the sure ones (another name, another case) carry a fix.
    fn one_of(&mut self, value: &'d Value, allowed: &[&'static str]) -> Option<&'d str> {
        match value.as_str() {
            Some(s) if allowed.contains(&s) => Some(s),
            found => {
                let sure = found.and_then(|word| sure_value(word, allowed));
                let meant =
                    sure.or_else(|| found.and_then(|word| closest(word, allowed.iter().copied())));
                self.issue(format!(
                    "must be one of {}, found {}{}",
                    quoted_list(allowed),
                    literal(value),
                    did_you_mean(meant)
                ));
                let fix = sure.map(|new| {
                    Fix::safe(
                        format!("change {} to \"{new}\"", literal(value)),
                        replace_patch(&self.path, value, Value::from(new)),
                    )
                });
                self.with_fix(fix);
                None
            }
        }
    }

    fn boolean(&mut self, value: &Value) {
        if !value.is_boolean() {
            self.issue(format!("must be a boolean, found {}", literal(value)));
        }
    }

    fn integer(&mut self, value: &Value, min: u64, max: u64) {
        let ok = as_integer(value).is_some_and(|n| n >= min as f64 && n <= max as f64);
        if !ok {
            self.issue(format!(
                "must be an integer from {min} to {max}, found {}",
                literal(value)
            ));
        }
    }

    fn number(&mut self, value: &Value, limit: f64) {
        let ok = value
            .as_f64()
            .is_some_and(|n| (-limit..=limit).contains(&n));
        if !ok {
            self.issue(format!(
                "must be a number from -{limit} to {limit}, found {}",
                literal(value)
            ));
        }
    }

    /// A reference to a step: a step id that names a step of this document.
    fn step_ref(&mut self, value: &'d Value, key: &str) {
        let Some(id) = self.name(value, Shape::StepId) else {
            return;
        };
        if !self.step_ids.contains_key(id) {
            // Suggestions only for a document within the step limit: comparing every unknown
            // reference with every id would grow with the square of an oversized document.
            let small = self.step_order.len() <= crate::MAX_STEPS;
            let hint = if small {
                did_you_mean(closest(id, self.step_order.iter().copied()))
            } else {
                String::new()
            };
            self.issue(format!("unknown step \"{id}\" in {key}{hint}"));
            let fix = small
                .then(|| unique_closest(id, self.step_order.iter().copied()))
                .flatten()
                .map(|near| {
                    Fix::risky(
                        format!("point {key} at the nearest step id, \"{near}\" (check it is the step meant)"),
                        replace_patch(&self.path, value, Value::from(near)),
                    )
                });
            self.with_fix(fix);
        }
    }

    /// A variable written by a step: a variable name, not a built-in.
    fn variable_write(&mut self, value: &'d Value) {
        if let Some(name) = self.variable_name(value)
            && BUILT_IN_VARIABLES.contains(&name)
        {
            self.issue(format!(
                "cannot write the built-in variable \"{name}\" (it is read-only)"
            ));
        }
    }

    /// A variable name (written or read); one with capitals gets the fix that lower-cases it.
    fn variable_name(&mut self, value: &'d Value) -> Option<&'d str> {
        let name = self.name(value, Shape::Variable);
        if name.is_none()
            && let Some(text) = value.as_str()
        {
            self.lower_case_fix(text);
        }
        name
    }

    /// Gives the last issue, about the variable name `name`, the lower-cased name: as a hint,
    /// and as a fix that renames it everywhere the document names it (writes, conditions,
    /// placeholders, the declaration; [`rename`]), the way migration lower-cases the 2023
    /// dashboard's variables. When the lower-cased name is taken, the hint says by what, and
    /// there is no fix.
    fn lower_case_fix(&mut self, name: &str) {
        let root = self.root;
        let (places, names) = self.places.get_or_insert_with(|| {
            let places = rename::places(root);
            let names = rename::Names::of(&places);
            (places, names)
        });
        let (hint, fix) = match names.lowering(name) {
            None => return,
            Some(rename::Lowering::Clash(lower, clash)) => {
                let hint = match clash {
                    rename::Clash::BuiltIn => format!(
                        " (lower-cased it would be the built-in \"{lower}\", which is read-only: choose another name)"
                    ),
                    rename::Clash::Used(place) => format!(
                        " (lower-cased it would be \"{lower}\", which this document already uses at {}: rename one of them)",
                        place.pointer
                    ),
                    rename::Clash::Also(other) => format!(
                        " (lower-cased it would be \"{lower}\", as would \"{}\": rename one of them)",
                        short(&other)
                    ),
                };
                (hint, None)
            }
            Some(rename::Lowering::Rename(lower)) => {
                let renames = BTreeMap::from([(name.to_owned(), lower.clone())]);
                let patch = rename::patch(root, places, &renames);
                let named: Vec<&rename::Place> =
                    places.iter().filter(|place| place.name == name).collect();
                let mut counts = Vec::new();
                for (kind, noun) in [
                    (rename::Use::Write, "write"),
                    (rename::Use::Condition, "condition"),
                    (rename::Use::Placeholder, "placeholder"),
                    (rename::Use::Declaration, "declaration"),
                ] {
                    let n = named.iter().filter(|place| place.kind == kind).count();
                    if n > 0 {
                        counts.push(format!("{n} {noun}{}", if n == 1 { "" } else { "s" }));
                    }
                }
                let fix = Fix::safe(
                    format!(
                        "rename the variable \"{}\" to \"{lower}\" everywhere the document names it ({})",
                        short(name),
                        counts.join(", ")
                    ),
                    patch,
                );
                (did_you_mean(Some(&lower)), Some(fix))
            }
        };
        if let Some(issue) = self.issues.last_mut() {
            issue.message.push_str(&hint);
        }
        self.with_fix(fix);
    }

    /// Strings that must differ from each other (`metadata.tags`, `trigger.keywords`).
    fn unique_strings(&mut self, items: &'d [Value], noun: &str) {
        let base = self.path.clone();
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        self.each(items, |v, index, item| {
            if let Some(s) = item.as_str() {
                if let Some(first) = seen.get(s) {
                    v.issue(format!(
                        "duplicate {noun} \"{s}\" (first at {base}/{first})"
                    ));
                } else {
                    seen.insert(s, index);
                }
            }
        });
    }

    /// An RE2-syntax regular expression; each distinct pattern is parsed once per document.
    fn regex(&mut self, pattern: &'d str) {
        let problem = match self.patterns.get(pattern) {
            Some(problem) => problem.clone(),
            None => {
                let problem = re2::problem(pattern);
                self.patterns.insert(pattern, problem.clone());
                problem
            }
        };
        if let Some(reason) = problem {
            self.issue(format!(
                "must be a regular expression in RE2 syntax: {reason}"
            ));
        }
    }

    fn document(&mut self, root: &'d Map<String, Value>) {
        self.collect_step_ids(root.get("steps"));
        self.required(root, &["id", "steps"]);
        self.field(root, "$schema", |v, value| {
            v.text(value, 1, usize::MAX);
        });
        self.field(root, "id", Self::flow_id);
        self.field(root, "metadata", Self::metadata);
        self.field(root, "trigger", Self::trigger);
        self.field(root, "variables", Self::variables);
        self.field(root, "steps", |v, value| {
            if let Some(steps) = v.array(value, MIN_STEPS, MAX_STEPS, "steps") {
                v.each(steps, Self::step);
            }
        });
        self.unknown(root, &TOP_LEVEL_KEYS);
    }

    /// A flow id (the document's, a subflow's); a string that is not one gets the fix that
    /// turns it into one as migration turns a name into one (`"Support Bot"` → `support-bot`),
    /// so a document and the subflow steps that call it are fixed alike.
    fn flow_id(&mut self, value: &'d Value) {
        if self.name(value, Shape::FlowId).is_some() {
            return;
        }
        let slug = value
            .as_str()
            .map(crate::migrate::flow_id_from_name)
            .filter(|slug| is_flow_id(slug));
        if let Some(slug) = slug {
            if let Some(issue) = self.issues.last_mut() {
                issue.message.push_str(&did_you_mean(Some(&slug)));
            }
            let fix = Fix::safe(
                format!("change the flow id to \"{slug}\""),
                replace_patch(&self.path, value, Value::from(slug)),
            );
            self.with_fix(Some(fix));
        }
    }

    fn collect_step_ids(&mut self, steps: Option<&'d Value>) {
        let Some(steps) = steps.and_then(Value::as_array) else {
            return;
        };
        for (index, step) in steps.iter().enumerate() {
            if let Some(id) = step.get("id").and_then(Value::as_str)
                && Shape::StepId.matches(id)
                && !self.step_ids.contains_key(id)
            {
                self.step_ids.insert(id, index);
                self.step_order.push(id);
            }
        }
    }

    fn metadata(&mut self, value: &'d Value) {
        let Some(object) = self.object(value, "an object") else {
            return;
        };
        self.field(object, "title", |v, value| {
            v.text(value, 1, MAX_METADATA_TITLE);
        });
        self.field(object, "description", |v, value| {
            v.text(value, 1, MAX_METADATA_DESCRIPTION);
        });
        self.field(object, "locale", |v, value| {
            v.name(value, Shape::Locale);
        });
        self.field(object, "tags", |v, value| {
            if let Some(tags) = v.array(value, 0, MAX_TAGS, "tags") {
                v.each(tags, |v, _, tag| {
                    v.text(tag, 1, MAX_TAG);
                });
                v.unique_strings(tags, "tag");
            }
        });
        self.unknown(object, &METADATA);
    }

    fn trigger(&mut self, value: &'d Value) {
        let Some(object) = self.object(value, "an object") else {
            return;
        };
        self.field(object, "keywords", |v, value| {
            if let Some(keywords) = v.array(value, MIN_KEYWORDS, MAX_KEYWORDS, "keywords") {
                v.each(keywords, |v, _, keyword| {
                    v.text(keyword, 1, MAX_KEYWORD);
                });
                v.unique_strings(keywords, "keyword");
            }
        });
        self.field(object, "match", |v, value| {
            v.one_of(value, &MATCH_MODES);
        });
        self.field(object, "fallback", |v, value| v.boolean(value));
        self.unknown(object, &TRIGGER);
    }

    fn variables(&mut self, value: &'d Value) {
        let Some(object) = value.as_object() else {
            self.issue(format!(
                "must be an object of at most {MAX_VARIABLES} variables, found {}",
                kind_of(value)
            ));
            return;
        };
        if object.len() > MAX_VARIABLES {
            self.issue(format!(
                "must be an object of at most {MAX_VARIABLES} variables, found {}",
                object.len()
            ));
        }
        // Sorted by name, whatever `serde_json::Map`'s order is in this build.
        let mut declarations: Vec<(&String, &'d Value)> = object.iter().collect();
        declarations.sort_unstable_by(|a, b| a.0.cmp(b.0));
        for (name, declaration) in declarations {
            let mark = self.push(name);
            if !Shape::Variable.matches(name) {
                self.issue(format!(
                    "invalid variable name \"{}\": {}",
                    short(name),
                    Shape::Variable.rule()
                ));
                self.lower_case_fix(name);
            }
            self.variable(declaration);
            self.pop(mark);
        }
    }

    fn variable(&mut self, value: &'d Value) {
        let Some(object) = self.object(value, "an object with a \"type\"") else {
            return;
        };
        self.required(object, &["type"]);
        let mut kind = None;
        self.field(object, "type", |v, value| {
            kind = v.one_of(value, &VARIABLE_TYPES);
        });
        self.field(object, "default", |v, value| {
            let ok = match kind {
                Some("string") => value.is_string(),
                Some("number") => value.is_number(),
                Some("boolean") => value.is_boolean(),
                _ => true,
            };
            if !ok {
                v.issue(format!(
                    "must be a {} (the declared type), found {}",
                    kind.unwrap_or_default(),
                    kind_of(value)
                ));
            } else if kind == Some("string") {
                v.non_empty_if_string(value);
            }
        });
        self.field(object, "description", |v, value| {
            v.text(value, 1, MAX_VARIABLE_DESCRIPTION);
        });
        self.unknown(object, &VARIABLE);
    }

    fn step(&mut self, index: usize, value: &'d Value) {
        let Some(object) = self.object(value, "an object (a step)") else {
            return;
        };
        let known_kind = object
            .get("kind")
            .and_then(Value::as_str)
            .and_then(StepKind::parse);
        self.required(
            object,
            known_kind.map_or(&["id", "kind"][..], StepKind::required),
        );
        self.field(object, "id", |v, value| {
            if let Some(id) = v.name(value, Shape::StepId)
                && let Some(first) = v.step_ids.get(id).copied().filter(|f| *f != index)
            {
                v.issue(format!(
                    "duplicate step id \"{id}\" (first at /steps/{first})"
                ));
            }
        });
        self.field(object, "kind", |v, value| match value.as_str() {
            Some(_) if known_kind.is_some() => {}
            Some(k) => {
                let message = match kind_hint(k, StepKind::NAMES) {
                    Some(KindHint::Kind { kind, legacy: None }) => {
                        format!("unknown step kind \"{}\" (did you mean \"{kind}\"?)", short(k))
                    }
                    Some(KindHint::Kind {
                        kind,
                        legacy: Some(version),
                    }) => format!(
                        "unknown step kind \"{}\" (did you mean \"{kind}\"? \"{}\" is the version {version} name, which flow_migrate and botmesh-mcp migrate convert)",
                        short(k),
                        short(k)
                    ),
                    Some(KindHint::Menu) => format!(
                        "unknown step kind \"{}\": version 0's menu, which flow_migrate and botmesh-mcp migrate turn into \"buttons\" (up to {MAX_BUTTONS} options) or \"list\"",
                        short(k)
                    ),
                    None => format!(
                        "unknown step kind \"{}\": must be one of {}",
                        short(k),
                        quoted_list(StepKind::NAMES)
                    ),
                };
                v.issue(message);
                let fix = sure_kind(k, StepKind::NAMES).map(|kind| {
                    Fix::safe(
                        format!("change kind \"{}\" to \"{kind}\"", short(k)),
                        replace_patch(&v.path, value, Value::from(kind)),
                    )
                });
                v.with_fix(fix);
            }
            None => v.issue(format!(
                "must be one of {}, found {}",
                quoted_list(StepKind::NAMES),
                literal(value)
            )),
        });
        let Some(kind) = known_kind else {
            // Without a kind, the other properties cannot be judged against one kind: `next`
            // still can, and properties that no kind has are still unknown.
            self.field(object, "next", |v, value| v.step_ref(value, "next"));
            let mut unknown: Vec<&str> = object
                .keys()
                .map(String::as_str)
                .filter(|key| !some_kind_has(key))
                .collect();
            unknown.sort_unstable();
            for key in unknown {
                let hint = did_you_mean(closest_property(key, &["id", "kind", "next"]));
                let fix = sure_property(key, &["id", "kind", "next"])
                    .and_then(|new| self.rename_fix(object, key, new));
                self.key_issue_at(key, format!("unknown property \"{}\"{hint}", short(key)));
                self.with_fix(fix);
            }
            return;
        };
        match kind {
            StepKind::Message | StepKind::End => self.field(object, "text", |v, value| {
                v.text(value, 1, MAX_TEXT);
            }),
            StepKind::Media => self.media(object),
            StepKind::Buttons => self.buttons(object),
            StepKind::List => self.list(object),
            StepKind::Template => self.template(object),
            StepKind::Location => self.location(object),
            StepKind::Ask => self.ask(object),
            StepKind::Branch => self.branch(object),
            StepKind::Set => self.set(object),
            StepKind::Delay => self.delay(object),
            StepKind::Action => self.action(object),
            StepKind::Subflow => self.field(object, "flow", Self::flow_id),
            StepKind::Handoff => {
                self.field(object, "queue", |v, value| {
                    v.text(value, 1, MAX_QUEUE);
                });
                self.field(object, "text", |v, value| {
                    v.text(value, 1, MAX_SHORT_TEXT);
                });
            }
        }
        let fields = kind.fields();
        if fields.contains(&"next") {
            self.field(object, "next", |v, value| v.step_ref(value, "next"));
        }
        self.step_unknown(object, kind, fields);
    }

    /// Unknown properties of a step: another kind's property is "not allowed" on this kind.
    fn step_unknown(&mut self, object: &Map<String, Value>, kind: StepKind, fields: &[&str]) {
        let mut unknown: Vec<&str> = object
            .keys()
            .map(String::as_str)
            .filter(|k| !fields.contains(k))
            .collect();
        unknown.sort_unstable();
        for key in unknown {
            // Another kind's property is only another name for one of this kind's when it is
            // an alias (`var` on an `ask` is its `save`), never by spelling alone.
            let (message, meant) = if some_kind_has(key) {
                let kind = kind.as_str();
                let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
                    "an"
                } else {
                    "a"
                };
                let meant = alias(key, fields);
                // A terminal step goes nowhere after it: say why, and the fix removes `next`.
                let why = match (key, kind) {
                    ("next", "handoff") => ": the conversation leaves the bot there",
                    ("next", "end") => {
                        ": the flow ends there (inside a subflow, control returns to the caller)"
                    }
                    _ => "",
                };
                (
                    format!(
                        "\"{key}\" is not allowed on {article} {kind} step{}{why}",
                        did_you_mean(meant)
                    ),
                    meant,
                )
            } else if key == "rows" && kind == StepKind::List {
                (
                    "unknown property \"rows\" (a list's rows go in sections: \"sections\": [{ \"rows\": [...] }])".to_owned(),
                    None,
                )
            } else {
                let hint = did_you_mean(closest_property(key, fields));
                (
                    format!("unknown property \"{}\"{hint}", short(key)),
                    sure_property(key, fields),
                )
            };
            let fix = match meant {
                Some(new) => self.rename_fix(object, key, new),
                None if key == "next" && matches!(kind, StepKind::Handoff | StepKind::End) => {
                    let mut path = self.path.clone();
                    push_token(&mut path, key);
                    object.get(key).map(|value| {
                        Fix::safe(
                            format!(
                                "remove the \"next\" of this {} step, which is never taken",
                                kind.as_str()
                            ),
                            remove_patch(&path, value),
                        )
                    })
                }
                None => None,
            };
            self.key_issue_at(key, message);
            self.with_fix(fix);
        }
    }

    fn media(&mut self, object: &'d Map<String, Value>) {
        let mut media = None;
        self.field(object, "media", |v, value| {
            media = v.one_of(value, &MEDIA_KINDS);
        });
        self.field(object, "url", |v, value| {
            let ok = value.as_str().is_some_and(|url| {
                url.chars().count() <= MAX_URL
                    && url.len() > "https://".len()
                    && url.starts_with("https://")
                    && !url.chars().any(|c| c.is_whitespace() || c.is_control())
            });
            if !ok {
                let found = match value.as_str() {
                    Some(url) if url.chars().count() > MAX_URL => {
                        format!("{} characters", url.chars().count())
                    }
                    _ => literal(value),
                };
                v.issue(format!(
                    "must be an https:// URL of at most {MAX_URL} characters without spaces or control characters, found {found}"
                ));
            }
        });
        self.field(object, "caption", |v, value| {
            if let Some(m @ ("audio" | "sticker")) = media {
                v.key_issue(format!("\"caption\" is not allowed for {m} media"));
            } else {
                v.text(value, 1, MAX_CAPTION);
            }
        });
        self.field(object, "filename", |v, value| {
            if media.is_some_and(|m| m != "document") {
                v.key_issue("\"filename\" is only allowed for document media".to_owned());
            } else {
                v.text(value, 1, MAX_FILENAME);
            }
        });
    }

    fn header_footer(&mut self, object: &'d Map<String, Value>) {
        for key in ["header", "footer"] {
            self.field(object, key, |v, value| {
                v.text(value, 1, MAX_HEADER);
            });
        }
    }

    fn buttons(&mut self, object: &'d Map<String, Value>) {
        self.field(object, "text", |v, value| {
            v.text(value, 1, MAX_SHORT_TEXT);
        });
        self.field(object, "buttons", |v, value| {
            let Some(buttons) = v.array(value, 1, MAX_BUTTONS, "buttons") else {
                return;
            };
            if buttons.len() > MAX_BUTTONS
                && let Some(issue) = v.issues.last_mut()
            {
                issue.message.push_str(&format!(
                    " (for up to {MAX_LIST_ROWS} choices use a list step)"
                ));
            }
            let mut seen: BTreeMap<&str, String> = BTreeMap::new();
            let all: Vec<&str> = buttons
                .iter()
                .filter_map(|b| b.get("id").and_then(Value::as_str))
                .collect();
            v.each(buttons, |v, _, button| {
                let Some(button) = v.object(button, "an object (a button)") else {
                    return;
                };
                v.required(button, &["id", "title"]);
                v.field(button, "id", |v, value| {
                    if let Some(id) = v.text(value, 1, MAX_BUTTON_ID) {
                        v.unique_id(&mut seen, id, "button", &all);
                    }
                });
                v.field(button, "title", |v, value| v.title(value, MAX_BUTTON_TITLE));
                v.field(button, "next", |v, value| v.step_ref(value, "next"));
                v.unknown(button, &BUTTON);
            });
        });
        self.header_footer(object);
        self.field(object, "save", Self::variable_write);
    }

    /// Button and row ids are unique within their step (`all`: every id of the step, so a
    /// renamed duplicate takes a free one).
    fn unique_id(
        &mut self,
        seen: &mut BTreeMap<&'d str, String>,
        id: &'d str,
        noun: &str,
        all: &[&str],
    ) {
        if let Some(first) = seen.get(id) {
            self.issue(format!("duplicate {noun} id \"{id}\" (first at {first})"));
            let new = free_name(id, |name| all.contains(&name));
            let fix = (new.chars().count() <= MAX_ROW_ID.min(MAX_BUTTON_ID)).then(|| {
                Fix::safe(
                    format!(
                        "rename the duplicate {noun} id \"{}\" to \"{new}\"",
                        short(id)
                    ),
                    replace_patch(&self.path, &Value::from(id), Value::from(new.as_str())),
                )
            });
            self.with_fix(fix);
        } else {
            seen.insert(id, self.path.trim_end_matches("/id").to_owned());
        }
    }

    /// A title of at most `max` characters; one over the limit gets a fix that cuts it with
    /// `…`, as the migrator cuts menu titles.
    fn title(&mut self, value: &'d Value, max: usize) {
        if self.text(value, 1, max).is_some() {
            return;
        }
        if let Some(title) = value.as_str()
            && let Some((at, _)) = title.char_indices().nth(max - 1)
        {
            let cut = format!("{}…", title[..at].trim_end());
            self.with_fix(Some(Fix::safe(
                format!("cut the title to {max} characters: \"{cut}\""),
                replace_patch(&self.path, value, Value::from(cut)),
            )));
        }
    }

    fn list(&mut self, object: &'d Map<String, Value>) {
        self.field(object, "text", |v, value| {
            v.text(value, 1, MAX_TEXT);
        });
        self.field(object, "button", |v, value| {
            v.text(value, 1, MAX_LIST_BUTTON);
        });
        self.field(object, "sections", |v, value| {
            let Some(sections) = v.array(value, 1, MAX_SECTIONS, "sections") else {
                return;
            };
            let rows_in_all: usize = sections
                .iter()
                .filter_map(|s| s.get("rows").and_then(Value::as_array))
                .map(Vec::len)
                .sum();
            if rows_in_all > MAX_LIST_ROWS {
                v.issue(format!(
                    "a list has at most {MAX_LIST_ROWS} rows in all sections together, found {rows_in_all}"
                ));
            }
            let mut seen: BTreeMap<&str, String> = BTreeMap::new();
            let all: Vec<&str> = sections
                .iter()
                .filter_map(|s| s.get("rows").and_then(Value::as_array))
                .flatten()
                .filter_map(|r| r.get("id").and_then(Value::as_str))
                .collect();
            v.each(sections, |v, _, section| {
                let Some(section) = v.object(section, "an object (a section)") else {
                    return;
                };
                v.required(section, &["rows"]);
                v.field(section, "title", |v, value| v.title(value, MAX_SECTION_TITLE));
                v.field(section, "rows", |v, value| {
                    let Some(rows) = v.array(value, 1, MAX_SECTION_ROWS, "rows") else {
                        return;
                    };
                    v.each(rows, |v, _, row| v.row(row, &mut seen, &all));
                });
                v.unknown(section, &SECTION);
            });
        });
        self.header_footer(object);
        self.field(object, "save", Self::variable_write);
    }

    fn row(&mut self, row: &'d Value, seen: &mut BTreeMap<&'d str, String>, all: &[&str]) {
        let Some(row) = self.object(row, "an object (a row)") else {
            return;
        };
        self.required(row, &["id", "title"]);
        self.field(row, "id", |v, value| {
            if let Some(id) = v.text(value, 1, MAX_ROW_ID) {
                v.unique_id(seen, id, "row", all);
            }
        });
        self.field(row, "title", |v, value| v.title(value, MAX_ROW_TITLE));
        self.field(row, "description", |v, value| {
            v.text(value, 1, MAX_ROW_DESCRIPTION);
        });
        self.field(row, "next", |v, value| v.step_ref(value, "next"));
        self.unknown(row, &ROW);
    }

    fn template(&mut self, object: &'d Map<String, Value>) {
        self.field(object, "name", |v, value| {
            v.name(value, Shape::TemplateName);
        });
        self.field(object, "language", |v, value| {
            v.name(value, Shape::TemplateLanguage);
        });
        self.field(object, "parameters", |v, value| {
            if let Some(parameters) = v.array(value, 0, MAX_TEMPLATE_PARAMETERS, "parameters") {
                v.each(parameters, |v, _, parameter| {
                    v.text(parameter, 1, MAX_TEMPLATE_PARAMETER);
                });
            }
        });
    }

    fn location(&mut self, object: &'d Map<String, Value>) {
        self.field(object, "latitude", |v, value| v.number(value, MAX_LATITUDE));
        self.field(object, "longitude", |v, value| {
            v.number(value, MAX_LONGITUDE);
        });
        self.field(object, "name", |v, value| {
            v.text(value, 1, MAX_LOCATION_NAME);
        });
        self.field(object, "address", |v, value| {
            v.text(value, 1, MAX_LOCATION_ADDRESS);
        });
    }

    fn ask(&mut self, object: &'d Map<String, Value>) {
        self.field(object, "text", |v, value| {
            v.text(value, 1, MAX_TEXT);
        });
        self.field(object, "save", Self::variable_write);
        let mut input = Some("text");
        self.field(object, "input", |v, value| {
            input = v.one_of(value, &INPUT_KINDS);
        });
        self.field(object, "pattern", |v, value| {
            if input.is_some_and(|i| i != "text") {
                v.key_issue("\"pattern\" is only allowed with input \"text\"".to_owned());
            } else if let Some(pattern) = v.text(value, 1, usize::MAX) {
                v.regex(pattern);
            }
        });
        self.field(object, "retries", |v, value| {
            v.integer(value, 0, MAX_RETRIES);
        });
        self.field(object, "retryText", |v, value| {
            v.text(value, 1, MAX_SHORT_TEXT);
        });
        self.field(object, "onFail", |v, value| v.step_ref(value, "onFail"));
    }

    fn branch(&mut self, object: &'d Map<String, Value>) {
        self.field(object, "cases", |v, value| {
            let Some(cases) = v.array(value, 1, MAX_CASES, "cases") else {
                return;
            };
            v.each(cases, |v, _, case| {
                let Some(case) = v.object(case, "an object with \"when\" and \"next\"") else {
                    return;
                };
                v.required(case, &CASE);
                v.field(case, "when", |v, value| v.condition(value, 1));
                v.field(case, "next", |v, value| v.step_ref(value, "next"));
                v.unknown(case, &CASE);
            });
        });
        self.field(object, "default", |v, value| v.step_ref(value, "default"));
    }

    fn condition(&mut self, value: &'d Value, depth: usize) {
        const CONDITION: &str = "a condition: an object with \"var\" and \"op\", or with one of \"all\", \"any\", \"not\"";
        let Some(object) = self.object(value, CONDITION) else {
            return;
        };
        if depth > MAX_CONDITION_DEPTH {
            self.issue(format!(
                "conditions nest at most {MAX_CONDITION_DEPTH} levels deep"
            ));
            return;
        }
        let composite: Vec<&str> = ["all", "any", "not"]
            .into_iter()
            .filter(|k| object.contains_key(*k))
            .collect();
        match composite.as_slice() {
            [] => self.comparison(object),
            [key] => {
                if *key == "not" {
                    self.field(object, "not", |v, value| v.condition(value, depth + 1));
                } else {
                    self.field(object, key, |v, value| {
                        let Some(children) =
                            v.array(value, 1, MAX_CONDITION_CHILDREN, "conditions")
                        else {
                            return;
                        };
                        v.each(children, |v, _, child| v.condition(child, depth + 1));
                    });
                }
                self.unknown(object, &[key]);
            }
            _ => self.issue(format!(
                "must have exactly one of \"all\", \"any\", \"not\", found {}",
                quoted_list(&composite).replace(", ", " and ")
            )),
        }
    }

    fn comparison(&mut self, object: &'d Map<String, Value>) {
        let op = object.get("op").and_then(Value::as_str);
        if op.is_some_and(|op| op != "exists" && OPS.contains(&op)) {
            self.required(object, &LEAF);
        } else {
            self.required(object, &LEAF[..2]);
        }
        self.field(object, "var", |v, value| {
            v.variable_name(value);
        });
        let mut op = None;
        self.field(object, "op", |v, value| {
            op = v.one_of(value, &OPS);
        });
        self.field(object, "value", |v, value| match op {
            Some("exists") => v.key_issue("\"value\" is not allowed with op \"exists\"".to_owned()),
            Some("eq" | "ne") => {
                if is_scalar(value) {
                    v.non_empty_if_string(value);
                } else {
                    v.issue(format!(
                        "must be a string, number, boolean or null, found {}",
                        kind_of(value)
                    ));
                }
            }
            Some("lt" | "lte" | "gt" | "gte") if !value.is_number() => {
                v.issue(format!("must be a number, found {}", literal(value)));
            }
            Some("contains" | "startsWith") => {
                if value.is_string() {
                    v.non_empty_if_string(value);
                } else {
                    v.issue(format!("must be a string, found {}", literal(value)));
                }
            }
            Some("matches") => {
                if let Some(pattern) = v.text(value, 1, usize::MAX) {
                    v.regex(pattern);
                }
            }
            Some("in") => {
                let found = match value.as_array() {
                    None => Some(kind_of(value).to_owned()),
                    Some(items) if !(1..=MAX_IN_VALUES).contains(&items.len()) => {
                        Some(items.len().to_string())
                    }
                    Some(items) => items
                        .iter()
                        .find(|item| !is_scalar(item))
                        .map(|item| format!("{} among them", kind_of(item))),
                };
                if let Some(found) = found {
                    v.issue(format!(
                        "must be an array of 1-{MAX_IN_VALUES} strings, numbers, booleans or nulls, found {found}"
                    ));
                }
                // Still check the elements: each empty string is reported.
                if let Some(items) = value.as_array() {
                    v.each(items, |v, _, item| v.non_empty_if_string(item));
                }
            }
            _ => {}
        });
        self.unknown(object, &LEAF);
    }

    fn set(&mut self, object: &'d Map<String, Value>) {
        self.field(object, "var", Self::variable_write);
        self.field(object, "value", |v, value| {
            if is_scalar(value) {
                v.non_empty_if_string(value);
            } else {
                v.issue(format!(
                    "must be a string, number, boolean or null, found {}",
                    kind_of(value)
                ));
            }
        });
    }

    fn delay(&mut self, object: &'d Map<String, Value>) {
        self.field(object, "seconds", |v, value| {
            v.integer(value, MIN_DELAY_SECONDS, MAX_DELAY_SECONDS);
        });
        self.field(object, "typing", |v, value| v.boolean(value));
    }

    fn action(&mut self, object: &'d Map<String, Value>) {
        self.field(object, "handler", |v, value| {
            v.name(value, Shape::Handler);
        });
        self.field(object, "args", |v, value| {
            if v.object(value, "an object").is_some() {
                v.args_depth(value, 1);
            }
        });
        self.field(object, "save", Self::variable_write);
    }

    /// Reports the first container nested deeper than the limit (and nothing below it).
    fn args_depth(&mut self, value: &'d Value, depth: usize) -> bool {
        if depth > MAX_ARGS_DEPTH {
            self.issue(format!("args nest at most {MAX_ARGS_DEPTH} levels deep"));
            return false;
        }
        // Keys sorted, whatever `serde_json::Map`'s order is in this build.
        let children: Vec<(Option<&str>, usize, &'d Value)> = match value {
            Value::Object(map) => {
                let mut children: Vec<_> =
                    map.iter().map(|(k, v)| (Some(k.as_str()), 0, v)).collect();
                children.sort_unstable_by(|a, b| a.0.cmp(&b.0));
                children
            }
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (None, i, v))
                .collect(),
            _ => return true,
        };
        for (key, index, child) in children {
            if !matches!(child, Value::Object(_) | Value::Array(_)) {
                continue;
            }
            let mark = match key {
                Some(key) => self.push(key),
                None => self.push_index(index),
            };
            let ok = self.args_depth(child, depth + 1);
            self.pop(mark);
            if !ok {
                return false;
            }
        }
        true
    }
}

/// A name that does not fit its pattern, for "found …": the text itself, or what else it is.
fn found_name(value: &Value) -> String {
    match value {
        Value::String(s) if s.is_empty() => "an empty string".to_owned(),
        Value::String(_) => literal(value),
        _ => kind_of(value).to_owned(),
    }
}

/// Whether a step of some kind has the property `key`.
fn some_kind_has(key: &str) -> bool {
    StepKind::ALL
        .iter()
        .any(|kind| kind.fields().contains(&key))
}

fn array_rule(min: usize, max: usize, noun: &str) -> String {
    if min == 0 {
        format!("must be an array of at most {max} {noun}")
    } else {
        format!("must be an array of {min}-{max} {noun}")
    }
}

fn summary(document: &Value) -> Summary {
    let steps = document["steps"].as_array().map_or(&[][..], Vec::as_slice);
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for step in steps {
        if let Some(kind) = step["kind"].as_str() {
            match kinds.get_mut(kind) {
                Some(count) => *count += 1,
                None => {
                    kinds.insert(kind.to_owned(), 1);
                }
            }
        }
    }
    Summary {
        version: CURRENT_VERSION,
        id: document["id"].as_str().unwrap_or_default().to_owned(),
        steps: steps.len(),
        kinds,
    }
}
