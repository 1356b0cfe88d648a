//! Newline-delimited JSON-RPC 2.0 framing for botmesh-mcp.
//!
//! This crate knows nothing about MCP: it splits a byte stream into lines
//! ([`LineFramer`], [`read_frames`]), classifies each line as a request, a notification, a
//! response or garbage, hands requests and notifications to a caller-supplied handler and
//! assembles the answer line ([`process_frame`], [`process_text`]), batches included.
//!
//! Rules it enforces:
//! - one JSON message per line; `\r\n` accepted; blank lines skipped; a last line without a
//!   newline is still a message; a message may arrive split across reads anywhere, including
//!   inside a multi-byte UTF-8 character;
//! - a line longer than the limit (in characters) is answered `-32600` without being buffered:
//!   the framer's buffer never holds more than the limit plus one read;
//! - a malformed line answers `-32700` with `id: null`; a structurally invalid request answers
//!   `-32600`; responses sent by the peer and notifications (even malformed ones) are never
//!   answered; a transport that reads whole messages (an HTTP body) gets the same answers, in
//!   the same words, from [`parse_message`] and [`too_long`];
//! - every answer is compact JSON on one line with U+0085, U+2028 and U+2029 escaped
//!   ([`to_json_line`]),
//!   so a client splitting lines the Unicode way (Python's `str.splitlines()`) gets whole messages;
//! - a JSON array is a batch, answered with an array of the responses (notifications left
//!   out); a batch of only notifications gets no answer; `[]`, or a batch of more than
//!   [`MAX_BATCH_LENGTH`] messages, answers `-32600`.
//!
//! ```
//! use botmesh_jsonrpc::{process_text, Message, Response};
//! let answer = process_text(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, &mut |message| match message {
//!     Message::Request(request) => Some(Response::result(request.id, serde_json::json!({}))),
//!     _ => None,
//! });
//! assert_eq!(answer.as_deref(), Some(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
//! ```

mod framer;
mod line;
mod message;
mod process;

pub use framer::{Frame, LineFramer, read_frames};
pub use line::{escape_line_separators, to_json_line};
pub use message::{ErrorObject, Id, Message, Notification, Request, Response, codes};
pub use process::{
    Incoming, MAX_BATCH_LENGTH, classify, parse_message, process_frame, process_text,
    process_value, too_long,
};

/// The default largest message, in characters (16 Mi).
pub const DEFAULT_MAX_MESSAGE_LENGTH: usize = 16 * 1024 * 1024;

#[cfg(test)]
mod tests;
