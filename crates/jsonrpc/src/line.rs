//! Compact JSON text that no line splitter cuts: U+0085, U+2028 and U+2029 escaped.
//!
//! JSON allows NEXT LINE, LINE SEPARATOR and PARAGRAPH SEPARATOR raw inside strings, and
//! serde_json writes them raw, but a client that splits the stream with a Unicode-aware line
//! splitter (Python's `str.splitlines()`, which breaks on all three) cuts the message there and
//! fails to parse either half. serde_json already escapes the other characters such a splitter
//! breaks on (the controls U+000A-U+000D and U+001C-U+001E). Every message this crate writes
//! goes through [`to_json_line`]; a transport that serializes its own answers (HTTP) calls it
//! too.

use serde::Serialize;

/// The compact JSON text of `value` with U+0085, U+2028 and U+2029 written as `\u0085`,
/// `\u2028` and `\u2029` (the same value to any JSON parser; the text holds no character a
/// line splitter breaks on, so the newline the transport adds is the only one).
pub fn to_json_line<T: Serialize + ?Sized>(value: &T) -> String {
    // Serializing a tree of `Value`s (or of this crate's messages) into a `String` cannot fail:
    // keys are strings.
    escape_line_separators(serde_json::to_string(value).unwrap_or_default())
}

/// `json` with every U+0085, U+2028 and U+2029 replaced by its `\uXXXX` escape. In JSON text
/// written by a serializer these characters can only stand inside strings, where the escape
/// means the same character. Returns `json` itself, without copying, when it holds none.
pub fn escape_line_separators(json: String) -> String {
    let bytes = json.as_bytes();
    let Some(first) = find_separator(bytes, 0) else {
        return json;
    };
    let mut out = String::with_capacity(json.len() + 16);
    let mut start = 0;
    let mut at = Some((first, escape_at(bytes, first)));
    while let Some((index, (escape, len))) = at {
        out.push_str(&json[start..index]);
        out.push_str(escape);
        start = index + len;
        at = find_separator(bytes, start).map(|i| (i, escape_at(bytes, i)));
    }
    out.push_str(&json[start..]);
    out
}

/// The escape of the separator starting at `index`, and its length in bytes.
fn escape_at(bytes: &[u8], index: usize) -> (&'static str, usize) {
    match bytes.get(index..index + 3) {
        Some([0xE2, 0x80, 0xA8]) => ("\\u2028", 3),
        Some([0xE2, 0x80, 0xA9]) => ("\\u2029", 3),
        _ => ("\\u0085", 2),
    }
}

/// The byte index of the next separator at or after `from` (UTF-8: U+0085 is C2 85, U+2028
/// and U+2029 are E2 80 A8 and E2 80 A9; C2 and E2 also lead many other characters).
fn find_separator(bytes: &[u8], from: usize) -> Option<usize> {
    let mut index = from;
    while let Some(offset) = bytes
        .get(index..)?
        .iter()
        .position(|&b| b == 0xE2 || b == 0xC2)
    {
        let at = index + offset;
        let hit = match bytes[at] {
            0xC2 => bytes.get(at + 1) == Some(&0x85),
            _ => bytes.get(at + 1) == Some(&0x80) && matches!(bytes.get(at + 2), Some(0xA8 | 0xA9)),
        };
        if hit {
            return Some(at);
        }
        index = at + 1;
    }
    None
}
