//! JSON-RPC 2.0 message and id types, error objects and codes.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

/// Error codes of JSON-RPC 2.0 (the protocols built on it define their own in their crates).
pub mod codes {
    /// Invalid JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// Valid JSON, but not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist or is not served.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameters.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal error (a bug on the server's side).
    pub const INTERNAL_ERROR: i64 = -32603;
}

/// A request id: a string or an integer, echoed back with the same JSON type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Id {
    /// An integer id (any integer that fits in 64 bits, signed or not; larger ones are refused
    /// as invalid requests).
    Number(serde_json::Number),
    /// A string id.
    String(String),
}

impl Id {
    /// Reads an id; `None` for null, floats, booleans, arrays and objects.
    pub fn from_value(value: &Value) -> Option<Id> {
        match value {
            Value::String(text) => Some(Id::String(text.clone())),
            Value::Number(number) if number.is_i64() || number.is_u64() => {
                Some(Id::Number(number.clone()))
            }
            _ => None,
        }
    }

    /// The id as JSON.
    pub fn to_value(&self) -> Value {
        match self {
            Id::Number(number) => Value::Number(number.clone()),
            Id::String(text) => Value::String(text.clone()),
        }
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Id::Number(number) => number.serialize(serializer),
            Id::String(text) => serializer.serialize_str(text),
        }
    }
}

/// A request: it has an id and expects exactly one response.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The id to echo.
    pub id: Id,
    /// The method name.
    pub method: String,
    /// The parameters, when present.
    pub params: Option<Value>,
}

/// A notification: no id, never answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// The method name.
    pub method: String,
    /// The parameters, when present.
    pub params: Option<Value>,
}

/// An incoming message that is well-formed enough to act on.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request.
    Request(Request),
    /// A notification.
    Notification(Notification),
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorObject {
    /// The code (see [`codes`]).
    pub code: i64,
    /// One short sentence.
    pub message: String,
    /// Extra data, when any.
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error without data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The same error with data attached.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

impl Serialize for ErrorObject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("code", &self.code)?;
        map.serialize_entry("message", &self.message)?;
        if let Some(data) = &self.data {
            map.serialize_entry("data", data)?;
        }
        map.end()
    }
}

/// A response: a result or an error for one id (`None` is written as `null`, for requests
/// whose id could not be read).
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The id of the request answered.
    pub id: Option<Id>,
    /// The outcome.
    pub outcome: Result<Value, ErrorObject>,
    /// Constant fields written into a successful object result after its own fields, by
    /// reference: no copy, no allocation per response (set with [`Response::with_extra`]).
    pub extra: Option<&'static Map<String, Value>>,
}

impl Response {
    /// A successful response.
    pub fn result(id: Id, result: Value) -> Self {
        Response {
            id: Some(id),
            outcome: Ok(result),
            extra: None,
        }
    }

    /// An error response.
    pub fn error(id: Option<Id>, error: ErrorObject) -> Self {
        Response {
            id,
            outcome: Err(error),
            extra: None,
        }
    }

    /// Adds constant fields to a successful object result (ignored for errors and for results
    /// that are not objects). The caller keeps the keys distinct from the result's own.
    pub fn with_extra(mut self, extra: &'static Map<String, Value>) -> Self {
        self.extra = Some(extra);
        self
    }

    /// The compact one-line JSON text of this response (U+0085, U+2028 and U+2029 escaped, see
    /// [`crate::to_json_line`]).
    pub fn to_line(&self) -> String {
        crate::to_json_line(self)
    }

    /// This response as a JSON value.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl Serialize for Response {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("jsonrpc", "2.0")?;
        map.serialize_entry("id", &self.id)?;
        match (&self.outcome, self.extra) {
            (Ok(Value::Object(fields)), Some(extra)) => {
                map.serialize_entry("result", &Merged { fields, extra })?
            }
            (Ok(result), _) => map.serialize_entry("result", result)?,
            (Err(error), _) => map.serialize_entry("error", error)?,
        }
        map.end()
    }
}

/// An object result followed by constant extra fields.
struct Merged<'a> {
    fields: &'a Map<String, Value>,
    extra: &'static Map<String, Value>,
}

impl Serialize for Merged<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.fields.len() + self.extra.len()))?;
        for (key, value) in self.fields.iter().chain(self.extra.iter()) {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}
