//! Conversation tests (runtime spec §9): the `*.flowtest.json` model, its JSON Schema, the
//! reader that names every problem by a JSON Pointer into the test file, and the runner.
//!
//! A test file is read in two passes: [`TestFile::from_json`] checks its shape (every issue
//! with its pointer, so a caller can turn it into `FILE:LINE:COL` through
//! `botmesh_flow_schema::parse_with_positions`), then [`TestFile::check_against`] checks what
//! needs the set (a `start.flow` that is not one of its flows). [`run_case`] runs one case
//! and reports its first failure with the pointer of the failing turn (or of `expect`).

use std::collections::BTreeMap;

use botmesh_flow_schema::escape_token;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::conversation::{Conversation, OutcomeKind, Transition};
use crate::input::{MAX_REPLIES, Reply, Setup, Start, parse_handlers, parse_variables};
use crate::set::FlowSet;
use crate::text::short;
use crate::value::Scalar;

/// The `$comment` at the top of the generated schema.
const COMMENT: &str =
    "Generated from the Rust types of botmesh-flow-runtime by `cargo xtask schema`; do not edit.";

/// A test file (`*.flowtest.json`): named conversation cases run against a set of flows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "botmesh conversation tests")]
pub struct TestFile {
    /// The schema editors check the file with (ignored by the runner).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// The flow documents the cases run, as paths relative to this file: the first one is
    /// where a case starts unless its `start` says otherwise, the others are its subflows.
    /// When absent, the file `NAME.flowtest.json` tests the flow `NAME.json` beside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<Vec<String>>,
    /// The cases, run in order, each in a new conversation.
    pub tests: Vec<TestCase>,
}

/// One case: a conversation from its start, the turns, and what must hold at the end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TestCase {
    /// What the case checks, shown in every report (unique in the file).
    pub name: String,
    /// How the conversation starts (default: the first flow's first step).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<StartSpec>,
    /// Who talks to the bot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact: Option<ContactSpec>,
    /// Variables known before the conversation starts (they win over declared defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variables: Option<BTreeMap<String, Value>>,
    /// What each action handler returns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handlers: Option<BTreeMap<String, MockSpec>>,
    /// User replies and expected bot messages, in order.
    #[serde(default)]
    pub turns: Vec<TurnSpec>,
    /// What must hold after the last turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<ExpectSpec>,
}

/// `{ "flow": ID }` or `{ "message": TEXT }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum StartSpec {
    /// At the flow with this id.
    Flow {
        /// A flow id of the set.
        flow: String,
    },
    /// With a first message, which picks the flow by its trigger keywords.
    Message {
        /// The user's first message.
        message: String,
    },
}

/// `contact_name` and `contact_phone` (default `"Test User"`, `"+15550000000"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContactSpec {
    /// `contact_name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `contact_phone`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
}

/// What a handler returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum MockSpec {
    /// The same value on every call.
    Returns {
        /// A string, number, boolean or null.
        returns: Value,
    },
    /// One value per call, the last repeated.
    ReturnsEach {
        /// Strings, numbers, booleans or nulls.
        #[serde(rename = "returnsEach")]
        returns_each: Vec<Value>,
    },
    /// Every call fails (outcome `handler-failed`).
    Fails {
        /// The reason.
        fails: String,
    },
}

/// A turn: a user reply, or a check of the next bot messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum TurnSpec {
    /// The user replies.
    User {
        /// Typed text, `{ "text": … }` or `{ "tap": ID }`.
        user: ReplySpec,
    },
    /// The bot has sent a message that satisfies every key given.
    Bot {
        /// The keys the message must satisfy.
        bot: BotSpec,
    },
}

/// One reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum ReplySpec {
    /// Typed text.
    Text(String),
    /// Typed text, as an object.
    TypedText {
        /// The text.
        text: String,
    },
    /// A tap on a button or row, by its id.
    Tap {
        /// The button or row id.
        tap: String,
    },
}

/// What a bot message must satisfy (every key given).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BotSpec {
    /// The message's text is exactly this (a media's caption, a template's name, a location's
    /// name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The message's text contains this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<String>,
    /// The message's type.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<MessageType>,
    /// The id of the step that sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
}

/// The types of a bot message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MessageType {
    /// A text (`message`, an `ask`'s question or retry text, an `end` or `handoff` text).
    Text,
    /// A `buttons` menu.
    Buttons,
    /// A `list` menu.
    List,
    /// A `media` step.
    Media,
    /// A `template` step.
    Template,
    /// A `location` step.
    Location,
}

impl MessageType {
    /// The spelling in the transcript.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Buttons => "buttons",
            Self::List => "list",
            Self::Media => "media",
            Self::Template => "template",
            Self::Location => "location",
        }
    }
}

/// What must hold after the last turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectSpec {
    /// The outcome kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<OutcomeSpec>,
    /// The id of the step where the conversation stopped or waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// The values of the variables listed (others are not checked); `null` expects the
    /// variable unset or null.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variables: Option<BTreeMap<String, Value>>,
    /// Step ids that the steps executed contain in this order (others may come between).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<String>>,
}

/// An outcome kind, as the simulation spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum OutcomeSpec {
    /// The bot waits for a reply.
    Waiting,
    /// An `end` (or the end of the top flow) was reached.
    Ended,
    /// A `handoff` step handed the conversation to people.
    Handoff,
    /// A step limit was reached.
    Loop,
    /// A handler mock failed.
    HandlerFailed,
    /// The first message matched no flow and there is no fallback.
    NoFlow,
    /// A missing flow, a call too deep, a text too long.
    Error,
}

impl OutcomeSpec {
    fn kind(self) -> OutcomeKind {
        match self {
            Self::Waiting => OutcomeKind::Waiting,
            Self::Ended => OutcomeKind::Ended,
            Self::Handoff => OutcomeKind::Handoff,
            Self::Loop => OutcomeKind::Loop,
            Self::HandlerFailed => OutcomeKind::HandlerFailed,
            Self::NoFlow => OutcomeKind::NoFlow,
            Self::Error => OutcomeKind::Error,
        }
    }

    /// The spec of an outcome kind.
    pub fn of(kind: OutcomeKind) -> Self {
        match kind {
            OutcomeKind::Waiting => Self::Waiting,
            OutcomeKind::Ended => Self::Ended,
            OutcomeKind::Handoff => Self::Handoff,
            OutcomeKind::Loop => Self::Loop,
            OutcomeKind::HandlerFailed => Self::HandlerFailed,
            OutcomeKind::NoFlow => Self::NoFlow,
            OutcomeKind::Error => Self::Error,
        }
    }
}

/// A problem of a test file: where (an RFC 6901 pointer into the file) and one sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TestIssue {
    /// The JSON Pointer of the member at fault (`""`: the whole file).
    pub path: String,
    /// One sentence.
    pub message: String,
}

/// The draft 2020-12 JSON Schema of a test file, generated from [`TestFile`].
pub fn flowtest_schema() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut schema = generator.into_root_schema_for::<TestFile>().to_value();
    if let Value::Object(root) = &mut schema {
        root.insert("$comment".to_owned(), Value::String(COMMENT.to_owned()));
    }
    sorted(schema)
}

/// The exact bytes of `docs/schema/flowtest.schema.json`: sorted keys, 2-space indentation
/// and a trailing newline.
pub fn flowtest_schema_string() -> String {
    let mut text = serde_json::to_string_pretty(&flowtest_schema()).unwrap_or_default();
    text.push('\n');
    text
}

fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// What the reader collects.
struct Reader {
    issues: Vec<TestIssue>,
}

impl Reader {
    fn issue(&mut self, path: &str, message: impl Into<String>) {
        self.issues.push(TestIssue {
            path: path.to_owned(),
            message: message.into(),
        });
    }

    fn object<'v>(
        &mut self,
        value: &'v Value,
        path: &str,
        what: &str,
        keys: &[&str],
    ) -> Option<&'v Map<String, Value>> {
        let Some(object) = value.as_object() else {
            self.issue(
                path,
                format!("{what} must be an object, found {}", found(value)),
            );
            return None;
        };
        for key in object.keys() {
            if !keys.contains(&key.as_str()) {
                let accepted: Vec<String> = keys.iter().map(|k| format!("\"{k}\"")).collect();
                self.issue(
                    &format!("{path}/{}", escape_token(key)),
                    format!(
                        "{what} has an unknown key \"{key}\" (accepted: {})",
                        accepted.join(", ")
                    ),
                );
            }
        }
        Some(object)
    }

    fn string(&mut self, value: &Value, path: &str, what: &str) -> Option<String> {
        match value.as_str() {
            Some(text) => Some(text.to_owned()),
            None => {
                self.issue(
                    path,
                    format!("{what} must be a string, found {}", found(value)),
                );
                None
            }
        }
    }
}

fn found(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("the string \"{}\"", short(s, 40)),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

impl TestFile {
    /// Reads a test file's JSON, reporting every problem of its shape with its pointer.
    pub fn from_json(value: &Value) -> Result<Self, Vec<TestIssue>> {
        let mut reader = Reader { issues: Vec::new() };
        let file = read_file(&mut reader, value);
        match file {
            Some(file) if reader.issues.is_empty() => Ok(file),
            _ => Err(reader.issues),
        }
    }

    /// The problems that need the set: a `start.flow` that is not one of its flows.
    pub fn check_against(&self, set: &FlowSet<'_>) -> Vec<TestIssue> {
        let mut issues = Vec::new();
        for (index, case) in self.tests.iter().enumerate() {
            if let Some(StartSpec::Flow { flow }) = &case.start
                && set.flow_index(flow).is_none()
            {
                let known: Vec<String> = set.flow_ids().map(|id| format!("\"{id}\"")).collect();
                issues.push(TestIssue {
                    path: format!("/tests/{index}/start/flow"),
                    message: format!(
                        "start.flow \"{flow}\" is not a flow of the set (its flows: {})",
                        known.join(", ")
                    ),
                });
            }
        }
        issues
    }
}

fn read_file(reader: &mut Reader, value: &Value) -> Option<TestFile> {
    let object = reader.object(value, "", "a test file", &["$schema", "flows", "tests"])?;
    let schema = object
        .get("$schema")
        .and_then(|v| reader.string(v, "/$schema", "$schema"));
    let flows = match object.get("flows") {
        None => None,
        Some(Value::Array(items)) if !items.is_empty() => Some(
            items
                .iter()
                .enumerate()
                .filter_map(|(i, v)| reader.string(v, &format!("/flows/{i}"), "a flow path"))
                .collect(),
        ),
        Some(other) => {
            reader.issue(
                "/flows",
                format!(
                    "flows must be a non-empty array of paths relative to the test file, found {}",
                    found(other)
                ),
            );
            None
        }
    };
    let Some(tests) = object.get("tests") else {
        reader.issue("", "a test file must have \"tests\", an array of cases");
        return None;
    };
    let Some(items) = tests.as_array() else {
        reader.issue(
            "/tests",
            format!("tests must be an array of cases, found {}", found(tests)),
        );
        return None;
    };
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    let mut cases = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let path = format!("/tests/{index}");
        if let Some(case) = read_case(reader, item, &path) {
            if let Some(first) = names.insert(case.name.clone(), index) {
                reader.issue(
                    &format!("{path}/name"),
                    format!(
                        "the name \"{}\" is already the name of tests[{first}] (names are unique)",
                        case.name
                    ),
                );
            }
            cases.push(case);
        }
    }
    Some(TestFile {
        schema,
        flows,
        tests: cases,
    })
}

fn read_case(reader: &mut Reader, value: &Value, path: &str) -> Option<TestCase> {
    let keys = [
        "name",
        "start",
        "contact",
        "variables",
        "handlers",
        "turns",
        "expect",
    ];
    let object = reader.object(value, path, "a case", &keys)?;
    let before = reader.issues.len();
    let name = match object.get("name") {
        Some(v) => reader
            .string(v, &format!("{path}/name"), "name")
            .unwrap_or_default(),
        None => {
            reader.issue(path, "a case must have a \"name\"");
            String::new()
        }
    };
    let start = object.get("start").and_then(|v| {
        let at = format!("{path}/start");
        match crate::input::parse_start(v) {
            Ok(Start::Flow(flow)) => Some(StartSpec::Flow { flow }),
            Ok(Start::Message(message)) => Some(StartSpec::Message { message }),
            Ok(Start::Default) => None,
            Err(error) => {
                reader.issue(&at, error.0);
                None
            }
        }
    });
    let contact = object.get("contact").and_then(|v| {
        let at = format!("{path}/contact");
        let contact = reader.object(v, &at, "contact", &["name", "phone"])?;
        let mut read = |key: &str| {
            contact
                .get(key)
                .and_then(|v| reader.string(v, &format!("{at}/{key}"), &format!("contact.{key}")))
        };
        Some(ContactSpec {
            name: read("name"),
            phone: read("phone"),
        })
    });
    let variables = object.get("variables").and_then(|v| {
        let at = format!("{path}/variables");
        match parse_variables(v) {
            Ok(_) => v.as_object().map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect::<BTreeMap<_, _>>()
            }),
            Err(error) => {
                reader.issue(&member_of(v, &at, &error.0), error.0);
                None
            }
        }
    });
    let handlers = object.get("handlers").and_then(|v| {
        let at = format!("{path}/handlers");
        match parse_handlers(v) {
            Ok(_) => v.as_object().map(|o| {
                o.iter()
                    .filter_map(|(k, v)| {
                        serde_json::from_value::<MockSpec>(v.clone())
                            .ok()
                            .map(|m| (k.clone(), m))
                    })
                    .collect::<BTreeMap<_, _>>()
            }),
            Err(error) => {
                reader.issue(&member_of(v, &at, &error.0), error.0);
                None
            }
        }
    });
    let turns = match object.get("turns") {
        None => Vec::new(),
        Some(Value::Array(items)) => {
            let mut turns = Vec::new();
            let mut replies = 0;
            for (index, item) in items.iter().enumerate() {
                let at = format!("{path}/turns/{index}");
                if let Some(turn) = read_turn(reader, item, &at) {
                    if matches!(turn, TurnSpec::User { .. }) {
                        replies += 1;
                        if replies == MAX_REPLIES + 1 {
                            reader.issue(
                                &at,
                                format!("a case takes at most {MAX_REPLIES} user turns"),
                            );
                        }
                    }
                    turns.push(turn);
                }
            }
            turns
        }
        Some(other) => {
            reader.issue(
                &format!("{path}/turns"),
                format!("turns must be an array, found {}", found(other)),
            );
            Vec::new()
        }
    };
    let expect = object
        .get("expect")
        .and_then(|v| read_expect(reader, v, &format!("{path}/expect")));
    (reader.issues.len() == before).then_some(TestCase {
        name,
        start,
        contact,
        variables,
        handlers,
        turns,
        expect,
    })
}

/// The pointer of the member an input error names (`variables.x …`, `handlers.h …`), or the
/// object's own.
fn member_of(value: &Value, at: &str, message: &str) -> String {
    if let Some(object) = value.as_object() {
        for key in object.keys() {
            if message.contains(&format!(".{key} "))
                || message.contains(&format!(".{key}."))
                || message.contains(&format!("\"{key}\""))
            {
                return format!("{at}/{}", escape_token(key));
            }
        }
    }
    at.to_owned()
}

fn read_turn(reader: &mut Reader, value: &Value, path: &str) -> Option<TurnSpec> {
    let shape =
        "a turn must be { \"user\": REPLY } or { \"bot\": { text?, contains?, type?, step? } }";
    let Some(object) = value.as_object().filter(|o| o.len() == 1) else {
        reader.issue(path, format!("{shape}, found {}", found(value)));
        return None;
    };
    if let Some(user) = object.get("user") {
        let at = format!("{path}/user");
        return match crate::input::parse_reply(user, "user") {
            Ok(Reply::Tap(tap)) => Some(TurnSpec::User {
                user: ReplySpec::Tap { tap },
            }),
            Ok(Reply::Text(text)) if user.is_string() => Some(TurnSpec::User {
                user: ReplySpec::Text(text),
            }),
            Ok(Reply::Text(text)) => Some(TurnSpec::User {
                user: ReplySpec::TypedText { text },
            }),
            Err(error) => {
                reader.issue(&at, error.0);
                None
            }
        };
    }
    if let Some(bot) = object.get("bot") {
        let at = format!("{path}/bot");
        let check = reader.object(bot, &at, "bot", &["text", "contains", "type", "step"])?;
        if check.is_empty() {
            reader.issue(
                &at,
                "bot must have at least one of \"text\", \"contains\", \"type\", \"step\"",
            );
            return None;
        }
        let mut spec = BotSpec::default();
        for (key, v) in check {
            let key_at = format!("{at}/{}", escape_token(key));
            match key.as_str() {
                "text" => spec.text = reader.string(v, &key_at, "bot.text"),
                "contains" => spec.contains = reader.string(v, &key_at, "bot.contains"),
                "step" => spec.step = reader.string(v, &key_at, "bot.step"),
                "type" => match serde_json::from_value::<MessageType>(v.clone()) {
                    Ok(kind) => spec.kind = Some(kind),
                    Err(_) => reader.issue(
                        &key_at,
                        format!(
                            "bot.type must be one of \"text\", \"buttons\", \"list\", \"media\", \"template\", \"location\", found {}",
                            found(v)
                        ),
                    ),
                },
                _ => {}
            }
        }
        return Some(TurnSpec::Bot { bot: spec });
    }
    let key = object.keys().next().map(String::as_str).unwrap_or("");
    reader.issue(
        &format!("{path}/{}", escape_token(key)),
        format!("{shape}, found the key \"{key}\""),
    );
    None
}

fn read_expect(reader: &mut Reader, value: &Value, path: &str) -> Option<ExpectSpec> {
    let object = reader.object(
        value,
        path,
        "expect",
        &["outcome", "step", "variables", "path"],
    )?;
    let mut spec = ExpectSpec::default();
    if let Some(v) = object.get("outcome") {
        match serde_json::from_value::<OutcomeSpec>(v.clone()) {
            Ok(outcome) => spec.outcome = Some(outcome),
            Err(_) => {
                let kinds: Vec<String> = OutcomeKind::ALL
                    .iter()
                    .map(|k| format!("\"{}\"", k.as_str()))
                    .collect();
                reader.issue(
                    &format!("{path}/outcome"),
                    format!(
                        "expect.outcome must be one of {}, found {}",
                        kinds.join(", "),
                        found(v)
                    ),
                );
            }
        }
    }
    if let Some(v) = object.get("step") {
        spec.step = reader.string(v, &format!("{path}/step"), "expect.step");
    }
    if let Some(v) = object.get("variables") {
        let at = format!("{path}/variables");
        if let Some(vars) = v.as_object() {
            let mut map = BTreeMap::new();
            for (name, value) in vars {
                if Scalar::from_json(value).is_none() {
                    reader.issue(
                        &format!("{at}/{}", escape_token(name)),
                        format!(
                            "expect.variables.{name} must be a string, number, boolean or null"
                        ),
                    );
                } else {
                    map.insert(name.clone(), value.clone());
                }
            }
            spec.variables = Some(map);
        } else {
            reader.issue(
                &at,
                format!(
                    "expect.variables must be an object: variable name → value, found {}",
                    found(v)
                ),
            );
        }
    }
    if let Some(v) = object.get("path") {
        let at = format!("{path}/path");
        match v.as_array() {
            Some(items) => {
                spec.path = Some(
                    items
                        .iter()
                        .enumerate()
                        .filter_map(|(i, v)| reader.string(v, &format!("{at}/{i}"), "a step id"))
                        .collect(),
                );
            }
            None => reader.issue(
                &at,
                format!(
                    "expect.path must be an array of step ids, found {}",
                    found(v)
                ),
            ),
        }
    }
    Some(spec)
}

impl TestCase {
    /// The start of the conversation.
    pub fn start(&self) -> Start {
        match &self.start {
            None => Start::Default,
            Some(StartSpec::Flow { flow }) => Start::Flow(flow.clone()),
            Some(StartSpec::Message { message }) => Start::Message(message.clone()),
        }
    }

    /// Contact, variables and mocks (the reader has checked them).
    pub fn setup(&self) -> Setup {
        let mut setup = Setup::default();
        if let Some(contact) = &self.contact {
            if let Some(name) = &contact.name {
                name.clone_into(&mut setup.contact_name);
            }
            if let Some(phone) = &contact.phone {
                phone.clone_into(&mut setup.contact_phone);
            }
        }
        if let Some(variables) = &self.variables {
            let object: Map<String, Value> = variables
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            setup.variables = parse_variables(&Value::Object(object)).unwrap_or_default();
        }
        if let Some(handlers) = &self.handlers {
            let object: Map<String, Value> = handlers
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or(Value::Null)))
                .collect();
            setup.handlers = parse_handlers(&Value::Object(object)).unwrap_or_default();
        }
        setup
    }
}

impl ReplySpec {
    /// The runtime's reply.
    pub fn reply(&self) -> Reply {
        match self {
            Self::Text(text) | Self::TypedText { text } => Reply::Text(text.clone()),
            Self::Tap { tap } => Reply::Tap(tap.clone()),
        }
    }
}

/// The first failure of a case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    /// The JSON Pointer of the failing turn (`/tests/2/turns/4`) or expectation
    /// (`/tests/2/expect/outcome`), relative to the test file.
    pub path: String,
    /// The failing turn's index, `None` for an expectation.
    pub turn: Option<usize>,
    /// What the case expected, in words.
    pub expected: String,
    /// What happened, in words.
    pub actual: String,
    /// The conversation up to the failure, as the simulation's transcript entries.
    pub conversation: Vec<Value>,
}

/// The result of one case.
#[derive(Debug, Clone)]
pub struct CaseRun {
    /// The case's name.
    pub name: String,
    /// Its index in the file.
    pub index: usize,
    /// `None` when it passed.
    pub failure: Option<Failure>,
    /// Every edge taken (for coverage).
    pub transitions: Vec<Transition>,
    /// Every step executed (flow, step).
    pub path: Vec<(usize, usize)>,
}

/// The text a message is compared with: its `text`, a media's caption, a template's name
/// with its parameters, a location's name and address.
pub fn message_text(bot: &Value) -> String {
    if let Some(text) = bot.get("text").and_then(Value::as_str) {
        return text.to_owned();
    }
    if let Some(caption) = bot.get("caption").and_then(Value::as_str) {
        return caption.to_owned();
    }
    let mut parts: Vec<&str> = Vec::new();
    for key in ["name", "address"] {
        if let Some(text) = bot.get(key).and_then(Value::as_str) {
            parts.push(text);
        }
    }
    if let Some(parameters) = bot.get("parameters").and_then(Value::as_array) {
        parts.extend(parameters.iter().filter_map(Value::as_str));
    }
    parts.join(" ")
}

fn satisfies(spec: &BotSpec, entry: &Value) -> bool {
    let bot = &entry["bot"];
    let text = message_text(bot);
    spec.text.as_ref().is_none_or(|t| *t == text)
        && spec
            .contains
            .as_ref()
            .is_none_or(|c| text.contains(c.as_str()))
        && spec
            .kind
            .is_none_or(|k| bot.get("type").and_then(Value::as_str) == Some(k.as_str()))
        && spec
            .step
            .as_ref()
            .is_none_or(|s| entry.get("step").and_then(Value::as_str) == Some(s.as_str()))
}

fn describe_check(spec: &BotSpec) -> String {
    let mut parts = Vec::new();
    if let Some(kind) = spec.kind {
        parts.push(format!("type {}", kind.as_str()));
    }
    if let Some(step) = &spec.step {
        parts.push(format!("from step {step}"));
    }
    if let Some(text) = &spec.text {
        parts.push(format!("text {text:?}"));
    }
    if let Some(contains) = &spec.contains {
        parts.push(format!("text containing {contains:?}"));
    }
    format!("a message with {}", parts.join(", "))
}

fn describe_message(entry: &Value) -> String {
    let bot = &entry["bot"];
    format!(
        "[{}] {}: {:?}",
        entry.get("step").and_then(Value::as_str).unwrap_or(""),
        bot.get("type").and_then(Value::as_str).unwrap_or("text"),
        message_text(bot)
    )
}

fn describe_outcome(conversation: &Conversation<'_>) -> String {
    let outcome = conversation.outcome();
    let set = conversation.set();
    let mut text = outcome.kind.as_str().to_owned();
    if let Some((flow, step)) = outcome.at {
        let step = set.step_ids(flow).nth(step).unwrap_or("");
        text.push_str(&format!(" at step {step}"));
    }
    if let Some(message) = &outcome.message {
        text.push_str(&format!(" ({message})"));
    }
    text
}

/// Runs one case of a file (at `index`) against a set. The case has passed the reader and
/// [`TestFile::check_against`].
pub fn run_case(set: &FlowSet<'_>, case: &TestCase, index: usize) -> CaseRun {
    let mut conversation = Conversation::start(set, &case.start(), &case.setup());
    let failure = check_case(&mut conversation, case, index);
    CaseRun {
        name: case.name.clone(),
        index,
        failure,
        transitions: conversation.transitions().to_vec(),
        path: conversation.path().collect(),
    }
}

fn check_case(
    conversation: &mut Conversation<'_>,
    case: &TestCase,
    index: usize,
) -> Option<Failure> {
    let base = format!("/tests/{index}");
    // The transcript entry after the last one a bot turn consumed.
    let mut cursor = 0;
    for (turn_index, turn) in case.turns.iter().enumerate() {
        let path = format!("{base}/turns/{turn_index}");
        let fail = |conversation: &Conversation<'_>, expected: String, actual: String| Failure {
            path: path.clone(),
            turn: Some(turn_index),
            expected,
            actual,
            conversation: conversation.transcript_json(0),
        };
        match turn {
            TurnSpec::User { user } => {
                if !conversation.is_waiting() {
                    return Some(fail(
                        conversation,
                        "the bot to wait for a reply".to_owned(),
                        format!(
                            "the conversation stopped: {}",
                            describe_outcome(conversation)
                        ),
                    ));
                }
                conversation.reply(&user.reply());
            }
            TurnSpec::Bot { bot } => {
                let entries = conversation.transcript_json(cursor);
                let found = entries
                    .iter()
                    .position(|entry| entry.get("bot").is_some() && satisfies(bot, entry));
                match found {
                    Some(position) => cursor += position + 1,
                    None => {
                        let looked: Vec<String> = entries
                            .iter()
                            .filter(|entry| entry.get("bot").is_some())
                            .map(describe_message)
                            .collect();
                        let actual = if looked.is_empty() {
                            "no message since the last one matched".to_owned()
                        } else {
                            looked.join("; ")
                        };
                        return Some(fail(conversation, describe_check(bot), actual));
                    }
                }
            }
        }
    }
    let expect = case.expect.as_ref()?;
    let fail = |conversation: &Conversation<'_>, key: &str, expected: String, actual: String| {
        Some(Failure {
            path: format!("{base}/expect/{key}"),
            turn: None,
            expected,
            actual,
            conversation: conversation.transcript_json(0),
        })
    };
    let outcome = conversation.outcome();
    let set = conversation.set();
    if let Some(kind) = expect.outcome
        && kind.kind() != outcome.kind
    {
        return fail(
            conversation,
            "outcome",
            format!("outcome {}", kind.kind().as_str()),
            format!("outcome {}", describe_outcome(conversation)),
        );
    }
    if let Some(step) = &expect.step {
        let at = outcome
            .at
            .and_then(|(flow, index)| set.step_ids(flow).nth(index));
        if at != Some(step.as_str()) {
            return fail(
                conversation,
                "step",
                format!("to stop or wait at step {step}"),
                format!("outcome {}", describe_outcome(conversation)),
            );
        }
    }
    if let Some(variables) = &expect.variables {
        for (name, expected) in variables {
            let actual = conversation.variables().get(name);
            // `null` expects the variable unset or null: the two read the same in a flow.
            let same = match (Scalar::from_json(expected), actual) {
                (Some(Scalar::Null), None) => true,
                (expected, actual) => expected.as_ref() == actual,
            };
            if !same {
                let actual = actual.map_or("unset".to_owned(), |v| v.to_json().to_string());
                return fail(
                    conversation,
                    &format!("variables/{}", escape_token(name)),
                    format!("{name} = {expected}"),
                    format!("{name} = {actual}"),
                );
            }
        }
    }
    if let Some(path) = &expect.path {
        let executed: Vec<&str> = conversation
            .path()
            .map(|(flow, step)| set.step_ids(flow).nth(step).unwrap_or(""))
            .collect();
        let mut rest = executed.iter();
        for (position, step) in path.iter().enumerate() {
            if !rest.any(|s| s == step) {
                return fail(
                    conversation,
                    &format!("path/{position}"),
                    format!(
                        "the steps executed to contain {} in this order",
                        path.join(", ")
                    ),
                    format!("steps executed: {}", executed.join(", ")),
                );
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shop() -> Value {
        json!({ "version": 2, "id": "shop", "steps": [
            { "id": "hi", "kind": "message", "text": "Hello {{contact_name}}" },
            { "id": "menu", "kind": "buttons", "text": "Pick", "save": "pick", "buttons": [
                { "id": "a", "title": "Apples", "next": "qty" },
                { "id": "b", "title": "Bread", "next": "bread" }] },
            { "id": "qty", "kind": "ask", "text": "How many?", "save": "qty", "input": "number",
              "retries": 1, "retryText": "A number, please.", "onFail": "bread" },
            { "id": "check", "kind": "branch", "cases": [
                { "when": { "var": "qty", "op": "gt", "value": 4 }, "next": "many" }], "default": "few" },
            { "id": "many", "kind": "end", "text": "Many apples." },
            { "id": "few", "kind": "end", "text": "A few apples." },
            { "id": "bread", "kind": "end", "text": "Bread it is." }
        ]})
    }

    fn run(tests: Value) -> Vec<CaseRun> {
        let document = shop();
        let set = FlowSet::new(&[&document]).expect("valid");
        let file = TestFile::from_json(&tests).expect("well-formed");
        assert!(file.check_against(&set).is_empty());
        file.tests
            .iter()
            .enumerate()
            .map(|(i, case)| run_case(&set, case, i))
            .collect()
    }

    fn failure(run: &CaseRun) -> &Failure {
        run.failure.as_ref().expect("the case fails")
    }

    #[test]
    fn a_bot_turn_passes_on_the_first_satisfying_message_and_consumes_those_before() {
        let runs = run(json!({ "tests": [
            { "name": "skip the greeting", "turns": [{ "bot": { "type": "buttons" } }] },
            // The greeting was consumed with the menu: it cannot be matched after it.
            { "name": "order counts", "turns": [{ "bot": { "step": "menu" } }, { "bot": { "contains": "Hello" } }] },
            { "name": "all keys", "contact": { "name": "Ana" },
              "turns": [{ "bot": { "text": "Hello Ana", "type": "text", "step": "hi" } }] },
            { "name": "one key wrong", "turns": [{ "bot": { "text": "Hello Test User", "type": "buttons" } }] }
        ]}));
        assert!(runs[0].failure.is_none());
        let order = failure(&runs[1]);
        assert_eq!(order.path, "/tests/1/turns/1");
        assert_eq!(order.turn, Some(1));
        assert_eq!(order.expected, "a message with text containing \"Hello\"");
        assert_eq!(order.actual, "no message since the last one matched");
        assert!(runs[2].failure.is_none());
        let wrong = failure(&runs[3]);
        assert_eq!(
            wrong.actual,
            "[hi] text: \"Hello Test User\"; [menu] buttons: \"Pick\""
        );
        assert_eq!(wrong.conversation.len(), 2, "{:?}", wrong.conversation);
    }

    #[test]
    fn user_turns_reply_and_a_stopped_conversation_fails_the_next_one() {
        let runs = run(json!({ "tests": [
            { "name": "bread", "turns": [{ "user": { "tap": "b" } }, { "bot": { "text": "Bread it is." } }],
              "expect": { "outcome": "ended", "step": "bread", "variables": { "pick": "b" }, "path": ["menu", "bread"] } },
            { "name": "too many replies", "turns": [{ "user": "Bread" }, { "user": "more" }] }
        ]}));
        assert!(runs[0].failure.is_none(), "{:?}", runs[0].failure);
        let stopped = failure(&runs[1]);
        assert_eq!(stopped.path, "/tests/1/turns/1");
        assert_eq!(stopped.expected, "the bot to wait for a reply");
        assert_eq!(
            stopped.actual,
            "the conversation stopped: ended at step bread"
        );
    }

    #[test]
    fn expect_checks_outcome_step_listed_variables_and_path_as_a_subsequence() {
        let runs = run(json!({ "tests": [
            { "name": "outcome", "turns": [{ "user": "Apples" }], "expect": { "outcome": "ended" } },
            { "name": "step", "turns": [{ "user": "Apples" }], "expect": { "outcome": "waiting", "step": "menu" } },
            { "name": "variable", "turns": [{ "user": "Apples" }, { "user": "5" }],
              "expect": { "variables": { "qty": 4 } } },
            { "name": "unset is null", "expect": { "variables": { "qty": null } } },
            { "name": "path order", "turns": [{ "user": "Apples" }, { "user": "5" }],
              "expect": { "path": ["menu", "many", "check"] } },
            { "name": "path gaps", "turns": [{ "user": "Apples" }, { "user": "2" }],
              "expect": { "outcome": "ended", "step": "few", "variables": { "qty": 2, "pick": "a" }, "path": ["hi", "check", "few"] } }
        ]}));
        let outcome = failure(&runs[0]);
        assert_eq!(outcome.path, "/tests/0/expect/outcome");
        assert_eq!(outcome.turn, None);
        assert_eq!(outcome.expected, "outcome ended");
        assert_eq!(outcome.actual, "outcome waiting at step qty");
        assert_eq!(failure(&runs[1]).path, "/tests/1/expect/step");
        let variable = failure(&runs[2]);
        assert_eq!(variable.path, "/tests/2/expect/variables/qty");
        assert_eq!(
            (variable.expected.as_str(), variable.actual.as_str()),
            ("qty = 4", "qty = 5")
        );
        assert!(runs[3].failure.is_none());
        let path = failure(&runs[4]);
        assert_eq!(path.path, "/tests/4/expect/path/2");
        assert_eq!(path.actual, "steps executed: hi, menu, qty, check, many");
        assert!(runs[5].failure.is_none(), "{:?}", runs[5].failure);
    }

    #[test]
    fn the_reader_names_every_problem_by_its_pointer() {
        let issues = TestFile::from_json(&json!({ "tests": [
            { "name": "a", "turns": [{ "usr": "x" }, { "bot": {} }, { "bot": { "type": "video" } }, { "user": 3 }],
              "expect": { "outcome": "done", "path": "menu" }, "extra": 1 },
            { "name": "a", "variables": { "contact_name": "x" }, "handlers": { "h": { "return": 1 } } },
            { "start": { "flow": 1 } }
        ], "flow": [] })).expect_err("malformed");
        let found: Vec<(&str, &str)> = issues
            .iter()
            .map(|i| (i.path.as_str(), i.message.as_str()))
            .collect();
        let paths: Vec<&str> = found.iter().map(|f| f.0).collect();
        assert_eq!(
            paths,
            [
                "/flow",
                "/tests/0/extra",
                "/tests/0/turns/0/usr",
                "/tests/0/turns/1/bot",
                "/tests/0/turns/2/bot/type",
                "/tests/0/turns/3/user",
                "/tests/0/expect/outcome",
                "/tests/0/expect/path",
                "/tests/1/variables/contact_name",
                "/tests/1/handlers/h",
                "/tests/2",
                "/tests/2/start",
            ],
            "{found:#?}"
        );
        assert_eq!(
            found[0].1,
            "a test file has an unknown key \"flow\" (accepted: \"$schema\", \"flows\", \"tests\")"
        );
        assert!(
            found[4].1.starts_with("bot.type must be one of \"text\""),
            "{}",
            found[4].1
        );
        assert_eq!(found[10].1, "a case must have a \"name\"");
        // A duplicate name is named at the second case.
        let issues = TestFile::from_json(&json!({ "tests": [{ "name": "a" }, { "name": "a" }] }))
            .expect_err("dup");
        assert_eq!(issues[0].path, "/tests/1/name");
        assert_eq!(
            issues[0].message,
            "the name \"a\" is already the name of tests[0] (names are unique)"
        );
        // A start flow outside the set needs the set.
        let file = TestFile::from_json(
            &json!({ "tests": [{ "name": "a", "start": { "flow": "nope" } }] }),
        )
        .expect("shape");
        let document = shop();
        let set = FlowSet::new(&[&document]).expect("valid");
        assert_eq!(file.check_against(&set)[0].path, "/tests/0/start/flow");
    }

    #[test]
    fn a_file_reads_back_to_the_same_model_through_serde() {
        let text = json!({ "flows": ["shop.json"], "tests": [
            { "name": "a", "start": { "message": "hi" }, "contact": { "name": "Ana" },
              "variables": { "qty": 2 }, "handlers": { "h": { "returnsEach": [1, 2] }, "g": { "fails": "down" } },
              "turns": [{ "user": "x" }, { "user": { "text": "y" } }, { "user": { "tap": "a" } }, { "bot": { "type": "list", "step": "s" } }],
              "expect": { "outcome": "handler-failed", "step": "s", "variables": { "x": true }, "path": ["s"] } }
        ]});
        let file = TestFile::from_json(&text).expect("well-formed");
        assert_eq!(serde_json::to_value(&file).expect("serializes"), text);
        let back: TestFile = serde_json::from_value(text).expect("serde reads it too");
        assert_eq!(back, file);
    }

    #[test]
    fn the_schema_accepts_what_the_reader_accepts_in_shape() {
        let schema = flowtest_schema();
        assert_eq!(schema["title"], "botmesh conversation tests");
        assert_eq!(schema["required"], json!(["tests"]));
        assert_eq!(schema["additionalProperties"], false);
        assert!(flowtest_schema_string().ends_with("}\n"));
    }

    #[test]
    fn coverage_counts_the_steps_and_graph_edges_the_runs_took() {
        let document = shop();
        let runs = run(json!({ "tests": [
            { "name": "many", "turns": [{ "user": "Apples" }, { "user": "9" }] },
            { "name": "bread", "turns": [{ "user": "Bread" }] }
        ]}));
        let coverage = crate::coverage(
            &[&document],
            runs.iter()
                .map(|r| (r.transitions.as_slice(), r.path.as_slice())),
        );
        let flow = &coverage.flows[0];
        assert_eq!((flow.steps, flow.steps_covered), (7, 6));
        assert_eq!(flow.uncovered_steps, ["few"]);
        let labels: Vec<&str> = flow
            .uncovered_edges
            .iter()
            .map(|e| e.label.as_str())
            .collect();
        assert_eq!(
            labels,
            ["qty → retries exhausted (bread)", "check → default (few)"]
        );
        assert_eq!(flow.edges - flow.edges_covered, 2);
        assert!(!coverage.all_edges());
        assert_eq!(crate::percent(2, 3), 66.6);
        assert_eq!(crate::percent(0, 0), 100.0);
    }
}
