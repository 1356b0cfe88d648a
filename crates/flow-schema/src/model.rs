//! The version 2 model: Rust types whose `serde` shape is exactly a version 2 flow document and
//! from which the JSON Schema is generated.
//!
//! Every document that `validate` accepts deserializes into [`FlowDocument`] (integers written
//! as `2.0` included). The types are looser than the validator in a few places that JSON Schema
//! cannot express either (reference integrity, regular-expression syntax, nesting depth), so
//! always `validate` first.
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::limits::{
    FLOW_ID_PATTERN, HANDLER_PATTERN, LOCALE_PATTERN, MAX_BUTTON_ID, MAX_BUTTON_TITLE, MAX_BUTTONS,
    MAX_CAPTION, MAX_CASES, MAX_CONDITION_CHILDREN, MAX_DELAY_SECONDS, MAX_FILENAME, MAX_HEADER,
    MAX_IN_VALUES, MAX_KEYWORD, MAX_KEYWORDS, MAX_LATITUDE, MAX_LIST_BUTTON, MAX_LOCATION_ADDRESS,
    MAX_LOCATION_NAME, MAX_LONGITUDE, MAX_METADATA_DESCRIPTION, MAX_METADATA_TITLE, MAX_QUEUE,
    MAX_RETRIES, MAX_ROW_DESCRIPTION, MAX_ROW_ID, MAX_ROW_TITLE, MAX_SECTION_ROWS,
    MAX_SECTION_TITLE, MAX_SECTIONS, MAX_SHORT_TEXT, MAX_STEPS, MAX_TAG, MAX_TAGS,
    MAX_TEMPLATE_PARAMETER, MAX_TEMPLATE_PARAMETERS, MAX_TEXT, MAX_URL, MAX_VARIABLE_DESCRIPTION,
    MIN_DELAY_SECONDS, MIN_KEYWORDS, MIN_STEPS, STEP_ID_PATTERN, TEMPLATE_LANGUAGE_PATTERN,
    TEMPLATE_NAME_PATTERN, URL_PATTERN, VARIABLE_NAME_PATTERN,
};
use crate::schema::transforms;
use crate::step_shape::step_shapes;

/// A botmesh flow document, version 2: one conversation flow of a messaging bot, as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "botmesh flow document (version 2)")]
pub struct FlowDocument {
    /// Ignored by every tool; lets editors find this schema.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub schema: Option<String>,
    /// The document version: always the integer 2.
    #[serde(deserialize_with = "int::u64")]
    #[schemars(transform = transforms::version)]
    pub version: u64,
    /// The flow id: a lowercase letter, then up to 63 lowercase letters, digits, `_` or `-`.
    #[schemars(regex(pattern = FLOW_ID_PATTERN))]
    pub id: String,
    /// Title, description, locale and tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// When the bot starts this flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<Trigger>,
    /// Declared variables: name → declaration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(transform = transforms::variables)]
    pub variables: Option<BTreeMap<String, Variable>>,
    /// The steps; `steps[0]` is the entry.
    #[schemars(length(min = MIN_STEPS, max = MAX_STEPS))]
    pub steps: Vec<Step>,
}

/// Descriptive data about a flow.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Metadata {
    /// A human title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = MAX_METADATA_TITLE))]
    pub title: Option<String>,
    /// What the flow does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = MAX_METADATA_DESCRIPTION))]
    pub description: Option<String>,
    /// The language of the texts, in BCP 47 shape (`es`, `pt-BR`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = LOCALE_PATTERN))]
    pub locale: Option<String>,
    /// Unique tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = MAX_TAGS), inner(length(min = 1, max = MAX_TAG)), extend("uniqueItems" = true))]
    pub tags: Option<Vec<String>>,
}

/// When the bot starts this flow.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Trigger {
    /// Unique keywords that start the flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = MIN_KEYWORDS, max = MAX_KEYWORDS), inner(length(min = 1, max = MAX_KEYWORD)), extend("uniqueItems" = true))]
    pub keywords: Option<Vec<String>>,
    /// How a message is compared with the keywords (default `exact`).
    #[serde(rename = "match", default, skip_serializing_if = "Option::is_none")]
    pub match_mode: Option<MatchMode>,
    /// This flow answers messages that no other flow matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<bool>,
}

/// How a message is compared with a trigger's keywords.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum MatchMode {
    /// The whole message equals a keyword.
    Exact,
    /// The message contains a keyword.
    Contains,
    /// The message starts with a keyword.
    StartsWith,
}

impl MatchMode {
    /// The spelling used in documents.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::Contains => "contains",
            Self::StartsWith => "startsWith",
        }
    }
}

/// A variable declaration; the `default` has the declared type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum Variable {
    /// A string variable.
    String {
        /// The initial value (at least 1 character).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(min = 1))]
        default: Option<String>,
        /// What the variable holds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(min = 1, max = MAX_VARIABLE_DESCRIPTION))]
        description: Option<String>,
    },
    /// A number variable.
    Number {
        /// The initial value.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        default: Option<serde_json::Number>,
        /// What the variable holds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(min = 1, max = MAX_VARIABLE_DESCRIPTION))]
        description: Option<String>,
    },
    /// A boolean variable.
    Boolean {
        /// The initial value.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        default: Option<bool>,
        /// What the variable holds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(min = 1, max = MAX_VARIABLE_DESCRIPTION))]
        description: Option<String>,
    },
}

step_shapes! {
    /// One step of a flow, told apart by `kind`.
    ///
    /// `next` names the step that follows; where it is absent, control falls through to the next
    /// array element (falling off the end of `steps` ends the flow). `branch`, `handoff` and `end`
    /// have no `next`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(tag = "kind", deny_unknown_fields)]
    #[schemars(transform = transforms::step)]
    pub enum Step {
        /// Sends a text message.
        Message = "message" {
            /// The step id, unique in the document.
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            required id: String,
            /// The text; may contain `{{variable}}` placeholders.
            #[schemars(length(min = 1, max = MAX_TEXT))]
            required text: String,
            /// The step that follows.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            optional next: Option<String>,
        },
        /// Sends an image, video, audio, document or sticker.
        Media = "media" {
            /// The step id, unique in the document.
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            required id: String,
            /// What is sent.
            required media: MediaKind,
            /// Where the file is: an `https://` URL without spaces or control characters.
            #[schemars(length(max = MAX_URL), regex(pattern = URL_PATTERN))]
            required url: String,
            /// A caption (not for `audio` and `sticker`); may contain placeholders.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(min = 1, max = MAX_CAPTION))]
            optional caption: Option<String>,
            /// The file name shown (only for `document`).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(min = 1, max = MAX_FILENAME))]
            optional filename: Option<String>,
            /// The step that follows.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            optional next: Option<String>,
        },
        /// Sends up to three reply buttons and waits for a tap.
        Buttons = "buttons" {
            /// The step id, unique in the document.
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            required id: String,
            /// The text above the buttons; may contain placeholders.
            #[schemars(length(min = 1, max = MAX_SHORT_TEXT))]
            required text: String,
            /// The buttons.
            #[schemars(length(min = 1, max = MAX_BUTTONS))]
            required buttons: Vec<Button>,
            /// A header line.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(min = 1, max = MAX_HEADER))]
            optional header: Option<String>,
            /// A footer line.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(min = 1, max = MAX_HEADER))]
            optional footer: Option<String>,
            /// The variable that receives the id of the button tapped.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(regex(pattern = VARIABLE_NAME_PATTERN))]
            optional save: Option<String>,
            /// The step that follows a tap on a button without its own `next`.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            optional next: Option<String>,
        },
        /// Sends a list of rows in sections and waits for a choice (at most 10 rows in all).
        List = "list" {
            /// The step id, unique in the document.
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            required id: String,
            /// The text above the list; may contain placeholders.
            #[schemars(length(min = 1, max = MAX_TEXT))]
            required text: String,
            /// The label of the button that opens the list.
            #[schemars(length(min = 1, max = MAX_LIST_BUTTON))]
            required button: String,
            /// The sections.
            #[schemars(length(min = 1, max = MAX_SECTIONS))]
            required sections: Vec<Section>,
            /// A header line.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(min = 1, max = MAX_HEADER))]
            optional header: Option<String>,
            /// A footer line.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(min = 1, max = MAX_HEADER))]
            optional footer: Option<String>,
            /// The variable that receives the id of the row chosen.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(regex(pattern = VARIABLE_NAME_PATTERN))]
            optional save: Option<String>,
            /// The step that follows a choice of a row without its own `next`.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            optional next: Option<String>,
        },
        /// Sends a pre-approved message template.
        Template = "template" {
            /// The step id, unique in the document.
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            required id: String,
            /// The template name.
            #[schemars(regex(pattern = TEMPLATE_NAME_PATTERN))]
            required name: String,
            /// The template language (`en`, `pt_BR`).
            #[schemars(regex(pattern = TEMPLATE_LANGUAGE_PATTERN))]
            required language: String,
            /// The template's parameters, in order; each may contain placeholders.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(max = MAX_TEMPLATE_PARAMETERS), inner(length(min = 1, max = MAX_TEMPLATE_PARAMETER)))]
            optional parameters: Option<Vec<String>>,
            /// The step that follows.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            optional next: Option<String>,
        },
        /// Sends a map location.
        Location = "location" {
            /// The step id, unique in the document.
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            required id: String,
            /// Latitude in degrees, -90 to 90.
            #[schemars(range(min = -MAX_LATITUDE, max = MAX_LATITUDE))]
            required latitude: f64,
            /// Longitude in degrees, -180 to 180.
            #[schemars(range(min = -MAX_LONGITUDE, max = MAX_LONGITUDE))]
            required longitude: f64,
            /// The place's name.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(min = 1, max = MAX_LOCATION_NAME))]
            optional name: Option<String>,
            /// The place's address.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(min = 1, max = MAX_LOCATION_ADDRESS))]
            optional address: Option<String>,
            /// The step that follows.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            optional next: Option<String>,
        },
        /// Asks a question, waits for the answer and saves it in a variable.
        Ask = "ask" {
            /// The step id, unique in the document.
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            required id: String,
            /// The question; may contain placeholders.
            #[schemars(length(min = 1, max = MAX_TEXT))]
            required text: String,
            /// The variable that receives the answer.
            #[schemars(regex(pattern = VARIABLE_NAME_PATTERN))]
            required save: String,
            /// What answer is expected (default `text`).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            optional input: Option<InputKind>,
            /// A regular expression (RE2 syntax) a `text` answer must match.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(min = 1))]
            optional pattern: Option<String>,
            /// How often an invalid answer is asked again, 0 to 5 (default 2).
            #[serde(
                default,
                skip_serializing_if = "Option::is_none",
                deserialize_with = "int::option_u64"
            )]
            #[schemars(range(max = MAX_RETRIES))]
            optional retries: Option<u64>,
            /// What is said after an invalid answer.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(min = 1, max = MAX_SHORT_TEXT))]
            optional retry_text as "retryText": Option<String>,
            /// The step taken when the retries run out (default: as `next`).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            optional on_fail as "onFail": Option<String>,
            /// The step that follows a valid answer.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            optional next: Option<String>,
        },
        /// Goes to the step of the first case whose condition holds.
        Branch = "branch" {
            /// The step id, unique in the document.
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            required id: String,
            /// The cases, tried in order.
            #[schemars(length(min = 1, max = MAX_CASES))]
            required cases: Vec<Case>,
            /// The step taken when no case holds (default: the following step).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            optional default: Option<String>,
        },
        /// Sets a variable.
        Set = "set" {
            /// The step id, unique in the document.
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            required id: String,
            /// The variable written.
            #[schemars(regex(pattern = VARIABLE_NAME_PATTERN))]
            required var: String,
            /// The value: a non-empty string (may contain placeholders), a number, a boolean or null.
            required value: Scalar,
            /// The step that follows.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            optional next: Option<String>,
        },
        /// Waits before the next step.
        Delay = "delay" {
            /// The step id, unique in the document.
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            required id: String,
            /// How long, 1 to 86400 seconds.
            #[serde(deserialize_with = "int::u64")]
            #[schemars(range(min = MIN_DELAY_SECONDS, max = MAX_DELAY_SECONDS))]
            required seconds: u64,
            /// Show a typing indicator while waiting.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            optional typing: Option<bool>,
            /// The step that follows.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            optional next: Option<String>,
        },
        /// Calls a handler registered in the bot's code (the document only names it).
        Action = "action" {
            /// The step id, unique in the document.
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            required id: String,
            /// The handler's name.
            #[schemars(regex(pattern = HANDLER_PATTERN))]
            required handler: String,
            /// Arguments passed to the handler (any JSON, at most 32 levels deep).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            optional args: Option<serde_json::Map<String, serde_json::Value>>,
            /// The variable that receives the handler's result.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(regex(pattern = VARIABLE_NAME_PATTERN))]
            optional save: Option<String>,
            /// The step that follows.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            optional next: Option<String>,
        },
        /// Runs another flow, then continues with this step's successor.
        Subflow = "subflow" {
            /// The step id, unique in the document.
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            required id: String,
            /// The id of the flow called.
            #[schemars(regex(pattern = FLOW_ID_PATTERN))]
            required flow: String,
            /// The step that follows when the called flow ends.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            optional next: Option<String>,
        },
        /// Hands the conversation to a human agent; the bot leaves it.
        Handoff = "handoff" {
            /// The step id, unique in the document.
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            required id: String,
            /// The agents' queue.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(min = 1, max = MAX_QUEUE))]
            optional queue: Option<String>,
            /// A last message; may contain placeholders.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(min = 1, max = MAX_SHORT_TEXT))]
            optional text: Option<String>,
        },
        /// Ends this flow (inside a subflow: returns to the caller).
        End = "end" {
            /// The step id, unique in the document.
            #[schemars(regex(pattern = STEP_ID_PATTERN))]
            required id: String,
            /// A last message; may contain placeholders.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(min = 1, max = MAX_TEXT))]
            optional text: Option<String>,
        },
    }
}

/// What a `media` step sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MediaKind {
    /// A picture.
    Image,
    /// A video.
    Video,
    /// A sound or voice note (no caption).
    Audio,
    /// A file (the only kind with a `filename`).
    Document,
    /// A sticker (no caption).
    Sticker,
}

/// What answer an `ask` step expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InputKind {
    /// Any text (the only kind with a `pattern`).
    Text,
    /// A number.
    Number,
    /// An e-mail address.
    Email,
    /// A phone number.
    Phone,
    /// A date.
    Date,
    /// Yes or no.
    Yesno,
}

impl InputKind {
    /// The spelling used in documents.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Number => "number",
            Self::Email => "email",
            Self::Phone => "phone",
            Self::Date => "date",
            Self::Yesno => "yesno",
        }
    }
}

/// A reply button.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Button {
    /// The button id, unique in its step.
    #[schemars(length(min = 1, max = MAX_BUTTON_ID))]
    pub id: String,
    /// The label.
    #[schemars(length(min = 1, max = MAX_BUTTON_TITLE))]
    pub title: String,
    /// The step taken on a tap (default: the step's `next`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = STEP_ID_PATTERN))]
    pub next: Option<String>,
}

/// A section of a list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Section {
    /// The section title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = MAX_SECTION_TITLE))]
    pub title: Option<String>,
    /// The rows.
    #[schemars(length(min = 1, max = MAX_SECTION_ROWS))]
    pub rows: Vec<Row>,
}

/// A row of a list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// The row id, unique in its step.
    #[schemars(length(min = 1, max = MAX_ROW_ID))]
    pub id: String,
    /// The label.
    #[schemars(length(min = 1, max = MAX_ROW_TITLE))]
    pub title: String,
    /// A second line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = MAX_ROW_DESCRIPTION))]
    pub description: Option<String>,
    /// The step taken on a choice (default: the step's `next`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = STEP_ID_PATTERN))]
    pub next: Option<String>,
}

/// A case of a `branch` step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// The condition.
    pub when: Condition,
    /// The step taken when the condition holds.
    #[schemars(regex(pattern = STEP_ID_PATTERN))]
    pub next: String,
}

/// A condition: a comparison, or `all`/`any`/`not` of conditions (at most 8 levels deep).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum Condition {
    /// Every child holds.
    All {
        /// The children.
        #[schemars(length(min = 1, max = MAX_CONDITION_CHILDREN))]
        all: Vec<Condition>,
    },
    /// At least one child holds.
    Any {
        /// The children.
        #[schemars(length(min = 1, max = MAX_CONDITION_CHILDREN))]
        any: Vec<Condition>,
    },
    /// The child does not hold.
    Not {
        /// The child.
        not: Box<Condition>,
    },
    /// A comparison of a variable with a value.
    Compare(Comparison),
}

/// A comparison of a variable with a value, told apart by `op`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "camelCase", deny_unknown_fields)]
pub enum Comparison {
    /// Equal (strings, numbers and booleans; null matches an unset variable).
    Eq {
        /// The variable read.
        #[schemars(regex(pattern = VARIABLE_NAME_PATTERN))]
        var: String,
        /// The value compared with.
        value: Scalar,
    },
    /// Not equal.
    Ne {
        /// The variable read.
        #[schemars(regex(pattern = VARIABLE_NAME_PATTERN))]
        var: String,
        /// The value compared with.
        value: Scalar,
    },
    /// Less than a number.
    Lt {
        /// The variable read.
        #[schemars(regex(pattern = VARIABLE_NAME_PATTERN))]
        var: String,
        /// The number compared with.
        value: serde_json::Number,
    },
    /// Less than or equal to a number.
    Lte {
        /// The variable read.
        #[schemars(regex(pattern = VARIABLE_NAME_PATTERN))]
        var: String,
        /// The number compared with.
        value: serde_json::Number,
    },
    /// Greater than a number.
    Gt {
        /// The variable read.
        #[schemars(regex(pattern = VARIABLE_NAME_PATTERN))]
        var: String,
        /// The number compared with.
        value: serde_json::Number,
    },
    /// Greater than or equal to a number.
    Gte {
        /// The variable read.
        #[schemars(regex(pattern = VARIABLE_NAME_PATTERN))]
        var: String,
        /// The number compared with.
        value: serde_json::Number,
    },
    /// The variable's text contains a string.
    Contains {
        /// The variable read.
        #[schemars(regex(pattern = VARIABLE_NAME_PATTERN))]
        var: String,
        /// The string looked for (at least 1 character).
        #[schemars(length(min = 1))]
        value: String,
    },
    /// The variable's text starts with a string.
    StartsWith {
        /// The variable read.
        #[schemars(regex(pattern = VARIABLE_NAME_PATTERN))]
        var: String,
        /// The prefix (at least 1 character).
        #[schemars(length(min = 1))]
        value: String,
    },
    /// The variable's text matches a regular expression (RE2 syntax).
    Matches {
        /// The variable read.
        #[schemars(regex(pattern = VARIABLE_NAME_PATTERN))]
        var: String,
        /// The regular expression.
        #[schemars(length(min = 1))]
        value: String,
    },
    /// The variable is set.
    Exists {
        /// The variable read.
        #[schemars(regex(pattern = VARIABLE_NAME_PATTERN))]
        var: String,
    },
    /// The variable equals one of 1 to 50 values.
    In {
        /// The variable read.
        #[schemars(regex(pattern = VARIABLE_NAME_PATTERN))]
        var: String,
        /// The values.
        #[schemars(length(min = 1, max = MAX_IN_VALUES))]
        value: Vec<Scalar>,
    },
}

/// A JSON scalar: string (at least 1 character), number, boolean or null.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Scalar {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number.
    Number(serde_json::Number),
    /// A string of at least 1 character.
    String(#[schemars(length(min = 1))] String),
}

/// Integers written as any JSON number without a fractional part (`2`, `2.0`, `2e0`).
mod int {
    use serde::{Deserialize, Deserializer, de::Error};

    pub(super) fn u64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
        let number = serde_json::Number::deserialize(deserializer)?;
        to_u64(&number).ok_or_else(|| D::Error::custom("expected a non-negative integer"))
    }

    pub(super) fn option_u64<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<u64>, D::Error> {
        let number = Option::<serde_json::Number>::deserialize(deserializer)?;
        number
            .map(|n| to_u64(&n).ok_or_else(|| D::Error::custom("expected a non-negative integer")))
            .transpose()
    }

    fn to_u64(number: &serde_json::Number) -> Option<u64> {
        if let Some(n) = number.as_u64() {
            return Some(n);
        }
        let f = number.as_f64()?;
        (f >= 0.0 && f.fract() == 0.0 && f < 18_446_744_073_709_551_616.0).then_some(f as u64)
    }
}
