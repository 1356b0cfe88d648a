//! The simulation's input (runtime §8): start, replies, contact, initial variables and
//! handler mocks, read from JSON with one sentence per caller error.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::set::FlowSet;
use crate::value::Scalar;
use botmesh_flow_schema::{BUILT_IN_VARIABLES, is_variable_name};

/// The most replies one simulation takes.
pub const MAX_REPLIES: usize = 1_000;

/// A caller error: one sentence that names the argument.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

fn fail<T>(message: impl Into<String>) -> Result<T, InputError> {
    Err(InputError(message.into()))
}

/// How a conversation starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// At the document's own flow.
    Default,
    /// At the flow with this id.
    Flow(String),
    /// With a first message, which picks the flow by its trigger.
    Message(String),
}

/// One reply of the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// Typed text.
    Text(String),
    /// A tap on a button or row, by its id.
    Tap(String),
}

/// What a handler returns in a simulation.
#[derive(Debug, Clone, PartialEq)]
pub enum Mock {
    /// The same value on every call.
    Returns(Scalar),
    /// One value per call, the last repeated.
    ReturnsEach(Vec<Scalar>),
    /// Every call fails with this reason.
    Fails(String),
}

/// Who talks to the bot, what is known before, and what the handlers answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Setup {
    /// `contact_name` (default `"Test User"`).
    pub contact_name: String,
    /// `contact_phone` (default `"+15550000000"`).
    pub contact_phone: String,
    /// Initial values (set before the declarations' defaults).
    pub variables: BTreeMap<String, Scalar>,
    /// Handler name → mock.
    pub handlers: BTreeMap<String, Mock>,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            contact_name: "Test User".to_owned(),
            contact_phone: "+15550000000".to_owned(),
            variables: BTreeMap::new(),
            handlers: BTreeMap::new(),
        }
    }
}

/// The whole input of a simulation, read from its JSON arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulation {
    /// How it starts.
    pub start: Start,
    /// The replies, in order.
    pub replies: Vec<Reply>,
    /// Contact, variables, mocks.
    pub setup: Setup,
}

impl Simulation {
    /// Reads `start`, `replies`, `contact`, `variables` and `handlers` from the arguments
    /// (other keys are the caller's: `document`, `subflows`…). Each absent one takes its
    /// default.
    pub fn from_arguments(arguments: &Map<String, Value>) -> Result<Self, InputError> {
        let start = match arguments.get("start") {
            None => Start::Default,
            Some(value) => parse_start(value)?,
        };
        let replies = match arguments.get("replies") {
            None => Vec::new(),
            Some(value) => parse_replies(value)?,
        };
        let mut setup = Setup::default();
        if let Some(contact) = arguments.get("contact") {
            let Some(contact) = contact.as_object() else {
                return fail("contact must be an object { name?, phone? }");
            };
            for (key, value) in contact {
                let Some(text) = value.as_str() else {
                    return fail(format!("contact.{key} must be a string"));
                };
                match key.as_str() {
                    "name" => text.clone_into(&mut setup.contact_name),
                    "phone" => text.clone_into(&mut setup.contact_phone),
                    other => {
                        return fail(format!(
                            "contact has an unknown key \"{other}\" (accepted: \"name\", \"phone\")"
                        ));
                    }
                }
            }
        }
        if let Some(variables) = arguments.get("variables") {
            setup.variables = parse_variables(variables)?;
        }
        if let Some(handlers) = arguments.get("handlers") {
            setup.handlers = parse_handlers(handlers)?;
        }
        Ok(Self {
            start,
            replies,
            setup,
        })
    }

    /// The caller errors that need the set: a start flow that is not in it.
    pub fn check(&self, set: &FlowSet<'_>) -> Result<(), InputError> {
        if let Start::Flow(id) = &self.start
            && set.flow_index(id).is_none()
        {
            let known: Vec<String> = set.flow_ids().map(|id| format!("\"{id}\"")).collect();
            return fail(format!(
                "start.flow \"{id}\" is not a flow of the set (its flows: {})",
                known.join(", ")
            ));
        }
        Ok(())
    }
}

/// `{ "flow": ID }` or `{ "message": TEXT }`, exactly one.
pub fn parse_start(value: &Value) -> Result<Start, InputError> {
    let shape = "start must be { \"flow\": ID } or { \"message\": TEXT }, exactly one of them";
    let Some(object) = value.as_object() else {
        return fail(shape);
    };
    if object.len() != 1 {
        return fail(shape);
    }
    match object.iter().next() {
        Some((key, Value::String(text))) if key == "flow" => Ok(Start::Flow(text.clone())),
        Some((key, Value::String(text))) if key == "message" => Ok(Start::Message(text.clone())),
        Some((key, _)) if key == "flow" || key == "message" => {
            fail(format!("start.{key} must be a string"))
        }
        _ => fail(shape),
    }
}

/// One reply: `"text"`, `{ "text": … }` or `{ "tap": ID }`; `at` names it in errors.
pub fn parse_reply(value: &Value, at: &str) -> Result<Reply, InputError> {
    let shape = || {
        InputError(format!(
            "{at} must be a string, {{ \"text\": … }} or {{ \"tap\": ID }}"
        ))
    };
    match value {
        Value::String(text) => Ok(Reply::Text(text.clone())),
        Value::Object(object) if object.len() == 1 => match object.iter().next() {
            Some((key, Value::String(text))) if key == "text" => Ok(Reply::Text(text.clone())),
            Some((key, Value::String(id))) if key == "tap" => Ok(Reply::Tap(id.clone())),
            _ => Err(shape()),
        },
        _ => Err(shape()),
    }
}

/// The `replies` array, at most [`MAX_REPLIES`].
pub fn parse_replies(value: &Value) -> Result<Vec<Reply>, InputError> {
    let Some(items) = value.as_array() else {
        return fail("replies must be an array of replies");
    };
    if items.len() > MAX_REPLIES {
        return fail(format!(
            "replies has {} replies, more than the {MAX_REPLIES} a simulation takes",
            items.len()
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(index, item)| parse_reply(item, &format!("replies[{index}]")))
        .collect()
}

/// Initial values: variable name → scalar; never a built-in.
pub fn parse_variables(value: &Value) -> Result<BTreeMap<String, Scalar>, InputError> {
    let Some(object) = value.as_object() else {
        return fail(
            "variables must be an object: variable name → string, number, boolean or null",
        );
    };
    let mut variables = BTreeMap::new();
    for (name, value) in object {
        variables.insert(name.clone(), initial_value(name, value)?);
    }
    Ok(variables)
}

/// One initial value, checked.
pub fn initial_value(name: &str, value: &Value) -> Result<Scalar, InputError> {
    if BUILT_IN_VARIABLES.contains(&name) {
        return fail(format!(
            "variables.{name} is a built-in variable, which a simulation sets itself (use contact for contact_name and contact_phone)"
        ));
    }
    if !is_variable_name(name) {
        return fail(format!(
            "variables has \"{name}\", which is not a variable name (a lowercase letter or \"_\", then up to 63 lowercase letters, digits or \"_\")"
        ));
    }
    Scalar::from_json(value).ok_or_else(|| {
        InputError(format!(
            "variables.{name} must be a string, number, boolean or null"
        ))
    })
}

/// Handler mocks: name → `{ "returns": SCALAR }`, `{ "returnsEach": [SCALAR, …] }` or
/// `{ "fails": "reason" }`.
pub fn parse_handlers(value: &Value) -> Result<BTreeMap<String, Mock>, InputError> {
    let Some(object) = value.as_object() else {
        return fail("handlers must be an object: handler name → mock");
    };
    object
        .iter()
        .map(|(name, mock)| Ok((name.clone(), parse_mock(name, mock)?)))
        .collect()
}

/// One mock; `name` is its handler.
pub fn parse_mock(name: &str, value: &Value) -> Result<Mock, InputError> {
    let shape = || {
        InputError(format!(
            "handlers.{name} must be {{ \"returns\": VALUE }}, {{ \"returnsEach\": [VALUE, …] }} or {{ \"fails\": \"reason\" }}, exactly one of them"
        ))
    };
    let object = value
        .as_object()
        .filter(|o| o.len() == 1)
        .ok_or_else(shape)?;
    match object.iter().next() {
        Some((key, value)) if key == "returns" => {
            Scalar::from_json(value).map(Mock::Returns).ok_or_else(|| {
                InputError(format!(
                    "handlers.{name}.returns must be a string, number, boolean or null"
                ))
            })
        }
        Some((key, value)) if key == "returnsEach" => {
            let values = value
                .as_array()
                .filter(|a| !a.is_empty())
                .and_then(|a| a.iter().map(Scalar::from_json).collect::<Option<Vec<_>>>());
            values.map(Mock::ReturnsEach).ok_or_else(|| {
                InputError(format!(
                    "handlers.{name}.returnsEach must be a non-empty array of strings, numbers, booleans or nulls"
                ))
            })
        }
        Some((key, value)) if key == "fails" => match value.as_str() {
            Some(reason) => Ok(Mock::Fails(reason.to_owned())),
            None => fail(format!(
                "handlers.{name}.fails must be a string (the reason)"
            )),
        },
        _ => Err(shape()),
    }
}
