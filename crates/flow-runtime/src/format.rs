//! The transcript as text: what `flow_simulate`'s text item and `botmesh-mcp chat`'s piped
//! output show. One line per transcript entry, then the outcome, the path, the variables, the
//! clock and the warnings; every string is written as a JSON string (so a text with a newline
//! stays on its line), so the text carries every fact of the result and reads back into it
//! (a test parses it).
//!
//! Rounds of a loop are folded: when a run of up to [`FOLD_PERIOD`] lines comes again, the
//! same, at least [`FOLD_REPEATS`] times in a row, the text gives it once and then one line,
//! `[the 2 lines above repeat 499 more times, 500 times in all]`; in the path such a run is
//! written `(menu check)×500` (`menu×500` for one step). The run folded is the one that saves
//! the most lines (the shortest among equals), so reading the text back, repeating what each
//! such line says, gives the whole transcript and path again.
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

/// The longest run of lines (or path steps) folded when it repeats.
pub(crate) const FOLD_PERIOD: usize = 32;

/// How many times in a row a run must come to be folded.
pub(crate) const FOLD_REPEATS: usize = 3;

/// A run of `period` items that comes `times` times in a row from an item on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Fold {
    period: usize,
    times: usize,
}

/// The folds of a sequence of items: for each item, the fold that starts there, if any.
/// Greedy from the start: at each item the run that saves the most items (the shortest among
/// equals); the items it covers are then skipped. Items are compared by a number given to
/// each distinct item once, so a long transcript costs one hash per line, not a string
/// comparison per line and period.
fn folds<T: Eq + std::hash::Hash>(items: &[T]) -> Vec<(usize, Fold)> {
    let mut numbers: std::collections::HashMap<&T, u32> = std::collections::HashMap::new();
    let keys: Vec<u32> = items
        .iter()
        .map(|item| {
            let next = numbers.len() as u32;
            *numbers.entry(item).or_insert(next)
        })
        .collect();
    let mut found = Vec::new();
    let mut at = 0;
    while at < keys.len() {
        let mut best: Option<Fold> = None;
        for period in 1..=FOLD_PERIOD {
            if at + FOLD_REPEATS * period > keys.len() {
                break;
            }
            if keys[at + period] != keys[at] {
                continue;
            }
            let block = &keys[at..at + period];
            let mut times = 1;
            while keys
                .get(at + times * period..at + (times + 1) * period)
                .is_some_and(|next| next == block)
            {
                times += 1;
            }
            let saves = |fold: &Fold| fold.period * (fold.times - 1);
            let fold = Fold { period, times };
            if times >= FOLD_REPEATS && best.is_none_or(|best| saves(&fold) > saves(&best)) {
                best = Some(fold);
            }
        }
        match best {
            Some(fold) => {
                found.push((at, fold));
                at += fold.period * fold.times;
            }
            None => at += 1,
        }
    }
    found
}

/// The transcript's lines with repeated runs folded, each with how many entries it stands for.
fn folded_lines(lines: Vec<String>) -> Vec<(String, usize)> {
    let folds = folds(&lines);
    let mut out = Vec::with_capacity(lines.len());
    let mut next = folds.iter().peekable();
    let mut at = 0;
    while at < lines.len() {
        match next.next_if(|(start, _)| *start == at) {
            Some(&(_, Fold { period, times })) => {
                out.extend(lines[at..at + period].iter().map(|line| (line.clone(), 1)));
                let more = times - 1;
                let what = if period == 1 {
                    "the line above repeats".to_owned()
                } else {
                    format!("the {period} lines above repeat")
                };
                out.push((
                    format!("[{what} {more} more times, {times} times in all]"),
                    period * more,
                ));
                at += period * times;
            }
            None => {
                out.push((lines[at].clone(), 1));
                at += 1;
            }
        }
    }
    out
}

/// One step of the path line, after `[flow]` when the flow changes.
fn path_step<'a>(line: &mut String, flow: &mut Option<&'a str>, (this, step): (&'a str, &str)) {
    if *flow != Some(this) {
        let _ = write!(line, " [{this}]");
        *flow = Some(this);
    }
    let _ = write!(line, " {step}");
}

/// The path line: `[flow]` before the steps of each run of one flow, repeated runs folded as
/// `(a b)×N` (`a×N` for one step). Inside parentheses a `[flow]` comes first whenever the run
/// starts in another flow than the one before it or ends in another than it starts in, so
/// the run reads the same each time it is repeated.
fn path_line(path: &[Value]) -> String {
    let noun = if path.len() == 1 { "step" } else { "steps" };
    let mut line = format!("path ({} {noun}):", path.len());
    let entries: Vec<(&str, &str)> = path
        .iter()
        .map(|entry| (string(entry, "flow"), string(entry, "step")))
        .collect();
    let folds = folds(&entries);
    let mut next = folds.iter().peekable();
    let mut flow = None;
    let mut at = 0;
    while at < entries.len() {
        let Some(&(_, Fold { period, times })) = next.next_if(|(start, _)| *start == at) else {
            path_step(&mut line, &mut flow, entries[at]);
            at += 1;
            continue;
        };
        let run = &entries[at..at + period];
        let first = run[0].0;
        if run.iter().all(|(this, _)| *this == first) {
            if flow != Some(first) {
                let _ = write!(line, " [{first}]");
                flow = Some(first);
            }
            let steps: Vec<&str> = run.iter().map(|(_, step)| *step).collect();
            if period == 1 {
                let _ = write!(line, " {}×{times}", steps[0]);
            } else {
                let _ = write!(line, " ({})×{times}", steps.join(" "));
            }
        } else {
            line.push_str(" (");
            let mut inner = None;
            let mut text = String::new();
            for &entry in run {
                path_step(&mut text, &mut inner, entry);
            }
            line.push_str(text.trim_start());
            let _ = write!(line, ")×{times}");
            flow = inner;
        }
        at += period * times;
    }
    line
}

/// The text of a `flow_simulate` result of a valid set (`result` is its `structuredContent`),
/// at most `limit` characters when given. Past it, the transcript keeps its first lines that
/// fit and a line says how many entries were left out and how to get them; the warnings do
/// the same when they alone would take more than half the room; the path is left out (and
/// said to be) when it does not fit. The outcome, the variables and the clock always stay.
pub fn simulation_text(flow: &str, result: &Map<String, Value>, limit: Option<usize>) -> String {
    let empty = Vec::new();
    let list = |key: &str| result.get(key).and_then(Value::as_array).unwrap_or(&empty);
    let head = format!("flow_simulate of {}: valid, no issues\n", quoted(flow));
    let transcript = folded_lines(list("transcript").iter().map(entry_line).collect());
    let warnings = folded_lines(list("warnings").iter().map(warning_line).collect());
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
    let chars = |s: &str| s.chars().count();
    let lines_chars = |lines: &[(String, usize)]| -> usize {
        lines.iter().map(|(line, _)| chars(line) + 1).sum()
    };
    let fixed = chars(&head) + chars(&tail) + chars(&rest);
    let (transcript_chars, warnings_chars) = (lines_chars(&transcript), lines_chars(&warnings));
    let path_chars = chars(&path_text) + 1;
    let room = limit.unwrap_or(usize::MAX);
    let mut out = String::with_capacity(fixed + transcript_chars + path_chars + warnings_chars);
    out.push_str(&head);
    let whole = |out: &mut String, lines: &[(String, usize)]| {
        for (line, _) in lines {
            out.push_str(line);
            out.push('\n');
        }
    };
    if fixed + transcript_chars + path_chars + warnings_chars <= room {
        whole(&mut out, &transcript);
        out.push_str(&tail);
        out.push_str(&path_text);
        out.push('\n');
        out.push_str(&rest);
        whole(&mut out, &warnings);
        return out;
    }
    // Too long: keep whole lines while they fit, with room for the three notes.
    const NOTE: usize = 300;
    let path_fits = fixed + path_chars + 3 * NOTE <= room;
    let mut budget = room.saturating_sub(fixed + 3 * NOTE + if path_fits { path_chars } else { 0 });
    let warnings_budget = warnings_chars.min(budget / 2);
    budget -= warnings_budget;
    first_lines(
        &mut out,
        &transcript,
        budget,
        list("transcript").len(),
        "transcript entries",
    );
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
    first_lines(
        &mut out,
        &warnings,
        warnings_budget,
        list("warnings").len(),
        "warnings",
    );
    out
}

/// The first of `lines` that fit in `budget` characters, then, when some are left out, a line
/// saying how many of the `total` entries (`noun`) they stand for were left out.
fn first_lines(
    out: &mut String,
    lines: &[(String, usize)],
    budget: usize,
    total: usize,
    noun: &str,
) {
    let mut budget = budget;
    let mut kept = 0;
    for (line, entries) in lines {
        let cost = line.chars().count() + 1;
        if cost > budget {
            break;
        }
        budget -= cost;
        out.push_str(line);
        out.push('\n');
        kept += entries;
    }
    if kept < total {
        let _ = writeln!(
            out,
            "[flow_simulate: {} of {total} {noun} left out of this text; structuredContent has them all, or call again with fullText: true]",
            total - kept,
        );
    }
}

/// The line of one warning.
fn warning_line(warning: &Value) -> String {
    if warning.get("step").is_some() {
        format!("warning {}: {}", place(warning), string(warning, "message"))
    } else {
        format!("warning: {}", string(warning, "message"))
    }
}
