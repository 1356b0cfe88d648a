//! Positions in a document's text: where the member a JSON Pointer names stands, as line and
//! column, so an issue found in the parsed value can point into the file it came from.
//!
//! [`parse_with_positions`] parses the text with serde_json (the one parser of the project, so
//! what counts as JSON never differs) and, when it parses, scans it once more with a small
//! scanner that records, for every object member and array element, the byte ranges of its key
//! (members only) and of its value, under its RFC 6901 pointer. A key that appears twice is the
//! last one, as serde_json keeps the last value.
//!
//! Lines and columns count from 1; a column counts characters (Unicode scalar values) from the
//! start of its line, as the limits do; lines end at `\n` (a `\r` before it is part of no
//! column that matters). An end is the position just past the last character. A syntax error
//! is reported at serde_json's line and at its column converted from bytes to characters.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

use serde_json::Value;

use crate::pointer::{push_token, unescape_token};

/// Where something stands in a text: 1-based line and column (in characters), and an end just
/// past its last character.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    /// Line of the first character (from 1).
    pub line: usize,
    /// Column of the first character, in characters (from 1).
    pub column: usize,
    /// Line of the end.
    pub end_line: usize,
    /// Column just past the last character.
    pub end_column: usize,
}

/// A text that is not JSON: serde_json's reason and where it stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// serde_json's reason, without its position (`expected value`, `trailing comma`).
    pub reason: String,
    /// Line of the error (from 1).
    pub line: usize,
    /// Column of the error, in characters (from 1).
    pub column: usize,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "not JSON: {} at line {} column {}",
            self.reason, self.line, self.column
        )
    }
}

/// One member or element of the document: the byte ranges of its key (object members only)
/// and of its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The key with its quotes, for an object member.
    pub key: Option<Range<usize>>,
    /// The value, from its first to just past its last byte.
    pub value: Range<usize>,
}

/// The positions of every member of a parsed text.
#[derive(Debug, Clone)]
pub struct SourceMap {
    /// Byte offset of the start of each line.
    line_starts: Vec<usize>,
    /// Pointer → member (the root is `""`).
    members: HashMap<String, Member>,
    /// The text, to count characters in a line.
    text: String,
}

/// Parses `text` as JSON and maps where every member stands.
///
/// # Errors
///
/// [`SyntaxError`] when the text is not JSON, with the line and column where it stops.
///
/// ```
/// let text = "{\n  \"id\": \"Support Bot\"\n}";
/// let (value, map) = botmesh_flow_schema::parse_with_positions(text)?;
/// assert_eq!(value["id"], "Support Bot");
/// let at = map.locate("/id", false).unwrap();
/// assert_eq!((at.line, at.column, at.end_column), (2, 9, 22));
/// let key = map.locate("/id", true).unwrap();
/// assert_eq!((key.line, key.column, key.end_column), (2, 3, 7));
/// # Ok::<(), botmesh_flow_schema::SyntaxError>(())
/// ```
pub fn parse_with_positions(text: &str) -> Result<(Value, SourceMap), SyntaxError> {
    let value: Value = serde_json::from_str(text).map_err(|error| syntax_error(text, &error))?;
    let mut scanner = Scanner {
        bytes: text.as_bytes(),
        text,
        at: 0,
        members: HashMap::new(),
        pointer: String::new(),
    };
    scanner.skip_space();
    let start = scanner.at;
    scanner.value();
    scanner.members.insert(
        String::new(),
        Member {
            key: None,
            value: start..scanner.at,
        },
    );
    let map = SourceMap {
        line_starts: line_starts(text),
        members: scanner.members,
        text: text.to_owned(),
    };
    Ok((value, map))
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .collect()
}

/// serde_json's error with the column in characters (serde_json counts bytes).
fn syntax_error(text: &str, error: &serde_json::Error) -> SyntaxError {
    let full = error.to_string();
    let reason = match full.rfind(" at line ") {
        Some(at) => full[..at].to_owned(),
        None => full,
    };
    let line = error.line().max(1);
    let line_text = text.split('\n').nth(line - 1).unwrap_or_default();
    let bytes = error.column().min(line_text.len());
    // The column is the byte serde_json stopped at; count the characters up to it.
    let mut cut = bytes;
    while !line_text.is_char_boundary(cut) {
        cut -= 1;
    }
    let column = line_text[..cut].chars().count().max(1);
    SyntaxError {
        reason,
        line,
        column,
    }
}

impl SourceMap {
    /// The member `pointer` names, if the text has it.
    pub fn member(&self, pointer: &str) -> Option<&Member> {
        self.members.get(pointer)
    }

    /// Where the member `pointer` names stands: its key when `at_key` (and it is an object
    /// member), its value otherwise. A pointer the text does not have gets the location of its
    /// longest prefix that it has (the whole document at worst).
    pub fn locate(&self, pointer: &str, at_key: bool) -> Option<Location> {
        let mut current = pointer;
        loop {
            if let Some(member) = self.members.get(current) {
                let range = match (&member.key, at_key && current == pointer) {
                    (Some(key), true) => key.clone(),
                    _ => member.value.clone(),
                };
                return Some(self.location(range));
            }
            current = &current[..current.rfind('/')?];
        }
    }

    /// The location of a byte range of the text.
    pub fn location(&self, range: Range<usize>) -> Location {
        let (line, column) = self.line_column(range.start);
        let (end_line, end_column) = self.line_column(range.end);
        Location {
            line,
            column,
            end_line,
            end_column,
        }
    }

    fn line_column(&self, offset: usize) -> (usize, usize) {
        let line = self.line_starts.partition_point(|start| *start <= offset);
        let start = self.line_starts[line.saturating_sub(1)];
        let column = self
            .text
            .get(start..offset)
            .map_or(0, |s| s.chars().count())
            + 1;
        (line.max(1), column)
    }
}

/// A scanner over text serde_json has accepted: it never meets a syntax error.
struct Scanner<'t> {
    bytes: &'t [u8],
    text: &'t str,
    at: usize,
    members: HashMap<String, Member>,
    pointer: String,
}

impl Scanner<'_> {
    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// Skips one value and records the members inside it.
    fn value(&mut self) {
        match self.bytes.get(self.at) {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => self.string(),
            _ => {
                while let Some(b) = self.bytes.get(self.at) {
                    if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.at += 1;
                }
            }
        }
    }

    /// Skips a string, quotes included.
    fn string(&mut self) {
        self.at += 1;
        while let Some(&b) = self.bytes.get(self.at) {
            self.at += 1;
            match b {
                b'\\' => self.at += 1,
                b'"' => return,
                _ => {}
            }
        }
    }

    fn object(&mut self) {
        self.at += 1;
        loop {
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b'}') | None => {
                    self.at += 1;
                    return;
                }
                Some(b',') => {
                    self.at += 1;
                    continue;
                }
                _ => {}
            }
            let key_start = self.at;
            self.string();
            let key_range = key_start..self.at;
            let raw = &self.text[key_start + 1..self.at - 1];
            let key = if raw.contains('\\') {
                serde_json::from_str::<String>(&self.text[key_range.clone()]).unwrap_or_default()
            } else {
                raw.to_owned()
            };
            self.skip_space();
            // The colon.
            self.at += 1;
            self.skip_space();
            let mark = self.pointer.len();
            push_token(&mut self.pointer, &key);
            let value_start = self.at;
            self.value();
            self.members.insert(
                self.pointer.clone(),
                Member {
                    key: Some(key_range),
                    value: value_start..self.at,
                },
            );
            self.pointer.truncate(mark);
        }
    }

    fn array(&mut self) {
        self.at += 1;
        let mut index = 0usize;
        loop {
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b']') | None => {
                    self.at += 1;
                    return;
                }
                Some(b',') => {
                    self.at += 1;
                    continue;
                }
                _ => {}
            }
            let mark = self.pointer.len();
            self.pointer.push('/');
            self.pointer.push_str(&index.to_string());
            let value_start = self.at;
            self.value();
            self.members.insert(
                self.pointer.clone(),
                Member {
                    key: None,
                    value: value_start..self.at,
                },
            );
            self.pointer.truncate(mark);
            index += 1;
        }
    }
}

#[cfg(test)]
mod tests;

/// Applies an RFC 6902 patch (as fixes write them) to a document's **text** with minimal
/// edits: a `replace` rewrites the value's text, a `move` within one object rewrites the key, a
/// `remove` takes the member out with its comma, an `add` at the end of an array (`/-`) is
/// written after the last element with the separator the elements before use; everything
/// else stays byte for byte. `test`s are checked against the parsed text. Returns `None` when
/// an operation cannot be written as such an edit (the caller then leaves the file alone) or
/// when the edited text would not parse to what applying the patch to the value gives.
pub fn edit_text(text: &str, patch: &[Value]) -> Option<String> {
    let mut current = text.to_owned();
    let (mut expected, _) = parse_with_positions(text).ok()?;
    crate::apply_patch(&mut expected, patch).ok()?;
    for op in patch {
        let (value, map) = parse_with_positions(&current).ok()?;
        let path = op.get("path")?.as_str()?;
        let edited = match op.get("op")?.as_str()? {
            "test" => {
                (value.pointer(path) == op.get("value")).then_some(())?;
                continue;
            }
            "replace" => {
                let range = map.member(path)?.value.clone();
                let new = serde_json::to_string(op.get("value")?).ok()?;
                splice(&current, range, &new)
            }
            "move" => {
                let from = op.get("from")?.as_str()?;
                let (from_parent, _) = from.rsplit_once('/')?;
                let (to_parent, token) = path.rsplit_once('/')?;
                if from_parent != to_parent || !value.pointer(from_parent)?.is_object() {
                    return None;
                }
                let key = unescape_token(token);
                let range = map.member(from)?.key.clone()?;
                splice(&current, range, &serde_json::to_string(&key).ok()?)
            }
            "remove" => remove_member(&current, &map, path)?,
            "add" => {
                let (parent, token) = path.rsplit_once('/')?;
                let items = value.pointer(parent)?.as_array()?;
                if token != "-" {
                    return None;
                }
                let new = serde_json::to_string(op.get("value")?).ok()?;
                match items.len() {
                    0 => {
                        let open = map.member(parent)?.value.start + 1;
                        splice(&current, open..open, &new)
                    }
                    n => {
                        let last = map.member(&format!("{parent}/{}", n - 1))?.value.clone();
                        let separator = match n {
                            1 => ", ".to_owned(),
                            _ => {
                                let before = map.member(&format!("{parent}/{}", n - 2))?.value.end;
                                current[before..last.start].to_owned()
                            }
                        };
                        splice(&current, last.end..last.end, &format!("{separator}{new}"))
                    }
                }
            }
            _ => return None,
        };
        current = edited;
    }
    let (result, _) = parse_with_positions(&current).ok()?;
    (result == expected).then_some(current)
}

fn splice(text: &str, range: Range<usize>, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..range.start]);
    out.push_str(with);
    out.push_str(&text[range.end..]);
    out
}

/// The text without the member or element at `path`, and without the comma that separated it.
fn remove_member(text: &str, map: &SourceMap, path: &str) -> Option<String> {
    let member = map.member(path)?;
    let start = member.key.as_ref().map_or(member.value.start, |k| k.start);
    let end = member.value.end;
    let bytes = text.as_bytes();
    let mut after = end;
    while after < bytes.len() && bytes[after].is_ascii_whitespace() {
        after += 1;
    }
    if bytes.get(after) == Some(&b',') {
        // Up to the next member: the indentation before this one is kept for it.
        let mut next = after + 1;
        while next < bytes.len() && bytes[next].is_ascii_whitespace() {
            next += 1;
        }
        return Some(splice(text, start..next, ""));
    }
    let mut before = start;
    while before > 0 && bytes[before - 1].is_ascii_whitespace() {
        before -= 1;
    }
    if before > 0 && bytes[before - 1] == b',' {
        return Some(splice(text, before - 1..end, ""));
    }
    Some(splice(text, start..end, ""))
}
