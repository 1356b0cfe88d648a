//! `botmesh-mcp chat FILE [--subflows DIR|FILE]... [--message TEXT | --flow ID] [--contact NAME]
//! [--var NAME=VALUE]... [--handler NAME=JSON]... [--save-test FILE [--name NAME]]`: talk to a
//! bot in a terminal, with the simulator behind `flow_simulate`.
//!
//! On a terminal, the bot's messages are bubbles, buttons and rows are numbered (pick one by its
//! number or type its title), and commands tap an id, send text literally, show the variables
//! and the path, restart and quit; colours follow `NO_COLOR`, and the line is edited as the
//! terminal edits it. When stdin is not a terminal, each line is one reply (commands too) and
//! the transcript is printed at the end in `flow_simulate`'s text, so a conversation scripts.
//!
//! `--save-test FILE` keeps the conversation as a strict test case (`botmesh_flow_runtime::
//! record_case`, what `flow_simulate` with `asTest` returns) when chat exits, and `/save
//! [FILE]` at any moment: appended to FILE when it is a test file of the same flows (in its
//! own formatting), else FILE is created with `flows` relative to its folder. This is the one
//! file `chat` writes (an operator command of `WRITERS` in `xtask/src/tidy.rs`).
//!
//! Exit codes: 0 when the conversation ran (whatever its outcome), 1 when the document or a
//! subflow is invalid (its issues on stdout), 2 on a usage error, a file that cannot be read
//! or is not JSON, a `--save-test` FILE that is not a test file of the same flows, or a case
//! that cannot be written at the end.

use std::ffi::OsString;
use std::io::{BufRead, IsTerminal};
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use botmesh_flow_analyzer::{self as analyzer, Value};
use botmesh_flow_runtime::{
    self as runtime, Conversation, FlowSet, Reply, Scalar, Setup, Start, TestCase, TestFile,
};

use crate::check::{complain_as, emit, load, same_file, subflow_files};
use crate::env::Var;

const USAGE: &str = "usage: botmesh-mcp chat FILE [--subflows DIR|FILE]... [--message TEXT | --flow ID] [--contact NAME] [--var NAME=VALUE]... [--handler NAME=JSON]... [--save-test FILE [--name NAME]]

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
  --save-test FILE      when chat exits, keep the conversation as a strict test case:
                        appended to FILE when it is a test file of the same flows, else
                        FILE is created with flows relative to its folder
  --name NAME           the case's name (default: its first reply)
Replies: type text; a number picks that button or row; commands:
  /tap ID      tap a button or row by its id       /text TEXT  send TEXT as typed
  /vars        show the variables                  /path       show the steps run
  /save [FILE] save the conversation as a test case now (FILE: default --save-test's)
  /restart     start the conversation again        /quit       stop (also end of input)
On a terminal the bot's messages are drawn as bubbles (colour unless NO_COLOR is set);
with stdin not a terminal each line is a reply and the transcript is printed at the end.
Exit status: 0 ran, 1 invalid document, 2 usage error, unreadable file, or a test case
that cannot be saved.";

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
    /// `--save-test FILE`.
    save_test: Option<PathBuf>,
    /// `--name NAME`.
    name: Option<String>,
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
    let mut save_test = None;
    let mut name = None;
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
            Long("save-test") => {
                save_test = Some(PathBuf::from(parser.value().map_err(|e| e.to_string())?));
            }
            Long("name") => {
                name = Some(text(parser.value().map_err(|e| e.to_string())?, "--name")?);
            }
            Short('h') | Long("help") => return Ok(Command::Help),
            Value(value) if file.is_none() => file = Some(PathBuf::from(value)),
            Value(value) => return Err(format!("unexpected argument {value:?} (one FILE only)")),
            other => return Err(other.unexpected().to_string()),
        }
    }
    let file = file.ok_or("no FILE to chat with")?;
    if name.is_some() && save_test.is_none() {
        return Err("--name names the case of --save-test FILE; give both".to_owned());
    }
    if name.as_deref().is_some_and(|n| n.trim().is_empty()) {
        return Err("--name takes a name that is not empty".to_owned());
    }
    Ok(Command::Chat(Box::new(Args {
        file,
        subflows,
        start,
        setup,
        save_test,
        name,
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
    let SetFiles {
        names,
        documents,
        paths,
    } = loaded;
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
    let mut saver = Saver {
        flows: &paths,
        file: args.save_test.as_deref(),
        name: args.name.as_deref(),
        last: None,
    };
    // A FILE that cannot take the case is said now, before the conversation, not after it.
    if let Some(file) = saver.file
        && let Err(message) = target(file, &paths)
    {
        complain(&message, false);
        return ExitCode::from(2);
    }
    let stdin = std::io::stdin();
    let ended = if stdin.is_terminal() {
        let colour =
            std::io::stdout().is_terminal() && Var::NoColor.read().is_none_or(|v| v.is_empty());
        let width = Var::Columns
            .read()
            .and_then(|c| c.to_str()?.parse::<usize>().ok())
            .unwrap_or(80)
            .clamp(30, 200);
        let mut screen = Screen { colour, width };
        screen.talk(&set, &args, &mut saver, &mut stdin.lock())
    } else {
        piped(&set, &args, &mut saver, &mut stdin.lock())
    };
    // `--save-test`: the conversation going on when chat exits.
    if let Some(file) = saver.file {
        match saver.save(&ended, &args, file) {
            Ok(Some(message)) => complain(&message, false),
            Ok(None) => {}
            Err(message) => {
                complain(&message, false);
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::SUCCESS
}

/// The files of the chat's set: the FILE, then its subflows.
struct SetFiles {
    /// Each file's name, as given.
    names: Vec<String>,
    /// Each file's document.
    documents: Vec<Value>,
    /// Each file's path.
    paths: Vec<PathBuf>,
}

/// The file and its subflows: their names (as given), documents and paths.
fn load_set(args: &Args) -> Result<SetFiles, String> {
    let document = load(&args.file)?;
    let mut names = vec![document.name.clone()];
    let mut documents = vec![document.document];
    let mut paths = vec![args.file.clone()];
    for path in subflow_files(&args.subflows)? {
        if same_file(&path, &args.file) {
            continue;
        }
        let loaded = load(&path)?;
        names.push(loaded.name);
        documents.push(loaded.document);
        paths.push(path);
    }
    Ok(SetFiles {
        names,
        documents,
        paths,
    })
}

/// Where conversations are saved as test cases (`--save-test`, `/save`).
struct Saver<'a> {
    /// The chat's flow files: the FILE, then its subflows.
    flows: &'a [PathBuf],
    /// `--save-test FILE`.
    file: Option<&'a Path>,
    /// `--name NAME`.
    name: Option<&'a str>,
    /// The file the conversation was last saved to and the transcript length then, so the
    /// save at exit does not write the same conversation twice.
    last: Option<(PathBuf, usize)>,
}

impl Saver<'_> {
    /// Saves `conversation` to `file`; `Ok(None)` when it is already there, unchanged.
    fn save(
        &mut self,
        conversation: &Conversation<'_>,
        args: &Args,
        file: &Path,
    ) -> Result<Option<String>, String> {
        let length = conversation.transcript_len();
        if self
            .last
            .as_ref()
            .is_some_and(|(saved, at)| *at == length && same_file(saved, file))
        {
            return Ok(None);
        }
        let mut case = runtime::record_case(conversation, &args.start, &args.setup);
        if let Some(name) = self.name {
            name.clone_into(&mut case.name);
        }
        let message = save_case(file, self.flows, case)?;
        self.last = Some((file.to_path_buf(), length));
        Ok(Some(message))
    }

    /// Forgets what was saved (a restart begins another conversation).
    fn restart(&mut self) {
        self.last = None;
    }

    /// `/save [FILE]`: the message to show, or why nothing was saved.
    fn command(
        &mut self,
        conversation: &Conversation<'_>,
        args: &Args,
        file: Option<&str>,
    ) -> Result<String, String> {
        let file = match (file, self.file) {
            (Some(file), _) => PathBuf::from(file),
            (None, Some(file)) => file.to_path_buf(),
            (None, None) => {
                return Err("/save needs a FILE (or start chat with --save-test FILE)".to_owned());
            }
        };
        target(&file, self.flows)?;
        Ok(self.save(conversation, args, &file)?.unwrap_or_else(|| {
            format!(
                "this conversation is in {} already, as it is now",
                file.display()
            )
        }))
    }
}

/// An existing test file read for a case to be added: its text and model (`None`: FILE does
/// not exist, or is empty, and will be created).
fn existing(file: &Path) -> Result<Option<(String, TestFile)>, String> {
    let name = file.display().to_string();
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(format!("cannot read {name}: {}", error.kind())),
    };
    if text.trim().is_empty() {
        return Ok(None);
    }
    let not_test = |why: String| {
        format!("{name} is not a conversation test file ({why}); it is left as it is")
    };
    let value: Value =
        serde_json::from_str(&text).map_err(|error| not_test(format!("not JSON: {error}")))?;
    let parsed = TestFile::from_json(&value).map_err(|issues| {
        not_test(
            issues
                .first()
                .map_or_else(String::new, |i| format!("{}: {}", i.path, i.message)),
        )
    })?;
    Ok(Some((text, parsed)))
}

/// Whether a case of this chat can go to `file`: a new file in a folder that exists, or a
/// test file of the same flows (the same first flow, the same set of files).
fn target(file: &Path, flows: &[PathBuf]) -> Result<(), String> {
    let name = file.display().to_string();
    let Some((_, parsed)) = existing(file)? else {
        let folder = match file.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        if !folder.is_dir() {
            return Err(format!(
                "cannot write {name}: its folder {} does not exist",
                folder.display()
            ));
        }
        return Ok(());
    };
    let tested = crate::test::flow_paths(file, &parsed, &name)?;
    let same = tested
        .first()
        .zip(flows.first())
        .is_some_and(|(a, b)| same_file(a, b))
        && tested.iter().all(|t| flows.iter().any(|f| same_file(t, f)))
        && flows.iter().all(|f| tested.iter().any(|t| same_file(t, f)));
    if same {
        return Ok(());
    }
    let list = |paths: &[PathBuf]| {
        paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(format!(
        "{name} tests the flows {}, not this chat's {}: save the case to another file",
        list(&tested),
        list(flows)
    ))
}

/// Writes `case` to `file`: appended to the test file there (named apart from its cases), or
/// a new file whose `flows` are the chat's, relative to its folder. Returns what was done.
fn save_case(file: &Path, flows: &[PathBuf], mut case: TestCase) -> Result<String, String> {
    let name = file.display().to_string();
    let text = match existing(file)? {
        Some((text, parsed)) => {
            case.name =
                runtime::unique_name(&case.name, |n| parsed.tests.iter().any(|c| c.name == n));
            match runtime::append_case(&text, &case) {
                Some(text) => text,
                // A file the edit cannot read back: written anew, every case kept.
                None => {
                    let mut parsed = parsed;
                    parsed.tests.push(case.clone());
                    runtime::test_file_text(&parsed)
                }
            }
        }
        None => {
            let folder = match file.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => parent,
                _ => Path::new("."),
            };
            let relative = flows.iter().map(|f| relative_to(folder, f)).collect();
            runtime::test_file_text(&TestFile {
                schema: None,
                flows: Some(relative),
                strict: None,
                tests: vec![case.clone()],
            })
        }
    };
    std::fs::write(file, text).map_err(|e| format!("cannot write {name}: {}", e.kind()))?;
    let turns = case.turns.len();
    Ok(format!(
        "saved the conversation as the test case \"{}\" ({turns} turns) in {name}",
        case.name
    ))
}

/// An absolute path without `.` and `dir/..` segments.
fn absolute(path: &Path) -> PathBuf {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `file` as a path relative to `folder`, with `/` separators (absolute when no relative
/// path leads there, such as another drive).
fn relative_to(folder: &Path, file: &Path) -> String {
    let (folder, file) = (absolute(folder), absolute(file));
    let from: Vec<Component<'_>> = folder.components().collect();
    let to: Vec<Component<'_>> = file.components().collect();
    if from.first() != to.first() {
        return file.display().to_string().replace('\\', "/");
    }
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); from.len() - common];
    parts.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// What a line of input asks for.
#[derive(Debug, PartialEq, Eq)]
enum Input {
    Reply(Reply),
    Vars,
    Path,
    /// `/save [FILE]`.
    Save(Option<String>),
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
            "save" => Input::Save(
                Some(rest.trim())
                    .filter(|f| !f.is_empty())
                    .map(str::to_owned),
            ),
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

/// Stdin is not a terminal: one reply per line, the transcript at the end (and at a restart);
/// returns the conversation going on at the end. What `/save` did goes to stderr, so stdout
/// stays the transcript.
fn piped<'s>(
    set: &'s FlowSet<'s>,
    args: &Args,
    saver: &mut Saver<'_>,
    input: &mut dyn BufRead,
) -> Conversation<'s> {
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
            Input::Save(file) => match saver.command(&conversation, args, file.as_deref()) {
                Ok(message) | Err(message) => complain(&message, false),
            },
            Input::Restart => {
                emit(&transcript(set, &conversation));
                conversation = Conversation::start(set, &args.start, &args.setup);
                saver.restart();
            }
            Input::Quit => break,
            Input::Help => emit(&format!("{USAGE}\n")),
            Input::Unknown(command) => emit(&format!(
                "unknown command {command} (/help lists them; /text {command} sends it as typed)\n"
            )),
        }
    }
    emit(&transcript(set, &conversation));
    conversation
}

fn transcript(set: &FlowSet<'_>, conversation: &Conversation<'_>) -> String {
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

    /// The interactive loop; returns the conversation going on when it ends.
    fn talk<'s>(
        &mut self,
        set: &'s FlowSet<'s>,
        args: &Args,
        saver: &mut Saver<'_>,
        input: &mut dyn BufRead,
    ) -> Conversation<'s> {
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
                    return conversation;
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
                Input::Save(file) => {
                    let (style, message) = match saver.command(&conversation, args, file.as_deref())
                    {
                        Ok(message) => (DIM, message),
                        Err(message) => (YELLOW, message),
                    };
                    emit(&self.paint(style, &format!("({message})\n")));
                }
                Input::Restart => {
                    conversation = Conversation::start(set, &args.start, &args.setup);
                    saver.restart();
                    shown = 0;
                    announced = false;
                    emit(&self.paint(DIM, "(restarted)\n"));
                }
                Input::Quit => return conversation,
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
    fn save_test_and_its_name_are_read_and_paths_are_made_relative_to_the_test_file() {
        let Ok(Command::Chat(parsed)) = args(&[
            "bot.json",
            "--save-test",
            "tests/bot.flowtest.json",
            "--name",
            "a pizza",
        ]) else {
            panic!("parsed");
        };
        assert_eq!(
            parsed.save_test.as_deref(),
            Some(Path::new("tests/bot.flowtest.json"))
        );
        assert_eq!(parsed.name.as_deref(), Some("a pizza"));
        assert_eq!(
            args(&["bot.json", "--save-test", "t.json", "--name", " "]),
            Err("--name takes a name that is not empty".to_owned())
        );
        let from = |folder: &str, file: &str| relative_to(Path::new(folder), Path::new(file));
        assert_eq!(from("tests", "flows/bot.json"), "../flows/bot.json");
        assert_eq!(from(".", "bot.json"), "bot.json");
        assert_eq!(from("a/b", "a/c/../b/x.json"), "x.json");
        assert_eq!(from("a/b/c", "d.json"), "../../../d.json");
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
