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
    /// The default of every case's `strict` (a case's own `strict` wins): `true` makes each
    /// case say "and nothing else was sent".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
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
    /// `true`: each `bot` turn must be satisfied by the next message not yet consumed, and
    /// the case fails if a message is left unconsumed when the turns end ("and nothing else
    /// was sent"). Default: the file's `strict`, else `false` (a `bot` turn passes on the
    /// first satisfying message and skips those before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
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
    /// Steps that the steps executed contain in this order (others may come between): a step
    /// id (of any flow) or `"flow/step"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<String>>,
    /// Steps that must not have run: a step id of the start flow (the flow the conversation
    /// started in) or `"flow/step"`.
    #[serde(rename = "notPath", default, skip_serializing_if = "Option::is_none")]
    pub not_path: Option<Vec<String>>,
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
    // The reader refuses `null` where a key may only be left out (`"strict": null` is an
    // error, not "unset"), and the schema says the same, as the flow schema does.
    botmesh_flow_schema::strip_null_from_optional_properties(&mut schema);
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

/// The bytes of [`flowtest_schema_string`], embedded at build time from the crate's
/// `flowtest.schema.json` (written with `docs/schema/flowtest.schema.json` by `cargo xtask
/// schema`; a test fails when it differs from the generated schema), so a server can serve
/// the schema without generating it.
pub const FLOWTEST_SCHEMA_JSON: &str = include_str!("../flowtest.schema.json");

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

    fn boolean(&mut self, value: &Value, path: &str, what: &str) -> Option<bool> {
        let flag = value.as_bool();
        if flag.is_none() {
            self.issue(
                path,
                format!("{what} must be true or false, found {}", found(value)),
            );
        }
        flag
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

    /// The problems that need the set: a `start.flow` that is not one of its flows, an
    /// `expect.notPath` entry that names no step of the set (it would pass whatever runs).
    pub fn check_against(&self, set: &FlowSet<'_>) -> Vec<TestIssue> {
        let mut issues = Vec::new();
        for (index, case) in self.tests.iter().enumerate() {
            // The flow a bare `notPath` step id belongs to (`None`: chosen by the trigger).
            let mut start_flow = Some(0);
            if let Some(StartSpec::Flow { flow }) = &case.start {
                start_flow = set.flow_index(flow);
                if start_flow.is_none() {
                    let known: Vec<String> = set.flow_ids().map(|id| format!("\"{id}\"")).collect();
                    issues.push(TestIssue {
                        path: format!("/tests/{index}/start/flow"),
                        message: format!(
                            "start.flow \"{flow}\" is not a flow of the set (its flows: {})",
                            known.join(", ")
                        ),
                    });
                    continue;
                }
            } else if let Some(StartSpec::Message { .. }) = &case.start {
                start_flow = None;
            }
            let not_path = case.expect.as_ref().and_then(|e| e.not_path.as_ref());
            for (position, entry) in not_path.into_iter().flatten().enumerate() {
                if let Some(message) = unknown_step(set, entry, start_flow) {
                    issues.push(TestIssue {
                        path: format!("/tests/{index}/expect/notPath/{position}"),
                        message,
                    });
                }
            }
        }
        issues
    }
}

/// Why a `notPath` entry names no step of the set (`None` when it names one): a bare id
/// must be a step of `start_flow` (of some flow when the start message picks it).
fn unknown_step(set: &FlowSet<'_>, entry: &str, start_flow: Option<usize>) -> Option<String> {
    let wanted = StepRef::parse(entry)?;
    match wanted.flow {
        Some(flow) => {
            let Some(index) = set.flow_index(flow) else {
                let known: Vec<String> = set.flow_ids().map(|id| format!("\"{id}\"")).collect();
                return Some(format!(
                    "notPath entry \"{entry}\": \"{flow}\" is not a flow of the set (its flows: {})",
                    known.join(", ")
                ));
            };
            (!set.step_ids(index).any(|s| s == wanted.step)).then(|| {
                format!(
                    "notPath entry \"{entry}\": flow \"{flow}\" has no step \"{}\"",
                    wanted.step
                )
            })
        }
        None => match start_flow {
            Some(index) => (!set.step_ids(index).any(|s| s == wanted.step)).then(|| {
                let flow = set.flow_ids().nth(index).unwrap_or("");
                format!(
                    "notPath entry \"{entry}\": the start flow \"{flow}\" has no step \"{entry}\" (write \"flow/step\" for a step of another flow)"
                )
            }),
            None => {
                let flows = set.flow_ids().count();
                (!(0..flows).any(|f| set.step_ids(f).any(|s| s == wanted.step))).then(|| {
                    format!("notPath entry \"{entry}\": no flow of the set has a step \"{entry}\"")
                })
            }
        },
    }
}

fn read_file(reader: &mut Reader, value: &Value) -> Option<TestFile> {
    let object = reader.object(
        value,
        "",
        "a test file",
        &["$schema", "flows", "strict", "tests"],
    )?;
    let schema = object
        .get("$schema")
        .and_then(|v| reader.string(v, "/$schema", "$schema"));
    let strict = object
        .get("strict")
        .and_then(|v| reader.boolean(v, "/strict", "strict"));
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
        strict,
        tests: cases,
    })
}

fn read_case(reader: &mut Reader, value: &Value, path: &str) -> Option<TestCase> {
    let keys = [
        "name",
        "strict",
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
    let strict = object
        .get("strict")
        .and_then(|v| reader.boolean(v, &format!("{path}/strict"), "strict"));
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
        strict,
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
        &["outcome", "step", "variables", "path", "notPath"],
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
        spec.path = read_steps(reader, v, &format!("{path}/path"), "expect.path");
    }
    if let Some(v) = object.get("notPath") {
        spec.not_path = read_steps(reader, v, &format!("{path}/notPath"), "expect.notPath");
    }
    Some(spec)
}

/// `expect.path` or `expect.notPath`: an array of step ids or `"flow/step"`.
fn read_steps(reader: &mut Reader, value: &Value, at: &str, what: &str) -> Option<Vec<String>> {
    let Some(items) = value.as_array() else {
        reader.issue(
            at,
            format!(
                "{what} must be an array of step ids (or \"flow/step\"), found {}",
                found(value)
            ),
        );
        return None;
    };
    let mut steps = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let item_at = format!("{at}/{i}");
        let Some(step) = reader.string(item, &item_at, "a step") else {
            continue;
        };
        if StepRef::parse(&step).is_none() {
            reader.issue(
                &item_at,
                format!("\"{}\" is not a step id or \"flow/step\"", short(&step, 40)),
            );
            continue;
        }
        steps.push(step);
    }
    Some(steps)
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

/// A step of a set, by ids: where a failure points in the flows, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FlowStep {
    /// The flow id.
    pub flow: String,
    /// The step id.
    pub step: String,
    /// Why the failure points here.
    pub reason: AtReason,
}

/// Why a failure points at a flow step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AtReason {
    /// The step sent the first message the case did not expect (a strict case).
    UnexpectedMessage,
    /// The step ran, and `expect.notPath` names it.
    NotPath,
    /// The conversation stopped or waits at the step.
    Stopped,
}

impl AtReason {
    /// The reason as a clause about the step: `sent the first message the case did not
    /// expect`, `ran although expect.notPath names it`, `is where the conversation stopped or
    /// waits`.
    pub fn describe(self) -> &'static str {
        match self {
            Self::UnexpectedMessage => "sent the first message the case did not expect",
            Self::NotPath => "ran although expect.notPath names it",
            Self::Stopped => "is where the conversation stopped or waits",
        }
    }
}

/// An entry of `expect.path` or `expect.notPath`: a step id, or `"flow/step"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StepRef<'a> {
    /// The flow, when the entry names one.
    flow: Option<&'a str>,
    /// The step id.
    step: &'a str,
}

impl<'a> StepRef<'a> {
    /// Reads an entry: `step` or `flow/step` (each part non-empty, at most one `/`).
    pub(crate) fn parse(entry: &'a str) -> Option<Self> {
        match entry.split_once('/') {
            None if !entry.is_empty() => Some(Self {
                flow: None,
                step: entry,
            }),
            Some((flow, step)) if !flow.is_empty() && !step.is_empty() && !step.contains('/') => {
                Some(Self {
                    flow: Some(flow),
                    step,
                })
            }
            _ => None,
        }
    }

    /// True when it names step `step` of flow `flow` (set indices); a bare step id names
    /// that step in flow `default_flow` only, or in any flow when `default_flow` is `None`.
    fn names(&self, set: &FlowSet<'_>, at: (usize, usize), default_flow: Option<usize>) -> bool {
        let (flow, step) = at;
        if set.step_ids(flow).nth(step) != Some(self.step) {
            return false;
        }
        match self.flow {
            Some(id) => set.flow_ids().nth(flow) == Some(id),
            None => default_flow.is_none_or(|d| d == flow),
        }
    }
}

/// The first failure of a case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    /// The JSON Pointer of the failing turn (`/tests/2/turns/4`), expectation
    /// (`/tests/2/expect/outcome`) or, for a message a strict case did not expect after its
    /// turns, of its last turn (the case without turns), relative to the test file.
    pub path: String,
    /// The failing turn's index, `None` for an expectation or a message left over.
    pub turn: Option<usize>,
    /// What failed, as reports name it: `turn 2`, `turn 2 (strict)`, `strict, after the
    /// last turn`, `expect.outcome`, `expect.variables.qty`, `expect.notPath.0`.
    pub check: String,
    /// What the case expected, in words.
    pub expected: String,
    /// What happened, in words.
    pub actual: String,
    /// The flow step to look at: the step that sent the first message the case did not
    /// expect (a strict case), the step that ran although `notPath` names it, else where the
    /// conversation stopped or waits (`None` when no flow started).
    pub at: Option<FlowStep>,
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

/// A `bot` turn in words: `a message from step cancel with text "Bye now"`, `a buttons
/// message containing "size"`.
fn describe_check(spec: &BotSpec) -> String {
    let mut text = match spec.kind {
        Some(kind) => format!("a {} message", kind.as_str()),
        None => "a message".to_owned(),
    };
    if let Some(step) = &spec.step {
        text.push_str(&format!(" from step {step}"));
    }
    if let Some(expected) = &spec.text {
        text.push_str(&format!(" with text {expected:?}"));
    }
    if let Some(contains) = &spec.contains {
        text.push_str(&format!(" containing {contains:?}"));
    }
    text
}

/// A message sent, with the flow and step that sent it: `[shop/menu] buttons: "What now?"`.
fn describe_message(entry: &Value) -> String {
    let bot = &entry["bot"];
    format!(
        "[{}/{}] {}: {:?}",
        entry.get("flow").and_then(Value::as_str).unwrap_or(""),
        entry.get("step").and_then(Value::as_str).unwrap_or(""),
        bot.get("type").and_then(Value::as_str).unwrap_or("text"),
        message_text(bot)
    )
}

/// The flow and step that sent a transcript entry the case did not expect.
fn sent_by(entry: &Value) -> Option<FlowStep> {
    Some(FlowStep {
        flow: entry.get("flow")?.as_str()?.to_owned(),
        step: entry.get("step")?.as_str()?.to_owned(),
        reason: AtReason::UnexpectedMessage,
    })
}

fn flow_step(
    set: &FlowSet<'_>,
    (flow, step): (usize, usize),
    reason: AtReason,
) -> Option<FlowStep> {
    Some(FlowStep {
        flow: set.flow_ids().nth(flow)?.to_owned(),
        step: set.step_ids(flow).nth(step)?.to_owned(),
        reason,
    })
}

/// Where the conversation stopped or waits.
fn stopped_at(conversation: &Conversation<'_>) -> Option<FlowStep> {
    flow_step(
        conversation.set(),
        conversation.outcome().at?,
        AtReason::Stopped,
    )
}

/// `ended at shop/bye (…)`.
fn describe_outcome(conversation: &Conversation<'_>) -> String {
    let outcome = conversation.outcome();
    let mut text = outcome.kind.as_str().to_owned();
    if let Some(at) = stopped_at(conversation) {
        text.push_str(&format!(" at {}/{}", at.flow, at.step));
    }
    if let Some(message) = &outcome.message {
        text.push_str(&format!(" ({message})"));
    }
    text
}

impl TestFile {
    /// Whether a case is strict: its own `strict`, else the file's, else `false`.
    pub fn is_strict(&self, case: &TestCase) -> bool {
        case.strict.or(self.strict).unwrap_or(false)
    }

    /// Runs every case against a set (which passed [`TestFile::check_against`]), in order,
    /// each with its strictness.
    pub fn run(&self, set: &FlowSet<'_>) -> Vec<CaseRun> {
        self.tests
            .iter()
            .enumerate()
            .map(|(index, case)| run_case_as(set, case, index, self.is_strict(case)))
            .collect()
    }
}

/// Runs one case of a file (at `index`) against a set, strict when the case says so (a
/// file's default is applied by [`TestFile::run`]). The case has passed the reader and
/// [`TestFile::check_against`].
pub fn run_case(set: &FlowSet<'_>, case: &TestCase, index: usize) -> CaseRun {
    run_case_as(set, case, index, case.strict.unwrap_or(false))
}

fn run_case_as(set: &FlowSet<'_>, case: &TestCase, index: usize, strict: bool) -> CaseRun {
    let mut conversation = Conversation::start(set, &case.start(), &case.setup());
    let failure = check_case(&mut conversation, case, index, strict);
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
    strict: bool,
) -> Option<Failure> {
    let base = format!("/tests/{index}");
    let fail = |conversation: &Conversation<'_>,
                path: String,
                turn: Option<usize>,
                check: String,
                (expected, actual): (String, String),
                at: Option<FlowStep>| {
        Some(Failure {
            path,
            turn,
            check,
            expected,
            actual,
            at,
            conversation: conversation.transcript_json(0),
        })
    };
    let strictly = if strict { " (strict)" } else { "" };
    // The transcript so far, as JSON, extended after each reply (so a long conversation is
    // converted once, not once per turn).
    let mut seen = conversation.transcript_json(0);
    // The transcript entry after the last one a bot turn consumed.
    let mut cursor = 0;
    for (turn_index, turn) in case.turns.iter().enumerate() {
        let path = format!("{base}/turns/{turn_index}");
        let check = format!("turn {turn_index}{strictly}");
        match turn {
            TurnSpec::User { user } => {
                if !conversation.is_waiting() {
                    let actual = format!(
                        "the conversation stopped: {}",
                        describe_outcome(conversation)
                    );
                    let expected = "the bot to wait for a reply".to_owned();
                    let at = stopped_at(conversation);
                    return fail(
                        conversation,
                        path,
                        Some(turn_index),
                        check,
                        (expected, actual),
                        at,
                    );
                }
                conversation.reply(&user.reply());
                seen.extend(conversation.transcript_json(seen.len()));
            }
            TurnSpec::Bot { bot } => {
                let entries = &seen[cursor..];
                let mut messages = entries
                    .iter()
                    .enumerate()
                    .filter(|(_, entry)| entry.get("bot").is_some());
                let found = if strict {
                    // Only the next message may satisfy a strict turn.
                    messages.next().filter(|(_, entry)| satisfies(bot, entry))
                } else {
                    messages.find(|(_, entry)| satisfies(bot, entry))
                };
                if let Some((position, _)) = found {
                    cursor += position + 1;
                    continue;
                }
                let looked: Vec<&Value> = entries
                    .iter()
                    .filter(|entry| entry.get("bot").is_some())
                    .take(if strict { 1 } else { usize::MAX })
                    .collect();
                let actual = if looked.is_empty() {
                    if cursor == 0 {
                        "no message since the start".to_owned()
                    } else {
                        "no message since the last one a turn matched".to_owned()
                    }
                } else {
                    let listed: Vec<String> = looked.iter().map(|e| describe_message(e)).collect();
                    listed.join("; ")
                };
                // A strict turn names the message it did not expect; a loose one, where the
                // bot went instead.
                let at = match looked.first() {
                    Some(entry) if strict => sent_by(entry),
                    _ => stopped_at(conversation),
                };
                let expected = describe_check(bot);
                return fail(
                    conversation,
                    path,
                    Some(turn_index),
                    check,
                    (expected, actual),
                    at,
                );
            }
        }
    }
    if strict {
        let left: Vec<&Value> = seen[cursor..]
            .iter()
            .filter(|entry| entry.get("bot").is_some())
            .collect();
        if let Some(first) = left.first() {
            let path = match case.turns.len() {
                0 => base.clone(),
                n => format!("{base}/turns/{}", n - 1),
            };
            let listed: Vec<String> = left.iter().map(|e| describe_message(e)).collect();
            let actual = format!("the bot also sent {}", listed.join("; "));
            let at = sent_by(first);
            return fail(
                conversation,
                path,
                None,
                "strict, after the last turn".to_owned(),
                ("no more messages".to_owned(), actual),
                at,
            );
        }
    }
    let expect = case.expect.as_ref()?;
    let outcome = conversation.outcome();
    let set = conversation.set();
    let expectation = |key: &str| {
        (
            format!("{base}/expect/{key}"),
            format!("expect.{}", key.replace('/', ".")),
        )
    };
    if let Some(kind) = expect.outcome
        && kind.kind() != outcome.kind
    {
        let (path, check) = expectation("outcome");
        let words = (
            format!("outcome {}", kind.kind().as_str()),
            format!("outcome {}", describe_outcome(conversation)),
        );
        return fail(
            conversation,
            path,
            None,
            check,
            words,
            stopped_at(conversation),
        );
    }
    if let Some(step) = &expect.step {
        let at = outcome
            .at
            .and_then(|(flow, index)| set.step_ids(flow).nth(index));
        if at != Some(step.as_str()) {
            let (path, check) = expectation("step");
            let words = (
                format!("to stop or wait at step {step}"),
                format!("outcome {}", describe_outcome(conversation)),
            );
            return fail(
                conversation,
                path,
                None,
                check,
                words,
                stopped_at(conversation),
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
                let (path, check) = expectation(&format!("variables/{}", escape_token(name)));
                let words = (format!("{name} = {expected}"), format!("{name} = {actual}"));
                return fail(
                    conversation,
                    path,
                    None,
                    check,
                    words,
                    stopped_at(conversation),
                );
            }
        }
    }
    let executed: Vec<(usize, usize)> = conversation.path().collect();
    let executed_ids = || {
        let ids: Vec<&str> = executed
            .iter()
            .map(|&(flow, step)| set.step_ids(flow).nth(step).unwrap_or(""))
            .collect();
        format!("steps executed: {}", ids.join(", "))
    };
    if let Some(path) = &expect.path {
        let mut rest = executed.iter();
        for (position, entry) in path.iter().enumerate() {
            let Some(wanted) = StepRef::parse(entry) else {
                continue;
            };
            if !rest.any(|&at| wanted.names(set, at, None)) {
                let (pointer, check) = expectation(&format!("path/{position}"));
                let words = (
                    format!(
                        "the steps executed to contain {} in this order",
                        path.join(", ")
                    ),
                    executed_ids(),
                );
                return fail(
                    conversation,
                    pointer,
                    None,
                    check,
                    words,
                    stopped_at(conversation),
                );
            }
        }
    }
    if let Some(not_path) = &expect.not_path {
        // A bare step id names a step of the flow the conversation started in.
        let start_flow = executed.first().map(|&(flow, _)| flow);
        for (position, entry) in not_path.iter().enumerate() {
            let Some(unwanted) = StepRef::parse(entry) else {
                continue;
            };
            let Some(start_flow) = start_flow else {
                break;
            };
            if let Some(&ran) = executed
                .iter()
                .find(|&&at| unwanted.names(set, at, Some(start_flow)))
            {
                let (pointer, check) = expectation(&format!("notPath/{position}"));
                let words = (format!("step {entry} not to run"), executed_ids());
                return fail(
                    conversation,
                    pointer,
                    None,
                    check,
                    words,
                    flow_step(set, ran, AtReason::NotPath),
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
        assert_eq!(order.expected, "a message containing \"Hello\"");
        assert_eq!(order.actual, "no message since the last one a turn matched");
        assert!(runs[2].failure.is_none());
        let wrong = failure(&runs[3]);
        assert_eq!(
            wrong.actual,
            "[shop/hi] text: \"Hello Test User\"; [shop/menu] buttons: \"Pick\""
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
            "the conversation stopped: ended at shop/bread"
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
        assert_eq!(outcome.actual, "outcome waiting at shop/qty");
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
            "a test file has an unknown key \"flow\" (accepted: \"$schema\", \"flows\", \"strict\", \"tests\")"
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
        let text = json!({ "flows": ["shop.json"], "strict": true, "tests": [
            { "name": "a", "strict": false, "start": { "message": "hi" }, "contact": { "name": "Ana" },
              "variables": { "qty": 2 }, "handlers": { "h": { "returnsEach": [1, 2] }, "g": { "fails": "down" } },
              "turns": [{ "user": "x" }, { "user": { "text": "y" } }, { "user": { "tap": "a" } }, { "bot": { "type": "list", "step": "s" } }],
              "expect": { "outcome": "handler-failed", "step": "s", "variables": { "x": true }, "path": ["s"], "notPath": ["f/t"] } }
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
        assert!(
            FLOWTEST_SCHEMA_JSON == flowtest_schema_string(),
            "crates/flow-runtime/flowtest.schema.json is stale: run `cargo xtask schema`"
        );
        let strict = &schema["properties"]["strict"];
        assert_eq!(strict["type"], "boolean", "{strict}");
        let not_path = &schema["$defs"]["ExpectSpec"]["properties"]["notPath"];
        assert_eq!(not_path["type"], "array", "{not_path}");
        // The reader refuses `null` for a key that may only be left out; so does the schema.
        assert!(!flowtest_schema_string().contains("\"null\""));
        let start = &schema["$defs"]["TestCase"]["properties"]["start"];
        assert_eq!(start["$ref"], "#/$defs/StartSpec", "{start}");
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

    /// The bill flow of issue 37: `cancel` says "Bye now" and ends; the regression drops its
    /// `next`, so it falls through into the invoice's thanks, sent with an unset invoice.
    fn billing(regressed: bool) -> Value {
        let cancel = if regressed {
            json!({ "id": "cancel", "kind": "message", "text": "Bye now" })
        } else {
            json!({ "id": "cancel", "kind": "message", "text": "Bye now", "next": "done" })
        };
        json!({ "version": 2, "id": "billing", "steps": [
            { "id": "menu", "kind": "buttons", "text": "Send an invoice or cancel?", "buttons": [
                { "id": "invoice", "title": "Invoice", "next": "invoice" },
                { "id": "cancel", "title": "Cancel", "next": "cancel" }] },
            { "id": "invoice", "kind": "ask", "text": "Which invoice?", "save": "invoice", "next": "thanks" },
            cancel,
            { "id": "thanks", "kind": "message", "text": "Thanks! We got invoice {{invoice}}." },
            { "id": "done", "kind": "end" }
        ]})
    }

    fn billing_runs(regressed: bool) -> Vec<CaseRun> {
        let document = billing(regressed);
        let set = FlowSet::new(&[&document]).expect("valid");
        let file = TestFile::from_json(&json!({ "tests": [
            { "name": "loose", "turns": [
                { "user": { "tap": "cancel" } },
                { "bot": { "step": "cancel", "text": "Bye now" } }],
              "expect": { "outcome": "ended" } },
            { "name": "strict", "strict": true, "turns": [
                { "bot": { "type": "buttons" } },
                { "user": { "tap": "cancel" } },
                { "bot": { "step": "cancel", "text": "Bye now" } }],
              "expect": { "outcome": "ended" } },
            { "name": "notPath", "turns": [
                { "user": { "tap": "cancel" } },
                { "bot": { "step": "cancel", "text": "Bye now" } }],
              "expect": { "outcome": "ended", "notPath": ["invoice", "billing/thanks"] } }
        ]}))
        .expect("well-formed");
        assert!(file.check_against(&set).is_empty());
        file.run(&set)
    }

    #[test]
    fn a_strict_case_and_not_path_catch_a_fall_through_that_a_loose_case_misses() {
        for run in billing_runs(false) {
            assert!(run.failure.is_none(), "{}: {:?}", run.name, run.failure);
        }
        let runs = billing_runs(true);
        assert!(runs[0].failure.is_none(), "the loose case misses it");
        let strict = failure(&runs[1]);
        assert_eq!(strict.check, "strict, after the last turn");
        assert_eq!(strict.path, "/tests/1/turns/2");
        assert_eq!(strict.turn, None);
        assert_eq!(strict.expected, "no more messages");
        assert_eq!(
            strict.actual,
            "the bot also sent [billing/thanks] text: \"Thanks! We got invoice .\""
        );
        let thanks = |reason| {
            Some(FlowStep {
                flow: "billing".into(),
                step: "thanks".into(),
                reason,
            })
        };
        assert_eq!(strict.at, thanks(AtReason::UnexpectedMessage));
        let not_path = failure(&runs[2]);
        assert_eq!(not_path.check, "expect.notPath.1");
        assert_eq!(not_path.path, "/tests/2/expect/notPath/1");
        assert_eq!(not_path.expected, "step billing/thanks not to run");
        assert_eq!(
            not_path.actual,
            "steps executed: menu, cancel, thanks, done"
        );
        assert_eq!(not_path.at, thanks(AtReason::NotPath));
    }

    #[test]
    fn a_strict_turn_takes_only_the_next_message_and_the_file_sets_the_default() {
        let document = shop();
        let set = FlowSet::new(&[&document]).expect("valid");
        let file = TestFile::from_json(&json!({ "strict": true, "tests": [
            // The greeting comes first: a strict case cannot skip it.
            { "name": "skips the greeting", "turns": [{ "bot": { "type": "buttons" } }] },
            { "name": "loose by its own say", "strict": false, "turns": [{ "bot": { "type": "buttons" } }] },
            { "name": "every message", "turns": [
                { "bot": { "contains": "Hello" } }, { "bot": { "step": "menu" } },
                { "user": "Bread" }, { "bot": { "text": "Bread it is." } }] },
            // A message left unchecked before a reply is still the next one to check.
            { "name": "unchecked before a reply", "turns": [
                { "bot": { "step": "hi" } }, { "user": "Bread" }, { "bot": { "step": "bread" } }] },
            { "name": "nothing checked at all", "turns": [{ "user": "Bread" }] }
        ]}))
        .expect("well-formed");
        assert!(file.is_strict(&file.tests[0]) && !file.is_strict(&file.tests[1]));
        let runs = file.run(&set);
        let skipped = failure(&runs[0]);
        assert_eq!(
            (skipped.check.as_str(), skipped.path.as_str()),
            ("turn 0 (strict)", "/tests/0/turns/0")
        );
        assert_eq!(skipped.expected, "a buttons message");
        assert_eq!(skipped.actual, "[shop/hi] text: \"Hello Test User\"");
        assert_eq!(skipped.at.as_ref().map(|a| a.step.as_str()), Some("hi"));
        assert!(runs[1].failure.is_none(), "{:?}", runs[1].failure);
        assert!(runs[2].failure.is_none(), "{:?}", runs[2].failure);
        let unchecked = failure(&runs[3]);
        assert_eq!(unchecked.check, "turn 2 (strict)");
        assert_eq!(unchecked.actual, "[shop/menu] buttons: \"Pick\"");
        let nothing = failure(&runs[4]);
        assert_eq!(nothing.path, "/tests/4/turns/0");
        assert_eq!(
            nothing.actual,
            "the bot also sent [shop/hi] text: \"Hello Test User\"; [shop/menu] buttons: \"Pick\"; [shop/bread] text: \"Bread it is.\""
        );
        // `run_case` alone knows no file: the case's own `strict` only.
        assert!(run_case(&set, &file.tests[0], 0).failure.is_none());
    }

    #[test]
    fn strict_and_not_path_are_read_with_pointers_and_checked_against_the_set() {
        let issues = TestFile::from_json(&json!({ "strict": "yes", "tests": [
            { "name": "a", "strict": 1, "expect": { "notPath": "menu" } },
            { "name": "b", "expect": { "notPath": ["menu", 3, "a/b/c", "/x", ""] } }
        ]}))
        .expect_err("malformed");
        let found: Vec<(&str, &str)> = issues
            .iter()
            .map(|i| (i.path.as_str(), i.message.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "/strict",
                    "strict must be true or false, found the string \"yes\""
                ),
                ("/tests/0/strict", "strict must be true or false, found 1"),
                (
                    "/tests/0/expect/notPath",
                    "expect.notPath must be an array of step ids (or \"flow/step\"), found the string \"menu\""
                ),
                (
                    "/tests/1/expect/notPath/1",
                    "a step must be a string, found 3"
                ),
                (
                    "/tests/1/expect/notPath/2",
                    "\"a/b/c\" is not a step id or \"flow/step\""
                ),
                (
                    "/tests/1/expect/notPath/3",
                    "\"/x\" is not a step id or \"flow/step\""
                ),
                (
                    "/tests/1/expect/notPath/4",
                    "\"\" is not a step id or \"flow/step\""
                ),
            ]
        );
        let shop = shop();
        let pay =
            json!({ "version": 2, "id": "pay", "steps": [{ "id": "amount", "kind": "end" }] });
        let set = FlowSet::new(&[&shop, &pay]).expect("valid");
        let file = TestFile::from_json(&json!({ "tests": [
            { "name": "fine", "expect": { "notPath": ["few", "pay/amount", "shop/bread"] } },
            { "name": "a subflow's step needs its flow", "expect": { "notPath": ["amount"] } },
            { "name": "typo", "expect": { "notPath": ["shop/breed", "shopp/bread"] } },
            { "name": "by message", "start": { "message": "hi" }, "expect": { "notPath": ["amount", "nowhere"] } },
            { "name": "in pay", "start": { "flow": "pay" }, "expect": { "notPath": ["amount", "few"] } }
        ]}))
        .expect("well-formed");
        let found: Vec<(String, String)> = file
            .check_against(&set)
            .into_iter()
            .map(|i| (i.path, i.message))
            .collect();
        let expected: Vec<(String, String)> = [
            (
                "/tests/1/expect/notPath/0",
                "notPath entry \"amount\": the start flow \"shop\" has no step \"amount\" (write \"flow/step\" for a step of another flow)",
            ),
            (
                "/tests/2/expect/notPath/0",
                "notPath entry \"shop/breed\": flow \"shop\" has no step \"breed\"",
            ),
            (
                "/tests/2/expect/notPath/1",
                "notPath entry \"shopp/bread\": \"shopp\" is not a flow of the set (its flows: \"shop\", \"pay\")",
            ),
            (
                "/tests/3/expect/notPath/1",
                "notPath entry \"nowhere\": no flow of the set has a step \"nowhere\"",
            ),
            (
                "/tests/4/expect/notPath/1",
                "notPath entry \"few\": the start flow \"pay\" has no step \"few\" (write \"flow/step\" for a step of another flow)",
            ),
        ]
        .into_iter()
        .map(|(p, m)| (p.to_owned(), m.to_owned()))
        .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn a_bare_not_path_id_names_the_start_flow_only_and_path_takes_flow_step() {
        let shop = json!({ "version": 2, "id": "shop", "steps": [
            { "id": "go", "kind": "subflow", "flow": "pay" },
            { "id": "done", "kind": "end" }] });
        let pay = json!({ "version": 2, "id": "pay", "steps": [{ "id": "done", "kind": "message", "text": "Paid" }] });
        let set = FlowSet::new(&[&shop, &pay]).expect("valid");
        let file = TestFile::from_json(&json!({ "tests": [
            // pay/done runs, shop/done too: "done" names shop's.
            { "name": "bare", "expect": { "notPath": ["done"] } },
            { "name": "qualified", "expect": { "notPath": ["pay/done"] } },
            { "name": "path", "expect": { "path": ["pay/done", "shop/done"] } },
            { "name": "path order", "expect": { "path": ["shop/done", "pay/done"] } }
        ]}))
        .expect("well-formed");
        let runs = file.run(&set);
        assert_eq!(
            failure(&runs[0]).at.as_ref().map(|a| a.flow.as_str()),
            Some("shop")
        );
        assert_eq!(
            failure(&runs[1]).at.as_ref().map(|a| a.flow.as_str()),
            Some("pay")
        );
        assert!(runs[2].failure.is_none(), "{:?}", runs[2].failure);
        assert_eq!(failure(&runs[3]).path, "/tests/3/expect/path/1");
    }

    /// Every kind of failure, as the reports print it: what failed, expected, actual, and the
    /// flow step it points at.
    #[test]
    fn failure_sentences() {
        let runs = run(json!({ "tests": [
            { "name": "loose turn", "turns": [{ "user": "Apples" }, { "bot": { "step": "many", "text": "Bye now" } }] },
            { "name": "nothing since", "turns": [{ "bot": { "step": "menu" } }, { "bot": { "type": "list" } }] },
            { "name": "stopped", "turns": [{ "user": "Bread" }, { "user": "more" }] },
            { "name": "strict turn", "strict": true, "turns": [{ "bot": { "type": "buttons", "contains": "Pick" } }] },
            { "name": "strict left over", "strict": true, "turns": [
                { "bot": { "step": "hi" } }, { "bot": { "step": "menu" } }, { "user": "Bread" }] },
            { "name": "outcome", "turns": [{ "user": "Apples" }], "expect": { "outcome": "ended" } },
            { "name": "step", "turns": [{ "user": "Bread" }], "expect": { "step": "few" } },
            { "name": "variable", "turns": [{ "user": "Bread" }], "expect": { "variables": { "pick": "a" } } },
            { "name": "path", "turns": [{ "user": "Bread" }], "expect": { "path": ["menu", "qty"] } },
            { "name": "notPath", "turns": [{ "user": "Bread" }], "expect": { "notPath": ["bread"] } }
        ]}));
        let mut out = String::new();
        for run in &runs {
            let f = failure(run);
            let at = f.at.as_ref().map_or("-".to_owned(), |a| {
                format!("{}/{} {}", a.flow, a.step, a.reason.describe())
            });
            out.push_str(&format!(
                "{}: {} at {}\n  expected: {}\n  actual:   {}\n  flow step: {at}\n",
                run.name, f.check, f.path, f.expected, f.actual
            ));
        }
        expect_test::expect![[r#"
            loose turn: turn 1 at /tests/0/turns/1
              expected: a message from step many with text "Bye now"
              actual:   [shop/hi] text: "Hello Test User"; [shop/menu] buttons: "Pick"; [shop/qty] text: "How many?"
              flow step: shop/qty is where the conversation stopped or waits
            nothing since: turn 1 at /tests/1/turns/1
              expected: a list message
              actual:   no message since the last one a turn matched
              flow step: shop/menu is where the conversation stopped or waits
            stopped: turn 1 at /tests/2/turns/1
              expected: the bot to wait for a reply
              actual:   the conversation stopped: ended at shop/bread
              flow step: shop/bread is where the conversation stopped or waits
            strict turn: turn 0 (strict) at /tests/3/turns/0
              expected: a buttons message containing "Pick"
              actual:   [shop/hi] text: "Hello Test User"
              flow step: shop/hi sent the first message the case did not expect
            strict left over: strict, after the last turn at /tests/4/turns/2
              expected: no more messages
              actual:   the bot also sent [shop/bread] text: "Bread it is."
              flow step: shop/bread sent the first message the case did not expect
            outcome: expect.outcome at /tests/5/expect/outcome
              expected: outcome ended
              actual:   outcome waiting at shop/qty
              flow step: shop/qty is where the conversation stopped or waits
            step: expect.step at /tests/6/expect/step
              expected: to stop or wait at step few
              actual:   outcome ended at shop/bread
              flow step: shop/bread is where the conversation stopped or waits
            variable: expect.variables.pick at /tests/7/expect/variables/pick
              expected: pick = "a"
              actual:   pick = "b"
              flow step: shop/bread is where the conversation stopped or waits
            path: expect.path.1 at /tests/8/expect/path/1
              expected: the steps executed to contain menu, qty in this order
              actual:   steps executed: hi, menu, bread
              flow step: shop/bread is where the conversation stopped or waits
            notPath: expect.notPath.0 at /tests/9/expect/notPath/0
              expected: step bread not to run
              actual:   steps executed: hi, menu, bread
              flow step: shop/bread ran although expect.notPath names it
        "#]]
        .assert_eq(&out);
    }

    /// JSON shaped like test files: the keys and words of the format, and others, at random.
    fn test_file_like() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        const KEYS: [&str; 28] = [
            "tests",
            "strict",
            "flows",
            "name",
            "turns",
            "user",
            "bot",
            "text",
            "contains",
            "type",
            "step",
            "expect",
            "outcome",
            "variables",
            "path",
            "notPath",
            "start",
            "flow",
            "message",
            "contact",
            "handlers",
            "returns",
            "returnsEach",
            "fails",
            "tap",
            "$schema",
            "phone",
            "x",
        ];
        const WORDS: [&str; 10] = [
            "menu",
            "shop/menu",
            "a/b/c",
            "",
            "text",
            "ended",
            "buttons",
            "h.a",
            "contact_name",
            "1",
        ];
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-3i64..4).prop_map(Value::from),
            (0..WORDS.len()).prop_map(|i| Value::from(WORDS[i])),
        ];
        let tree = leaf.prop_recursive(5, 64, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec((0..KEYS.len(), inner), 0..5).prop_map(|members| {
                    Value::Object(
                        members
                            .into_iter()
                            .map(|(k, v)| (KEYS[k].to_owned(), v))
                            .collect(),
                    )
                }),
            ]
        });
        // Mostly a file with a `tests` array, so the reader goes deep.
        (
            proptest::collection::vec(tree.clone(), 0..4),
            tree,
            any::<bool>(),
        )
            .prop_map(|(cases, other, wrap)| {
                if wrap {
                    json!({ "tests": cases, "strict": other })
                } else {
                    other
                }
            })
    }

    /// A case written from a conversation's own transcript: its replies, and a `bot` turn
    /// (step and text) for every message sent, in order.
    fn transcript_case(set: &FlowSet<'_>, replies: &[Reply]) -> Value {
        let mut conversation = Conversation::start(set, &Start::Default, &Setup::default());
        for reply in replies {
            conversation.reply(reply);
        }
        let turns: Vec<Value> = conversation
            .transcript_json(0)
            .into_iter()
            .filter_map(|entry| {
                if let Some(user) = entry.get("user") {
                    return Some(json!({ "user": user }));
                }
                let bot = entry.get("bot")?;
                Some(json!({ "bot": { "step": entry["step"], "text": message_text(bot) } }))
            })
            .collect();
        json!({ "name": "transcript", "turns": turns })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, failure_persistence: None, rng_seed: proptest::test_runner::RngSeed::Fixed(37), ..proptest::prelude::ProptestConfig::default() })]

        /// On generated flow sets and replies: a strict case that checks every message of the
        /// conversation in order passes; without any one of its `bot` turns it fails (a strict
        /// case leaves no message unchecked), while the same case loose still passes.
        #[test]
        fn a_strict_case_passes_exactly_when_it_checks_every_message(
            documents in crate::tests::flow_set(),
            picks in proptest::collection::vec(0usize..6, 0..5),
            drop in proptest::prelude::any::<proptest::sample::Index>(),
        ) {
            let refs: Vec<&Value> = documents.iter().collect();
            let Ok(set) = FlowSet::new(&refs) else {
                return Err(proptest::test_runner::TestCaseError::reject("invalid"));
            };
            let words = ["1", "yes", "hello", "", "ana@example.com", "b0"];
            let replies: Vec<Reply> = picks.iter().map(|&i| Reply::Text(words[i].to_owned())).collect();
            let case = transcript_case(&set, &replies);
            let strict = TestFile::from_json(&json!({ "strict": true, "tests": [case] }))
                .map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{e:?}")))?;
            let run = &strict.run(&set)[0];
            proptest::prop_assert!(run.failure.is_none(), "{:?}", run.failure);
            let turns = strict.tests[0].turns.clone();
            let bots: Vec<usize> = turns
                .iter()
                .enumerate()
                .filter(|(_, t)| matches!(t, TurnSpec::Bot { .. }))
                .map(|(i, _)| i)
                .collect();
            if bots.is_empty() {
                return Ok(());
            }
            let mut fewer = strict.clone();
            fewer.tests[0].turns.remove(bots[drop.index(bots.len())]);
            let run = &fewer.run(&set)[0];
            proptest::prop_assert!(run.failure.is_some(), "dropping a turn still passes: {:?}", fewer.tests[0].turns);
            proptest::prop_assert!(run.failure.as_ref().is_some_and(|f| f.at.is_some()));
            fewer.strict = None;
            let run = &fewer.run(&set)[0];
            proptest::prop_assert!(run.failure.is_none(), "loose: {:?}", run.failure);
        }

        /// Whatever JSON it is given, the reader never panics, and what it accepts reads back
        /// through serde to the same model.
        #[test]
        fn the_reader_accepts_only_what_serde_reads_back(value in test_file_like()) {
            if let Ok(file) = TestFile::from_json(&value) {
                let back: TestFile = serde_json::from_value(serde_json::to_value(&file).expect("serializes"))
                    .expect("serde reads what the reader accepted");
                proptest::prop_assert_eq!(back, file);
            }
        }
    }
}
