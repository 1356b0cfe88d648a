//! `botmesh-mcp chat FILE [--subflows DIR|FILE]... [--message TEXT | --flow ID] [--contact NAME]
//! [--var NAME=VALUE]... [--handler NAME=JSON]...`: talk to a bot in a terminal, with the
//! simulator behind `flow_simulate`.
//!
//! On a terminal, the bot's messages are bubbles, buttons and rows are numbered (pick one by its
//! number or type its title), and commands tap an id, send text literally, show the variables
//! and the path, restart and quit; colours follow `NO_COLOR`, and the line is edited as the
//! terminal edits it. When stdin is not a terminal, each line is one reply (commands too) and
//! the transcript is printed at the end in `flow_simulate`'s text, so a conversation scripts.
//!
//! Exit codes: 0 when the conversation ran (whatever its outcome), 1 when the document or a
//! subflow is invalid (its issues on stdout), 2 on a usage error or a file that cannot be read
//! or is not JSON.

use std::ffi::OsString;
use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;

use botmesh_flow_analyzer::{self as analyzer, Value};
use botmesh_flow_runtime::{self as runtime, Conversation, FlowSet, Reply, Scalar, Setup, Start};

use crate::check::{complain_as, emit, load, same_file, subflow_files};
use crate::env::Var;

const USAGE: &str = "usage: botmesh-mcp chat FILE [--subflows DIR|FILE]... [--message TEXT | --flow ID] [--contact NAME] [--var NAME=VALUE]... [--handler NAME=JSON]...

Talks to the bot of a flow document as its runtime would, without a phone.
  --subflows DIR|FILE   subflow documents the file calls (repeatable; a directory
                        contributes its *.json files)
  --message TEXT        start with this first message (picks the flow by its trigger)
  --flow ID             start at this flow of the set (default: the file's own flow)
  --contact NAME        contact_name (default \"Test User\")
  --var NAME=VALUE      a variable known before the conversation (repeatable); VALUE is
                        read as JSON when it is a number, true, false, null or a quoted
                        string, else as text
  --handler NAME=JSON   what an action handler answers (repeatable): {\"returns\": 12},
                        {\"returnsEach\": [1, 2]} or {\"fails\": \"reason\"}; a handler without one
                        returns null
Replies: type text; a number picks that button or row; commands:
  /tap ID      tap a button or row by its id       /text TEXT  send TEXT as typed
  /vars        show the variables                  /path       show the steps run
  /restart     start the conversation again        /quit       stop (also end of input)
On a terminal the bot's messages are drawn as bubbles (colour unless NO_COLOR is set);
with stdin not a terminal each line is a reply and the transcript is printed at the end.
Exit status: 0 ran, 1 invalid document, 2 usage error or unreadable file.";

/// The usage text, which the top-level `--help` quotes.
pub(crate) fn usage() -> &'static str {
    USAGE
}

#[derive(Debug, PartialEq)]
struct Args {
    file: PathBuf,
    subflows: Vec<PathBuf>,
    start: Start,
    setup: Setup,
}

#[derive(Debug, PartialEq)]
enum Command {
    Chat(Box<Args>),
    Help,
}

/// `NAME=VALUE` split at the first `=`.
fn pair(value: OsString, flag: &str) -> Result<(String, String), String> {
    let text = value
        .into_string()
        .map_err(|value| format!("{flag}: {value:?} is not UTF-8"))?;
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
        _ => Err(format!("{flag} takes NAME=VALUE, not {text:?}")),
    }
}

/// A `--var` value: JSON when it reads as a JSON scalar, else the text itself.
fn var_value(text: &str) -> Value {
    match serde_json::from_str::<Value>(text) {
        Ok(value) if !value.is_array() && !value.is_object() => value,
        _ => Value::String(text.to_owned()),
    }
}

fn parse_args(args: Vec<OsString>) -> Result<Command, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut file = None;
    let mut subflows = Vec::new();
    let mut start = Start::Default;
    let mut setup = Setup::default();
    let text = |value: OsString, flag: &str| {
        value
            .into_string()
            .map_err(|value| format!("{flag}: {value:?} is not UTF-8"))
    };
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Long("subflows") => {
                subflows.push(PathBuf::from(parser.value().map_err(|e| e.to_string())?));
            }
            Long("message") | Long("flow") if start != Start::Default => {
                return Err("give --message or --flow, not both (nor twice)".to_owned());
            }
            Long("message") => {
                start = Start::Message(text(
                    parser.value().map_err(|e| e.to_string())?,
                    "--message",
                )?);
            }
            Long("flow") => {
                start = Start::Flow(text(parser.value().map_err(|e| e.to_string())?, "--flow")?);
            }
            Long("contact") => {
                setup.contact_name = text(parser.value().map_err(|e| e.to_string())?, "--contact")?;
            }
            Long("var") => {
                let (name, value) = pair(parser.value().map_err(|e| e.to_string())?, "--var")?;
                let value = runtime::initial_value(&name, &var_value(&value))
                    .map_err(|e| format!("--var: {e}"))?;
                setup.variables.insert(name, value);
            }
            Long("handler") => {
                let (name, json) = pair(parser.value().map_err(|e| e.to_string())?, "--handler")?;
                let value: serde_json::Value = serde_json::from_str(&json)
                    .map_err(|e| format!("--handler {name}: not JSON ({e})"))?;
                let mock =
                    runtime::parse_mock(&name, &value).map_err(|e| format!("--handler: {e}"))?;
                setup.handlers.insert(name, mock);
            }
            Short('h') | Long("help") => return Ok(Command::Help),
            Value(value) if file.is_none() => file = Some(PathBuf::from(value)),
            Value(value) => return Err(format!("unexpected argument {value:?} (one FILE only)")),
            other => return Err(other.unexpected().to_string()),
        }
    }
    let file = file.ok_or("no FILE to chat with")?;
    Ok(Command::Chat(Box::new(Args {
        file,
        subflows,
        start,
        setup,
    })))
}

fn complain(message: &str, usage: bool) {
    complain_as("chat", message, usage.then_some(USAGE));
}

/// Runs `botmesh-mcp chat` with the arguments that follow `chat`.
pub(crate) fn run(args: Vec<OsString>) -> ExitCode {
    let args = match parse_args(args) {
        Ok(Command::Chat(args)) => args,
        Ok(Command::Help) => {
            emit(&format!("{USAGE}\n"));
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            complain(&message, true);
            return ExitCode::from(2);
        }
    };
    let loaded = match load_set(&args) {
        Ok(loaded) => loaded,
        Err(message) => {
            complain(&message, false);
            return ExitCode::from(2);
        }
    };
    let (names, documents) = loaded;
    let analysis = analyzer::analyze_set(&documents[0], &documents[1..]);
    if !analysis.valid {
        let mut report = String::new();
        for issue in &analysis.issues {
            let name = match issue.source.strip_prefix("subflows/") {
                Some(index) => index
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| names.get(i + 1))
                    .map_or(issue.source.as_str(), String::as_str),
                None => names[0].as_str(),
            };
            report.push_str(&format!(
                "{name}: error {}: {}\n",
                issue.path, issue.message
            ));
        }
        emit(&report);
        return ExitCode::from(1);
    }
    let refs: Vec<&Value> = documents.iter().collect();
    let set = match FlowSet::new(&refs) {
        Ok(set) => set,
        Err(error) => {
            complain(&error.to_string(), false);
            return ExitCode::from(2);
        }
    };
    if let Start::Flow(id) = &args.start
        && !set.flow_ids().any(|f| f == id)
    {
        let known: Vec<String> = set.flow_ids().map(|f| format!("\"{f}\"")).collect();
        complain(
            &format!(
                "--flow \"{id}\" is not a flow of the set (its flows: {})",
                known.join(", ")
            ),
            false,
        );
        return ExitCode::from(2);
    }
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        let colour =
            std::io::stdout().is_terminal() && Var::NoColor.read().is_none_or(|v| v.is_empty());
        let width = Var::Columns
            .read()
            .and_then(|c| c.to_str()?.parse::<usize>().ok())
            .unwrap_or(80)
            .clamp(30, 200);
        let mut screen = Screen { colour, width };
        screen.talk(&set, &args, &mut stdin.lock());
    } else {
        piped(&set, &args, &mut stdin.lock());
    }
    ExitCode::SUCCESS
}

/// The file and its subflows: their names (as given) and documents.
fn load_set(args: &Args) -> Result<(Vec<String>, Vec<Value>), String> {
    let document = load(&args.file)?;
    let mut names = vec![document.name.clone()];
    let mut documents = vec![document.document];
    for path in subflow_files(&args.subflows)? {
        if same_file(&path, &args.file) {
            continue;
        }
        let loaded = load(&path)?;
        names.push(loaded.name);
        documents.push(loaded.document);
    }
    Ok((names, documents))
}

/// What a line of input asks for.
#[derive(Debug, PartialEq, Eq)]
enum Input {
    Reply(Reply),
    Vars,
    Path,
    Restart,
    Quit,
    Help,
    Unknown(String),
}

/// Reads a line: a command, a number picking an item of the menu the bot waits at, or text.
fn read_input(line: &str, conversation: &Conversation<'_>) -> Input {
    let trimmed = line.trim();
    if let Some(command) = trimmed.strip_prefix('/') {
        let (name, rest) = command.split_once(' ').unwrap_or((command, ""));
        return match name {
            "tap" if !rest.trim().is_empty() => Input::Reply(Reply::Tap(rest.trim().to_owned())),
            // Everything after `/text `, spaces included.
            "text" => Input::Reply(Reply::Text(
                line.trim_start()
                    .strip_prefix("/text")
                    .map(|r| r.strip_prefix(' ').unwrap_or(r))
                    .unwrap_or("")
                    .to_owned(),
            )),
            "vars" => Input::Vars,
            "path" => Input::Path,
            "restart" => Input::Restart,
            "quit" | "exit" => Input::Quit,
            "help" => Input::Help,
            _ => Input::Unknown(trimmed.to_owned()),
        };
    }
    if let Ok(number) = trimmed.parse::<usize>()
        && let Some(id) = menu_items(conversation)
            .get(number.wrapping_sub(1))
            .cloned()
    {
        return Input::Reply(Reply::Tap(id));
    }
    Input::Reply(Reply::Text(line.to_owned()))
}

/// The ids of the items of the menu the bot waits at (empty unless it waits at one).
fn menu_items(conversation: &Conversation<'_>) -> Vec<String> {
    if !conversation.is_waiting() {
        return Vec::new();
    }
    let last = conversation.transcript_len();
    let entries = conversation.transcript_json(last.saturating_sub(1));
    let Some(send) = entries.last().and_then(|e| e.get("bot")) else {
        return Vec::new();
    };
    let ids = |items: Option<&Value>| -> Vec<String> {
        items
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|i| i.get("id").and_then(Value::as_str).map(str::to_owned))
            .collect()
    };
    match send.get("type").and_then(Value::as_str) {
        Some("buttons") => ids(send.get("buttons")),
        Some("list") => send
            .get("sections")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .flat_map(|s| ids(s.get("rows")))
            .collect(),
        _ => Vec::new(),
    }
}

fn variables_line(conversation: &Conversation<'_>) -> String {
    let variables: serde_json::Map<String, Value> = conversation
        .variables()
        .iter()
        .map(|(name, value): (&String, &Scalar)| (name.clone(), value.to_json()))
        .collect();
    format!("variables: {}\n", Value::Object(variables))
}

fn path_line(conversation: &Conversation<'_>) -> String {
    let result = conversation.result_json();
    let mut text = String::from("path:");
    let mut flow = "";
    for entry in result["path"].as_array().into_iter().flatten() {
        let this = entry["flow"].as_str().unwrap_or("");
        if this != flow {
            text.push_str(&format!(" [{this}]"));
            flow = this;
        }
        text.push(' ');
        text.push_str(entry["step"].as_str().unwrap_or(""));
    }
    text.push('\n');
    text
}

/// Stdin is not a terminal: one reply per line, the transcript at the end (and at a restart).
fn piped(set: &FlowSet, args: &Args, input: &mut dyn BufRead) {
    let mut conversation = Conversation::start(set, &args.start, &args.setup);
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = line.strip_suffix('\n').unwrap_or(&line);
        let text = text.strip_suffix('\r').unwrap_or(text);
        match read_input(text, &conversation) {
            Input::Reply(reply) => conversation.reply(&reply),
            Input::Vars => emit(&variables_line(&conversation)),
            Input::Path => emit(&path_line(&conversation)),
            Input::Restart => {
                emit(&transcript(set, &conversation));
                conversation = Conversation::start(set, &args.start, &args.setup);
            }
            Input::Quit => break,
            Input::Help => emit(&format!("{USAGE}\n")),
            Input::Unknown(command) => emit(&format!(
                "unknown command {command} (/help lists them; /text {command} sends it as typed)\n"
            )),
        }
    }
    emit(&transcript(set, &conversation));
}

fn transcript(set: &FlowSet, conversation: &Conversation<'_>) -> String {
    runtime::simulation_text(set.entry_flow(), &conversation.result_json(), None)
}

/// The terminal: bubbles, numbered items, colour.
struct Screen {
    colour: bool,
    width: usize,
}

const DIM: &str = "\x1b[2m";
const BOLD: &str = "\x1b[1m";
const CYAN: &str = "\x1b[36m";
const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";
const RESET: &str = "\x1b[0m";

impl Screen {
    fn paint(&self, style: &str, text: &str) -> String {
        if self.colour {
            format!("{style}{text}{RESET}")
        } else {
            text.to_owned()
        }
    }

    /// Words of `text` in lines of at most `width` characters (a longer word stays whole).
    fn wrap(text: &str, width: usize) -> Vec<String> {
        let mut lines = Vec::new();
        for paragraph in text.split('\n') {
            let mut line = String::new();
            for word in paragraph.split(' ') {
                let length = line.chars().count();
                if length > 0 && length + 1 + word.chars().count() > width {
                    lines.push(std::mem::take(&mut line));
                }
                if !line.is_empty() {
                    line.push(' ');
                }
                line.push_str(word);
            }
            lines.push(line);
        }
        lines
    }

    /// A bubble of the bot: a top line naming the step, the text, the extra lines.
    fn bubble(&self, place: &str, text: &str, extra: &[String]) -> String {
        let inner = self.width.saturating_sub(6).max(20);
        let mut out = String::new();
        let top = format!("╭─ {place} ");
        let rule = "─".repeat(inner.saturating_sub(top.chars().count() - 2).min(inner));
        out.push_str(&self.paint(DIM, &format!("{top}{rule}")));
        out.push('\n');
        for line in Self::wrap(text, inner) {
            out.push_str(&self.paint(DIM, "│ "));
            out.push_str(&self.paint(BOLD, &line));
            out.push('\n');
        }
        for line in extra {
            out.push_str(&self.paint(DIM, "│ "));
            out.push_str(line);
            out.push('\n');
        }
        out.push_str(&self.paint(DIM, &format!("╰{}", "─".repeat(inner + 1))));
        out.push('\n');
        out
    }

    fn entry(&self, entry: &Value, items: &mut usize) -> String {
        let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        let json = |v: Option<&Value>| v.map(Value::to_string).unwrap_or_default();
        if let Some(user) = entry.get("user") {
            let text = match (user.get("text"), user.get("tap")) {
                (Some(text), _) => text.as_str().unwrap_or("").to_owned(),
                (_, Some(tap)) => format!("[tap {}]", tap.as_str().unwrap_or("")),
                _ => String::new(),
            };
            let pad = self.width.saturating_sub(text.chars().count() + 6);
            return format!(
                "{}{}\n",
                " ".repeat(pad),
                self.paint(GREEN, &format!("you › {text}"))
            );
        }
        let place = format!("{}/{}", s(entry, "flow"), s(entry, "step"));
        if let Some(send) = entry.get("bot") {
            let mut extra = Vec::new();
            if matches!(
                send.get("type").and_then(Value::as_str),
                Some("buttons" | "list")
            ) {
                *items = 0;
            }
            let mut option = |id: &str, title: &str, description: Option<&str>| {
                *items += 1;
                let mut line = format!("{} {title}", self.paint(CYAN, &format!("{:>2}.", *items)));
                if let Some(description) = description {
                    line.push_str(&self.paint(DIM, &format!(" — {description}")));
                }
                line.push_str(&self.paint(DIM, &format!("  ({id})")));
                line
            };
            let text = match s(send, "type").as_str() {
                "buttons" | "list" => {
                    for button in send
                        .get("buttons")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        extra.push(option(&s(button, "id"), &s(button, "title"), None));
                    }
                    if let Some(sections) = send.get("sections").and_then(Value::as_array) {
                        extra.push(self.paint(DIM, &format!("[{}]", s(send, "button"))));
                        for section in sections {
                            if let Some(title) = section.get("title").and_then(Value::as_str) {
                                extra.push(self.paint(YELLOW, title));
                            }
                            for row in section
                                .get("rows")
                                .and_then(Value::as_array)
                                .into_iter()
                                .flatten()
                            {
                                let description = row.get("description").and_then(Value::as_str);
                                extra.push(option(&s(row, "id"), &s(row, "title"), description));
                            }
                        }
                    }
                    if let Some(footer) = send.get("footer").and_then(Value::as_str) {
                        extra.push(self.paint(DIM, footer));
                    }
                    s(send, "text")
                }
                "media" => {
                    let mut text = format!("[{}] {}", s(send, "media"), s(send, "url"));
                    if let Some(caption) = send.get("caption").and_then(Value::as_str) {
                        text.push_str(&format!(" — {caption}"));
                    }
                    if let Some(filename) = send.get("filename").and_then(Value::as_str) {
                        text.push_str(&format!(" ({filename})"));
                    }
                    text
                }
                "template" => format!(
                    "[template {} ({})] {}",
                    s(send, "name"),
                    s(send, "language"),
                    json(send.get("parameters"))
                ),
                "location" => {
                    let mut text = format!(
                        "[location {}, {}]",
                        json(send.get("latitude")),
                        json(send.get("longitude"))
                    );
                    for key in ["name", "address"] {
                        if let Some(v) = send.get(key).and_then(Value::as_str) {
                            text.push(' ');
                            text.push_str(v);
                        }
                    }
                    text
                }
                _ => s(send, "text"),
            };
            let text = match send.get("header").and_then(Value::as_str) {
                Some(header) => format!("{header}\n{text}"),
                None => text,
            };
            return self.bubble(&place, &text, &extra);
        }
        let what = match s(entry, "event").as_str() {
            "retry" => "not accepted: sent again".to_owned(),
            "save" => format!("saved {} = {}", s(entry, "var"), json(entry.get("value"))),
            "action" => match entry.get("result") {
                Some(result) => format!(
                    "{}({}) → {}",
                    s(entry, "handler"),
                    json(entry.get("args")),
                    result
                ),
                None => format!(
                    "{}({}) failed",
                    s(entry, "handler"),
                    json(entry.get("args"))
                ),
            },
            "delay" => {
                let typing = if entry.get("typing") == Some(&Value::Bool(true)) {
                    ", typing…"
                } else {
                    ""
                };
                format!("waits {} s{typing}", json(entry.get("seconds")))
            }
            "call" => format!("→ calls flow {}", s(entry, "to")),
            "return" => format!("← back to flow {}", s(entry, "to")),
            other => other.to_owned(),
        };
        format!("{}\n", self.paint(DIM, &format!("  · {what}  [{place}]")))
    }

    fn outcome(&self, conversation: &Conversation<'_>) -> String {
        let outcome = conversation.outcome();
        let json = outcome.to_json(conversation.set());
        let mut line = format!("— {}", outcome.kind.as_str());
        if let (Some(flow), Some(step)) = (json["flow"].as_str(), json["step"].as_str()) {
            line.push_str(&format!(" at {flow}/{step}"));
        }
        if let Some(queue) = json.get("queue") {
            line.push_str(&format!(", queue {queue}"));
        }
        if let Some(message) = json["message"].as_str() {
            line.push_str(&format!(": {message}"));
        }
        line.push_str(" — /restart or /quit");
        format!("{}\n", self.paint(YELLOW, &line))
    }

    /// The interactive loop.
    fn talk(&mut self, set: &FlowSet, args: &Args, input: &mut dyn BufRead) {
        let mut conversation = Conversation::start(set, &args.start, &args.setup);
        let mut shown = 0;
        let mut items = 0;
        let mut announced = false;
        emit(&self.paint(
            DIM,
            "(chat with your bot: /help for commands, /quit to stop)\n",
        ));
        let mut line = String::new();
        loop {
            let mut out = String::new();
            for entry in conversation.transcript_json(shown) {
                // What the user typed is on the screen already.
                if entry.get("user").is_some() && shown > 0 {
                    continue;
                }
                out.push_str(&self.entry(&entry, &mut items));
            }
            shown = conversation.transcript_len();
            if !conversation.is_waiting() && !announced {
                out.push_str(&self.outcome(&conversation));
                announced = true;
            }
            out.push_str(&self.paint(GREEN, "you › "));
            emit(&out);
            line.clear();
            match input.read_line(&mut line) {
                Ok(0) | Err(_) => {
                    emit("\n");
                    return;
                }
                Ok(_) => {}
            }
            let text = line.trim_end_matches(['\n', '\r']);
            match read_input(text, &conversation) {
                Input::Reply(_) if !conversation.is_waiting() => emit(&self.paint(
                    YELLOW,
                    &format!(
                        "the conversation is over ({}): /restart to start again, /quit to stop\n",
                        conversation.outcome().kind.as_str()
                    ),
                )),
                Input::Reply(reply) => {
                    if let Reply::Tap(id) = &reply {
                        emit(&self.paint(DIM, &format!("  (tap {id})\n")));
                    }
                    conversation.reply(&reply);
                }
                Input::Vars => emit(&variables_line(&conversation)),
                Input::Path => emit(&path_line(&conversation)),
                Input::Restart => {
                    conversation = Conversation::start(set, &args.start, &args.setup);
                    shown = 0;
                    announced = false;
                    emit(&self.paint(DIM, "(restarted)\n"));
                }
                Input::Quit => return,
                Input::Help => emit(&format!("{USAGE}\n")),
                Input::Unknown(command) => emit(&format!(
                    "unknown command {command} (/help lists them; /text {command} sends it as typed)\n"
                )),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use botmesh_flow_runtime::Mock;

    fn args(list: &[&str]) -> Result<Command, String> {
        parse_args(list.iter().map(OsString::from).collect())
    }

    #[test]
    fn arguments_are_read_and_checked() {
        let Ok(Command::Chat(parsed)) = args(&[
            "bot.json",
            "--message",
            "hola",
            "--contact",
            "Ana",
            "--var",
            "n=3",
            "--var",
            "name=Ana María",
            "--var",
            "s=\"7\"",
            "--handler",
            "h.a={\"returns\": 2}",
        ]) else {
            panic!("parsed");
        };
        assert_eq!(parsed.start, Start::Message("hola".into()));
        assert_eq!(parsed.setup.contact_name, "Ana");
        assert_eq!(parsed.setup.variables["n"], Scalar::Number(3.0));
        assert_eq!(
            parsed.setup.variables["name"],
            Scalar::String("Ana María".into())
        );
        assert_eq!(parsed.setup.variables["s"], Scalar::String("7".into()));
        assert_eq!(
            parsed.setup.handlers["h.a"],
            Mock::Returns(Scalar::Number(2.0))
        );
        let errors = [
            (
                &["bot.json", "--message", "a", "--flow", "b"][..],
                "give --message or --flow, not both (nor twice)",
            ),
            (
                &["bot.json", "--var", "x"][..],
                "--var takes NAME=VALUE, not \"x\"",
            ),
            (
                &["bot.json", "--var", "flow_id=1"][..],
                "--var: variables.flow_id is a built-in variable, which a simulation sets itself (use contact for contact_name and contact_phone)",
            ),
            (
                &["bot.json", "--handler", "h={\"returns\": [1]}"][..],
                "--handler: handlers.h.returns must be a string, number, boolean or null",
            ),
            (
                &["bot.json", "--handler", "h=nope"][..],
                "--handler h: not JSON (expected ident at line 1 column 2)",
            ),
            (&[][..], "no FILE to chat with"),
        ];
        for (list, message) in errors {
            assert_eq!(args(list), Err(message.to_owned()), "{list:?}");
        }
    }

    #[test]
    fn long_texts_wrap_at_words() {
        assert_eq!(
            Screen::wrap("one two three four", 9),
            ["one two", "three", "four"]
        );
        assert_eq!(Screen::wrap("a\nb", 9), ["a", "b"]);
    }
}
