//! The transcript as text: what `flow_simulate`'s text item and `botmesh-mcp chat`'s piped
//! output show. One line per transcript entry, then the outcome, the path, the variables, the
//! clock and the warnings; every string is written as a JSON string (so a text with a newline
//! stays on its line), so the text carries every fact of the result and reads back into it
//! (a test parses it).
//!
//! ```text
//! flow_simulate of "pizza-order": valid, no issues
//! user: "pizza"
//! bot pizza-order/welcome: "Hi Ana!"
//! bot pizza-order/size buttons: "What size?" [small] "Small" [large] "Large"
//! user taps: "large"
//! · pizza-order/size save size = "large"
//! outcome: ended at pizza-order/done
//! path (3 steps): [pizza-order] welcome size done
//! variables: {"size":"large"}
//! clock: 0 s
//! ```

use std::fmt::Write as _;

use serde_json::{Map, Value};

fn json(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

fn quoted(text: &str) -> String {
    json(&Value::from(text))
}

fn string<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// An item id as written between brackets: bare when it is a plain token, else JSON.
fn item_id(id: &str) -> String {
    let plain = !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if plain { id.to_owned() } else { quoted(id) }
}

fn place(entry: &Value) -> String {
    format!("{}/{}", string(entry, "flow"), string(entry, "step"))
}

/// The line of one transcript entry.
pub fn entry_line(entry: &Value) -> String {
    let mut line = String::new();
    if let Some(user) = entry.get("user") {
        match (user.get("text"), user.get("tap")) {
            (Some(text), _) => {
                let _ = write!(line, "user: {}", json(text));
            }
            (_, Some(tap)) => {
                let _ = write!(line, "user taps: {}", json(tap));
            }
            _ => line.push_str("user: \"\""),
        }
        return line;
    }
    if let Some(send) = entry.get("bot") {
        let at = place(entry);
        let text = quoted(string(send, "text"));
        let tail = |line: &mut String| {
            for key in ["header", "footer"] {
                if let Some(value) = send.get(key) {
                    let _ = write!(line, " {key}: {}", json(value));
                }
            }
        };
        match string(send, "type") {
            "buttons" => {
                let _ = write!(line, "bot {at} buttons: {text}");
                for button in send
                    .get("buttons")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let _ = write!(
                        line,
                        " [{}] {}",
                        item_id(string(button, "id")),
                        quoted(string(button, "title"))
                    );
                }
                tail(&mut line);
            }
            "list" => {
                let _ = write!(
                    line,
                    "bot {at} list {}: {text}",
                    quoted(string(send, "button"))
                );
                for section in send
                    .get("sections")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    line.push_str(" §");
                    if let Some(title) = section.get("title") {
                        let _ = write!(line, " {}", json(title));
                    }
                    for row in section
                        .get("rows")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        let _ = write!(
                            line,
                            " [{}] {}",
                            item_id(string(row, "id")),
                            quoted(string(row, "title"))
                        );
                        if let Some(description) = row.get("description") {
                            let _ = write!(line, " — {}", json(description));
                        }
                    }
                }
                tail(&mut line);
            }
            "media" => {
                let _ = write!(
                    line,
                    "bot {at} {} {}",
                    string(send, "media"),
                    quoted(string(send, "url"))
                );
                for key in ["caption", "filename"] {
                    if let Some(value) = send.get(key) {
                        let _ = write!(line, " {key}: {}", json(value));
                    }
                }
            }
            "template" => {
                let parameters = send
                    .get("parameters")
                    .cloned()
                    .unwrap_or(Value::Array(Vec::new()));
                let _ = write!(
                    line,
                    "bot {at} template {} ({}): {}",
                    string(send, "name"),
                    string(send, "language"),
                    json(&parameters)
                );
            }
            "location" => {
                let _ = write!(
                    line,
                    "bot {at} location {},{}",
                    send.get("latitude").map(json).unwrap_or_default(),
                    send.get("longitude").map(json).unwrap_or_default()
                );
                for key in ["name", "address"] {
                    if let Some(value) = send.get(key) {
                        let _ = write!(line, " {key}: {}", json(value));
                    }
                }
            }
            _ => {
                let _ = write!(line, "bot {at}: {text}");
            }
        }
        return line;
    }
    let at = place(entry);
    match string(entry, "event") {
        "save" => {
            let _ = write!(
                line,
                "· {at} save {} = {}",
                string(entry, "var"),
                entry.get("value").map(json).unwrap_or_default()
            );
        }
        "action" => {
            let args = entry.get("args").map(json).unwrap_or_default();
            let _ = write!(line, "· {at} action {} {args}", string(entry, "handler"));
            match entry.get("result") {
                Some(result) => {
                    let _ = write!(line, " → {}", json(result));
                }
                None => line.push_str(" failed"),
            }
        }
        "delay" => {
            let _ = write!(
                line,
                "· {at} delay {} s",
                entry.get("seconds").map(json).unwrap_or_default()
            );
            if entry.get("typing") == Some(&Value::Bool(true)) {
                line.push_str(" typing");
            }
        }
        "call" | "return" => {
            let _ = write!(
                line,
                "· {at} {} {}",
                string(entry, "event"),
                string(entry, "to")
            );
        }
        other => {
            let _ = write!(line, "· {at} {other}");
        }
    }
    line
}

/// The outcome line.
fn outcome_line(outcome: &Value) -> String {
    let mut line = format!("outcome: {}", string(outcome, "kind"));
    if outcome.get("step").is_some() {
        let _ = write!(line, " at {}", place(outcome));
    }
    if let Some(queue) = outcome.get("queue") {
        let _ = write!(line, ", queue {}", json(queue));
    }
    if let Some(message) = outcome.get("message") {
        let _ = write!(line, ", message {}", json(message));
    }
    line
}

/// The path line: `[flow]` before the steps of each run of one flow.
fn path_line(path: &[Value]) -> String {
    let noun = if path.len() == 1 { "step" } else { "steps" };
    let mut line = format!("path ({} {noun}):", path.len());
    let mut flow = None;
    for entry in path {
        let this = string(entry, "flow");
        if flow != Some(this) {
            let _ = write!(line, " [{this}]");
            flow = Some(this);
        }
        let _ = write!(line, " {}", string(entry, "step"));
    }
    line
}

/// The text of a `flow_simulate` result of a valid set (`result` is its `structuredContent`),
/// at most `limit` characters when given: past it, the transcript keeps its first entries
/// that fit and a line says how many were left out and how to get them. The tail (outcome,
/// path, variables, clock, warnings) is always whole unless it alone passes the limit, when the
/// path is cut the same way.
pub fn simulation_text(flow: &str, result: &Map<String, Value>, limit: Option<usize>) -> String {
    let empty = Vec::new();
    let list = |key: &str| result.get(key).and_then(Value::as_array).unwrap_or(&empty);
    let head = format!("flow_simulate of {}: valid, no issues\n", quoted(flow));
    let transcript: Vec<String> = list("transcript").iter().map(entry_line).collect();
    let mut tail = String::new();
    tail.push_str(&outcome_line(result.get("outcome").unwrap_or(&Value::Null)));
    tail.push('\n');
    let path = list("path");
    let path_text = path_line(path);
    let mut rest = String::new();
    let _ = writeln!(
        rest,
        "variables: {}",
        result
            .get("variables")
            .map(json)
            .unwrap_or_else(|| "{}".to_owned())
    );
    let _ = writeln!(
        rest,
        "clock: {} s",
        result
            .get("clock")
            .map(json)
            .unwrap_or_else(|| "0".to_owned())
    );
    for warning in list("warnings") {
        if warning.get("step").is_some() {
            let _ = writeln!(
                rest,
                "warning {}: {}",
                place(warning),
                string(warning, "message")
            );
        } else {
            let _ = writeln!(rest, "warning: {}", string(warning, "message"));
        }
    }
    let chars = |s: &str| s.chars().count();
    let fixed = chars(&head) + chars(&tail) + chars(&rest);
    let transcript_chars: usize = transcript.iter().map(|l| chars(l) + 1).sum();
    let path_chars = chars(&path_text) + 1;
    let room = limit.unwrap_or(usize::MAX);
    let mut out = String::with_capacity(fixed + transcript_chars + path_chars);
    out.push_str(&head);
    if fixed + transcript_chars + path_chars <= room {
        for line in &transcript {
            out.push_str(line);
            out.push('\n');
        }
        out.push_str(&tail);
        out.push_str(&path_text);
        out.push('\n');
        out.push_str(&rest);
        return out;
    }
    // Too long: keep whole lines while they fit, with room for the two notes.
    const NOTE: usize = 300;
    let path_fits = fixed + path_chars + 2 * NOTE <= room;
    let mut budget = room.saturating_sub(fixed + 2 * NOTE + if path_fits { path_chars } else { 0 });
    let mut kept = 0;
    for line in &transcript {
        let cost = chars(line) + 1;
        if cost > budget {
            break;
        }
        budget -= cost;
        out.push_str(line);
        out.push('\n');
        kept += 1;
    }
    if kept < transcript.len() {
        let _ = writeln!(
            out,
            "[flow_simulate: {} of {} transcript entries left out of this text; structuredContent has them all, or call again with fullText: true]",
            transcript.len() - kept,
            transcript.len()
        );
    }
    out.push_str(&tail);
    if path_fits {
        out.push_str(&path_text);
        out.push('\n');
    } else {
        let _ = writeln!(
            out,
            "[flow_simulate: the path of {} steps is left out of this text; structuredContent has it, or call again with fullText: true]",
            path.len()
        );
    }
    out.push_str(&rest);
    out
}
