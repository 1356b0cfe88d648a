//! From a line of text to the answer line: parsing, classification, batches.

use crate::framer::Frame;
use crate::message::{ErrorObject, Id, Message, Notification, Request, Response, codes};
use serde_json::Value;

/// What one incoming JSON value is.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A request or notification to act on.
    Message(Message),
    /// A response sent by the peer: ignored, never answered.
    PeerResponse,
    /// A malformed notification (no `id`, but a `method` key): dropped, never answered, since
    /// a notification gets no reply even when it is malformed.
    MalformedNotification,
    /// Not a valid message: answer with this error response.
    Invalid(Response),
}

fn invalid(id: Option<Id>, why: &str) -> Incoming {
    Incoming::Invalid(invalid_request(id, why))
}

/// The `-32600` answer, saying why.
fn invalid_request(id: Option<Id>, why: &str) -> Response {
    Response::error(
        id,
        ErrorObject::new(codes::INVALID_REQUEST, format!("invalid request: {why}")),
    )
}

/// Why a JSON value that is neither an object nor an array is no message.
const NOT_AN_OBJECT: &str = "a message must be a JSON object";

/// Classifies one JSON value (an element of a batch, or a whole message).
pub fn classify(value: Value) -> Incoming {
    let Value::Object(mut object) = value else {
        return invalid(None, NOT_AN_OBJECT);
    };
    let id_value = object.remove("id");
    let id = id_value.as_ref().and_then(Id::from_value);
    let Some(method) = object.remove("method") else {
        if object.contains_key("result") || object.contains_key("error") {
            return Incoming::PeerResponse;
        }
        return invalid(id, "a message must have a \"method\"");
    };
    let reject = |why: &str| {
        if id_value.is_none() {
            tracing::debug!(why, "malformed notification dropped");
            Incoming::MalformedNotification
        } else {
            invalid(id.clone(), why)
        }
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return reject("\"jsonrpc\" must be \"2.0\"");
    }
    let Value::String(method) = method else {
        return reject("\"method\" must be a string");
    };
    let params = object.remove("params");
    if params
        .as_ref()
        .is_some_and(|params| !params.is_object() && !params.is_array())
    {
        return reject("\"params\" must be an object");
    }
    match (id_value, id) {
        (None, _) => Incoming::Message(Message::Notification(Notification { method, params })),
        (Some(_), Some(id)) => Incoming::Message(Message::Request(Request { id, method, params })),
        (Some(_), None) => invalid(None, "\"id\" must be a string or an integer"),
    }
}

/// The most messages one batch may hold: answers are collected before the batch answer is
/// written, so this bounds the memory one line can cost (with the line length limit).
pub const MAX_BATCH_LENGTH: usize = 100;

/// The answer to one line: nothing, one response, or a batch of responses.
enum Answer {
    Single(Response),
    Batch(Vec<Response>),
}

fn answer_one(
    value: Value,
    handle: &mut dyn FnMut(Message) -> Option<Response>,
) -> Option<Response> {
    match classify(value) {
        Incoming::Message(message @ Message::Request(_)) => handle(message),
        Incoming::Message(message @ Message::Notification(_)) => {
            // Notifications are never answered, whatever the handler returns.
            let _ = handle(message);
            None
        }
        Incoming::PeerResponse | Incoming::MalformedNotification => None,
        Incoming::Invalid(response) => Some(response),
    }
}

fn answer(value: Value, handle: &mut dyn FnMut(Message) -> Option<Response>) -> Option<Answer> {
    match value {
        Value::Array(items) if items.is_empty() => Some(Answer::Single(Response::error(
            None,
            ErrorObject::new(codes::INVALID_REQUEST, "invalid request: empty batch"),
        ))),
        Value::Array(items) if items.len() > MAX_BATCH_LENGTH => {
            Some(Answer::Single(Response::error(
                None,
                ErrorObject::new(
                    codes::INVALID_REQUEST,
                    format!(
                        "invalid request: a batch of {} messages is longer than the limit of {MAX_BATCH_LENGTH}",
                        items.len()
                    ),
                ),
            )))
        }
        Value::Array(items) => {
            let responses: Vec<Response> = items
                .into_iter()
                .filter_map(|item| answer_one(item, handle))
                .collect();
            (!responses.is_empty()).then_some(Answer::Batch(responses))
        }
        value => answer_one(value, handle).map(Answer::Single),
    }
}

fn parse_error(detail: &str) -> Response {
    Response::error(
        None,
        ErrorObject::new(codes::PARSE_ERROR, format!("parse error: {detail}")),
    )
}

/// Why bytes that are not UTF-8 are no message.
const NOT_UTF8: &str = "the message is not valid UTF-8";

/// The answer to a message longer than `limit`, counted in `unit` (`characters` for a line,
/// `bytes` for a transport that bounds what it reads in bytes): `-32600`, `id: null`.
pub fn too_long(limit: usize, unit: &str) -> Response {
    invalid_request(None, &format!("message longer than {limit} {unit}"))
}

/// Parses the bytes of one whole message (a transport's request body) as a line is parsed:
/// an object or a batch array, or else the answer a line of the same bytes gets, in the same
/// words (`-32700` for bytes that are not UTF-8 or not JSON, `-32600` for other JSON). A
/// leading byte-order mark is skipped, as on a line.
pub fn parse_message(bytes: &[u8]) -> Result<Value, Response> {
    let bytes = bytes.strip_prefix(crate::framer::BOM).unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|_| parse_error(NOT_UTF8))?;
    let value: Value = serde_json::from_str(text).map_err(|e| parse_error(&e.to_string()))?;
    if value.is_object() || value.is_array() {
        Ok(value)
    } else {
        Err(invalid_request(None, NOT_AN_OBJECT))
    }
}

/// Handles one parsed message or batch; returns the answer as JSON, or `None` when nothing is
/// owed.
pub fn process_value(
    value: Value,
    handle: &mut dyn FnMut(Message) -> Option<Response>,
) -> Option<Value> {
    answer(value, handle).map(|answer| match answer {
        Answer::Single(response) => response.to_value(),
        Answer::Batch(responses) => {
            Value::Array(responses.iter().map(Response::to_value).collect())
        }
    })
}

/// Handles one line of text; returns the compact answer line (without newline), or `None`.
pub fn process_text(
    text: &str,
    handle: &mut dyn FnMut(Message) -> Option<Response>,
) -> Option<String> {
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(error) => return Some(parse_error(&error.to_string()).to_line()),
    };
    answer(value, handle).map(|answer| match answer {
        Answer::Single(response) => response.to_line(),
        Answer::Batch(responses) => crate::to_json_line(&responses),
    })
}

/// Handles one frame from a [`crate::LineFramer`].
pub fn process_frame(
    frame: Frame,
    max_message_length: usize,
    handle: &mut dyn FnMut(Message) -> Option<Response>,
) -> Option<String> {
    match frame {
        Frame::Line(text) => process_text(&text, handle),
        Frame::TooLong => Some(too_long(max_message_length, "characters").to_line()),
        Frame::InvalidUtf8 => Some(parse_error(NOT_UTF8).to_line()),
    }
}
