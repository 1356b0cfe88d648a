//! RFC 8785 (JCS) canonical JSON and the SHA-256 digest of a document.
//!
//! The canonical form is what the bot runtime (JavaScript) would write with
//! `JSON.stringify` after sorting keys:
//!
//! - object keys are sorted by their UTF-16 code units (sorted explicitly here, never by
//!   trusting the order of `serde_json::Map`, which `preserve_order` could change);
//! - numbers are written as ECMAScript's `Number.prototype.toString` does (`ryu-js`).
//!   Integers that serde_json kept as `u64`/`i64` beyond ±2^53 are first rounded to the
//!   nearest `f64` (ties to even), exactly as JavaScript's `Number` does, so
//!   `18446744073709551615` is written `18446744073709552000`; `-0` is written `0`;
//! - strings escape only `"`, `\` and the control characters below U+0020, with the short
//!   forms `\b \t \n \f \r` and lowercase `\u00xx` otherwise; everything else is raw UTF-8.
//!
//! [`digest`] streams those bytes through SHA-256 via a small fixed buffer, so digesting a
//! large document never holds its canonical text in memory.
//!
//! `Digest::version` is the document's `version` when it is a non-negative integer (any
//! number without a fractional part, so `2.0` is 2; a version that migration would reject,
//! such as `7`, is still reported as it is), and 0 when `version` is absent, is not such a
//! number, or the value is not an object. The digest itself never validates.
//!
//! Dependencies: `ryu-js` writes an `f64` exactly as ECMAScript's `Number.prototype.toString`
//! (shortest round-trip digits and JavaScript's switch to exponent form), which RFC 8785
//! requires and which is easy to get subtly wrong by hand; it is checked against a table that
//! node generated (`test_data/canonical/numbers.tsv`). The dev-dependency `serde_jcs` is the
//! second JCS implementation the property tests compare with.

#[cfg(test)]
mod tests;

use serde_json::{Map, Number, Value};
use sha2::{Digest as _, Sha256};
use std::cmp::Ordering;

/// A document's digest.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Digest {
    /// `sha256:` + 64 lowercase hex digits over the canonical UTF-8 bytes.
    pub digest: String,
    /// The document's version (0 when absent or not a non-negative integer).
    pub version: u64,
}

/// The RFC 8785 canonical form of any JSON value.
///
/// ```
/// let value: serde_json::Value = serde_json::from_str(r#"{"b": 1.0, "a": [1e2, "\u00e9"]}"#)?;
/// assert_eq!(botmesh_flow_schema::canonical_json(&value), r#"{"a":[100,"é"],"b":1}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::with_capacity(size_hint(value));
    write_value(&mut out, value);
    out
}

/// The SHA-256 digest of the canonical form of any JSON value, with the document's version.
///
/// ```
/// let document = serde_json::json!({ "version": 2, "id": "hello" });
/// let digest = botmesh_flow_schema::digest(&document);
/// assert!(digest.digest.starts_with("sha256:"));
/// assert_eq!(digest.digest.len(), 7 + 64);
/// assert_eq!(digest.version, 2);
/// ```
pub fn digest(document: &Value) -> Digest {
    let mut sink = HashSink {
        buf: Vec::with_capacity(HASH_BUFFER),
        hasher: Sha256::new(),
    };
    write_value(&mut sink, document);
    let hash = sink.finish();
    let mut digest = String::with_capacity(7 + 64);
    digest.push_str("sha256:");
    for byte in hash {
        digest.push(HEX[usize::from(byte >> 4)] as char);
        digest.push(HEX[usize::from(byte & 0xf)] as char);
    }
    Digest {
        digest,
        version: document_version(document),
    }
}

/// A string in JSON syntax, quoted and minimally escaped.
pub(crate) fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    write_string(&mut out, text);
    out
}

/// The `version` of a document as [`Digest::version`] reports it.
fn document_version(document: &Value) -> u64 {
    match document.get("version") {
        Some(Value::Number(number)) => integer_value(number).unwrap_or(0),
        _ => 0,
    }
}

/// A JSON number as a non-negative integer, when it has no fractional part
/// (`2`, `2.0` and `2e0` are all 2).
pub(crate) fn integer_value(number: &Number) -> Option<u64> {
    if let Some(value) = number.as_u64() {
        return Some(value);
    }
    let value = number.as_f64()?;
    // 2^64 is exactly representable; every f64 below it with no fraction fits in a u64.
    if value.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&value) {
        // The range check makes the cast exact.
        return Some(value as u64);
    }
    None
}

/// True when two values have the same canonical form, without building it.
pub(crate) fn canonical_eq(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::String(a), Value::String(b)) => a == b,
        // The canonical text of a number is a function of its JavaScript value, and `==` on
        // f64 is value equality (`-0 == 0`, and there is no NaN in JSON).
        (Value::Number(a), Value::Number(b)) => js_number(a) == js_number(b),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| canonical_eq(x, y))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, x)| b.get(key).is_some_and(|y| canonical_eq(x, y)))
        }
        _ => false,
    }
}

/// The value JavaScript's `Number` gives a JSON number (round to nearest, ties to even).
fn js_number(number: &Number) -> f64 {
    // `as` rounds an integer to the nearest f64, ties to even, exactly as JavaScript does.
    if let Some(value) = number.as_u64() {
        return value as f64;
    }
    if let Some(value) = number.as_i64() {
        return value as f64;
    }
    number.as_f64().unwrap_or(f64::NAN)
}

/// Compares two strings by their UTF-16 code units (RFC 8785 §3.2.3).
///
/// UTF-8 byte order is code point order, and that agrees with UTF-16 order except when a
/// supplementary character (surrogate pair, UTF-8 lead byte `F0`–`F4`) meets a character
/// in U+E000–U+FFFF (lead byte `EE` or `EF`): the surrogates sort first. A difference in a
/// continuation byte means both characters share their lead byte, so byte order holds.
pub(crate) fn utf16_cmp(left: &str, right: &str) -> Ordering {
    let (a, b) = (left.as_bytes(), right.as_bytes());
    let Some(at) = a.iter().zip(b).position(|(x, y)| x != y) else {
        return a.len().cmp(&b.len());
    };
    match (a[at], b[at]) {
        (x, 0xee | 0xef) if x >= 0xf0 => Ordering::Less,
        (0xee | 0xef, y) if y >= 0xf0 => Ordering::Greater,
        (x, y) => x.cmp(&y),
    }
}

/// Where canonical text goes: a `String`, or a buffer feeding SHA-256.
trait Sink {
    /// Appends UTF-8 text.
    fn put(&mut self, text: &str);
    /// Appends one ASCII byte.
    fn put_ascii(&mut self, byte: u8);
}

impl Sink for String {
    #[inline]
    fn put(&mut self, text: &str) {
        self.push_str(text);
    }

    #[inline]
    fn put_ascii(&mut self, byte: u8) {
        self.push(char::from(byte));
    }
}

/// Bytes are gathered in a fixed buffer and hashed a block at a time.
const HASH_BUFFER: usize = 16 * 1024;

/// A sink that hashes what it receives.
struct HashSink {
    buf: Vec<u8>,
    hasher: Sha256,
}

impl HashSink {
    fn finish(mut self) -> [u8; 32] {
        self.hasher.update(&self.buf);
        self.hasher.finalize().into()
    }
}

impl Sink for HashSink {
    #[inline]
    fn put(&mut self, text: &str) {
        if self.buf.len() + text.len() > HASH_BUFFER {
            self.hasher.update(&self.buf);
            self.buf.clear();
            if text.len() >= HASH_BUFFER {
                self.hasher.update(text.as_bytes());
                return;
            }
        }
        self.buf.extend_from_slice(text.as_bytes());
    }

    #[inline]
    fn put_ascii(&mut self, byte: u8) {
        if self.buf.len() == HASH_BUFFER {
            self.hasher.update(&self.buf);
            self.buf.clear();
        }
        self.buf.push(byte);
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// A cheap upper-bound-ish estimate of the canonical length, to size the output once.
fn size_hint(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(_) => 24,
        Value::String(text) => text.len() + 2,
        Value::Array(items) => items.iter().map(|item| size_hint(item) + 1).sum::<usize>() + 2,
        Value::Object(map) => {
            map.iter()
                .map(|(key, item)| key.len() + 4 + size_hint(item))
                .sum::<usize>()
                + 2
        }
    }
}

fn write_value<S: Sink>(out: &mut S, value: &Value) {
    match value {
        Value::Null => out.put("null"),
        Value::Bool(true) => out.put("true"),
        Value::Bool(false) => out.put("false"),
        Value::Number(number) => write_number(out, number),
        Value::String(text) => write_string(out, text),
        Value::Array(items) => {
            out.put_ascii(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.put_ascii(b',');
                }
                write_value(out, item);
            }
            out.put_ascii(b']');
        }
        Value::Object(map) => write_object(out, map),
    }
}

fn write_object<S: Sink>(out: &mut S, map: &Map<String, Value>) {
    out.put_ascii(b'{');
    // serde_json's default map is already in code point order, which is almost always
    // UTF-16 order: then no allocation is needed. Otherwise sort a list of references.
    let mut keys = map.keys();
    let sorted = match keys.next() {
        None => true,
        Some(first) => keys
            .try_fold(first, |previous, key| {
                (utf16_cmp(previous, key) == Ordering::Less).then_some(key)
            })
            .is_some(),
    };
    if sorted {
        write_members(out, map.iter());
    } else {
        let mut entries: Vec<(&String, &Value)> = map.iter().collect();
        entries.sort_unstable_by(|a, b| utf16_cmp(a.0, b.0));
        write_members(out, entries.into_iter());
    }
    out.put_ascii(b'}');
}

fn write_members<'a, S: Sink>(out: &mut S, members: impl Iterator<Item = (&'a String, &'a Value)>) {
    for (index, (key, value)) in members.enumerate() {
        if index > 0 {
            out.put_ascii(b',');
        }
        write_string(out, key);
        out.put_ascii(b':');
        write_value(out, value);
    }
}

/// 2^53: every integer up to this magnitude is exact in an f64 and printed as plain digits.
const MAX_SAFE: u64 = 1 << 53;

fn write_number<S: Sink>(out: &mut S, number: &Number) {
    if let Some(value) = number.as_u64() {
        if value <= MAX_SAFE {
            write_digits(out, false, value);
        } else {
            write_f64(out, js_number(number));
        }
    } else if let Some(value) = number.as_i64() {
        // Only negative values reach here.
        if value.unsigned_abs() <= MAX_SAFE {
            write_digits(out, true, value.unsigned_abs());
        } else {
            write_f64(out, js_number(number));
        }
    } else {
        write_f64(out, js_number(number));
    }
}

fn write_f64<S: Sink>(out: &mut S, value: f64) {
    if value == 0.0 {
        // Both zeros are written `0`.
        out.put_ascii(b'0');
    } else {
        out.put(ryu_js::Buffer::new().format(value));
    }
}

fn write_digits<S: Sink>(out: &mut S, negative: bool, mut value: u64) {
    let mut buf = [0u8; 21];
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    if negative {
        at -= 1;
        buf[at] = b'-';
    }
    for &byte in &buf[at..] {
        out.put_ascii(byte);
    }
}

/// The escape of each byte below U+0020 (RFC 8785 §3.2.2.2).
const CONTROL: [&str; 32] = [
    "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007", "\\b",
    "\\t", "\\n", "\\u000b", "\\f", "\\r", "\\u000e", "\\u000f", "\\u0010", "\\u0011", "\\u0012",
    "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017", "\\u0018", "\\u0019", "\\u001a",
    "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
];

fn write_string<S: Sink>(out: &mut S, text: &str) {
    out.put_ascii(b'"');
    let mut start = 0;
    for (at, &byte) in text.as_bytes().iter().enumerate() {
        let escape = match byte {
            0x00..=0x1f => CONTROL[usize::from(byte)],
            b'"' => "\\\"",
            b'\\' => "\\\\",
            _ => continue,
        };
        // `at` is an ASCII byte, so both slices end on character boundaries.
        if start < at {
            out.put(&text[start..at]);
        }
        out.put(escape);
        start = at + 1;
    }
    if start < text.len() {
        out.put(&text[start..]);
    }
    out.put_ascii(b'"');
}
