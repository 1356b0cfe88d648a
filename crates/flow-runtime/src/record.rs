//! A conversation becomes a test (issue 42): the strict case of runtime §9 that replays a
//! conversation, and the text of a test file that holds it, written as the testing guide
//! writes cases (one line per turn).
//!
//! [`record_case`] turns a conversation (with the start and the setup it was started with)
//! into a [`TestCase`]: `strict: true`; its start, contact, initial variables and handler
//! mocks; each reply the bot consumed as a `user` turn (typed text as a string, a tap as
//! `{ "tap": ID }`); each message the bot sent as a `bot` turn with its `step` and its `text`
//! (the text [`message_text`] compares: a media's caption, a template's name and parameters, a
//! location's name and address); and an `expect` with the outcome, the step it stopped or
//! waits at when no `bot` turn already names it, and the final value of every variable the
//! conversation wrote (a reply or a handler saved, a `set` step set). A `bot` turn has no key
//! for a menu's buttons or rows (runtime §9 gives it `text`, `contains`, `type` and `step`),
//! so a menu is checked by its step and text, and the buttons and rows by id only where the
//! user tapped one. Each message is checked once, by one turn: a strict case must consume
//! every message, and nothing more is needed to make it fail on a change of what the bot says
//! or where it goes.
//!
//! [`case_text`] and [`test_file_text`] write the case and a new file; [`append_case`] inserts
//! a case into an existing test file's text after its last case, in that file's indentation
//! and line endings, leaving every other byte as it was.

use std::collections::{BTreeMap, BTreeSet};

use botmesh_flow_schema::parse_with_positions;
use botmesh_flow_schema::program::Body;
use serde_json::Value;

use crate::conversation::Conversation;
use crate::input::{Mock, Setup, Start};
use crate::testing::{
    BotSpec, ContactSpec, ExpectSpec, MockSpec, OutcomeSpec, ReplySpec, StartSpec, TestCase,
    TestFile, TurnSpec, message_text,
};
use crate::text::short;

/// The longest name [`case_name`] gives, in characters (then `…`).
const MAX_NAME_CHARS: usize = 60;

/// The strict case that replays `conversation`, which was started with `start` and `setup`
/// (see the module's documentation for what it holds); its name is [`case_name`]'s.
pub fn record_case(conversation: &Conversation<'_>, start: &Start, setup: &Setup) -> TestCase {
    let set = conversation.set();
    let transcript = conversation.transcript_json(0);
    // A first message is the case's `start`, not a turn.
    let skip = usize::from(matches!(start, Start::Message(_)));
    let mut turns = Vec::new();
    let mut last_step = None;
    for entry in transcript.iter().skip(skip) {
        if let Some(user) = entry.get("user") {
            let reply = match (user.get("tap"), user.get("text")) {
                (Some(Value::String(id)), _) => ReplySpec::Tap { tap: id.clone() },
                (_, Some(Value::String(text))) => ReplySpec::Text(text.clone()),
                _ => continue,
            };
            turns.push(TurnSpec::User { user: reply });
        } else if let Some(bot) = entry.get("bot") {
            let step = entry.get("step").and_then(Value::as_str).map(str::to_owned);
            last_step.clone_from(&step);
            turns.push(TurnSpec::Bot {
                bot: BotSpec {
                    text: Some(message_text(bot)),
                    step,
                    ..BotSpec::default()
                },
            });
        }
    }
    // What the conversation wrote: the saves (a reply, a menu's `save`, a handler) and the
    // `set` steps it ran, with their final values.
    let mut written: BTreeSet<&str> = transcript
        .iter()
        .filter(|entry| entry.get("event").and_then(Value::as_str) == Some("save"))
        .filter_map(|entry| entry.get("var").and_then(Value::as_str))
        .collect();
    for (flow, step) in conversation.path() {
        if let Body::Set { var, .. } = &set.step(flow, step).body {
            written.insert(var);
        }
    }
    let variables: BTreeMap<String, Value> = written
        .into_iter()
        .filter_map(|name| {
            let value = conversation.variables().get(name)?;
            Some((name.to_owned(), value.to_json()))
        })
        .collect();
    let outcome = conversation.outcome();
    let stopped = outcome
        .at
        .and_then(|(flow, step)| set.step_ids(flow).nth(step))
        .map(str::to_owned);
    let expect = ExpectSpec {
        outcome: Some(OutcomeSpec::of(outcome.kind)),
        // The last `bot` turn already says where a conversation that stopped on a message is.
        step: stopped.filter(|step| last_step.as_ref() != Some(step)),
        variables: (!variables.is_empty()).then_some(variables),
        path: None,
        not_path: None,
    };
    let defaults = Setup::default();
    let contact = ContactSpec {
        name: (setup.contact_name != defaults.contact_name).then(|| setup.contact_name.clone()),
        phone: (setup.contact_phone != defaults.contact_phone).then(|| setup.contact_phone.clone()),
    };
    TestCase {
        name: case_name(conversation, start),
        start: match start {
            Start::Default => None,
            Start::Flow(flow) => Some(StartSpec::Flow { flow: flow.clone() }),
            Start::Message(message) => Some(StartSpec::Message {
                message: message.clone(),
            }),
        },
        strict: Some(true),
        contact: (contact.name.is_some() || contact.phone.is_some()).then_some(contact),
        variables: (!setup.variables.is_empty()).then(|| {
            setup
                .variables
                .iter()
                .map(|(name, value)| (name.clone(), value.to_json()))
                .collect()
        }),
        handlers: (!setup.handlers.is_empty()).then(|| {
            setup
                .handlers
                .iter()
                .map(|(name, mock)| (name.clone(), mock_spec(mock)))
                .collect()
        }),
        turns,
        expect: Some(expect),
    }
}

fn mock_spec(mock: &Mock) -> MockSpec {
    match mock {
        Mock::Returns(value) => MockSpec::Returns {
            returns: value.to_json(),
        },
        Mock::ReturnsEach(values) => MockSpec::ReturnsEach {
            returns_each: values.iter().map(|v| v.to_json()).collect(),
        },
        Mock::Fails(reason) => MockSpec::Fails {
            fails: reason.clone(),
        },
    }
}

/// The name of a recorded case: its first reply that is not empty (a tap: the id tapped),
/// else the first message it started with, else `the start`; at most 60 characters (then
/// `…`).
pub fn case_name(conversation: &Conversation<'_>, start: &Start) -> String {
    let skip = usize::from(matches!(start, Start::Message(_)));
    let said = conversation
        .transcript_json(0)
        .iter()
        .skip(skip)
        .filter_map(|entry| entry.get("user"))
        .filter_map(|user| user.get("tap").or_else(|| user.get("text")))
        .filter_map(Value::as_str)
        .map(str::trim)
        .find(|text| !text.is_empty())
        .map(str::to_owned);
    let name = said.or_else(|| match start {
        Start::Message(message) if !message.trim().is_empty() => Some(message.trim().to_owned()),
        _ => None,
    });
    short(
        &name.unwrap_or_else(|| "the start".to_owned()),
        MAX_NAME_CHARS,
    )
}

/// `name`, or when `taken` says it is taken, `name (2)`, `name (3)`… the first that is not.
pub fn unique_name(name: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(name) {
        return name.to_owned();
    }
    (2..)
        .map(|n| format!("{name} ({n})"))
        .find(|candidate| !taken(candidate))
        .unwrap_or_default()
}

/// A JSON value on one line, spaced as the testing guide writes it: `{ "a": 1, "b": [1, 2] }`.
fn inline(value: &Value) -> String {
    match value {
        Value::Object(object) if object.is_empty() => "{}".to_owned(),
        Value::Object(object) => {
            let members: Vec<String> = object
                .iter()
                .map(|(key, value)| format!("{}: {}", quote(key), inline(value)))
                .collect();
            format!("{{ {} }}", members.join(", "))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(inline).collect();
            format!("[{}]", items.join(", "))
        }
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// `{ "k": v, … }` of members already written (nothing: `None`).
fn members(members: &[(&str, Option<String>)]) -> Option<String> {
    let written: Vec<String> = members
        .iter()
        .filter_map(|(key, value)| Some(format!("{}: {}", quote(key), value.as_ref()?)))
        .collect();
    (!written.is_empty()).then(|| format!("{{ {} }}", written.join(", ")))
}

fn json_of<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// One turn on one line: `{ "user": "77" }`, `{ "bot": { "step": "ask", "text": "…" } }`.
fn turn_line(turn: &TurnSpec) -> String {
    match turn {
        TurnSpec::User { user } => format!("{{ \"user\": {} }}", inline(&json_of(user))),
        TurnSpec::Bot { bot } => {
            let check = members(&[
                ("step", bot.step.as_deref().map(quote)),
                ("type", bot.kind.map(|k| quote(k.as_str()))),
                ("text", bot.text.as_deref().map(quote)),
                ("contains", bot.contains.as_deref().map(quote)),
            ]);
            format!(
                "{{ \"bot\": {} }}",
                check.unwrap_or_else(|| "{}".to_owned())
            )
        }
    }
}

fn expect_line(expect: &ExpectSpec) -> Option<String> {
    let strings = |list: &Option<Vec<String>>| list.as_ref().map(|l| inline(&json_of(l)));
    members(&[
        ("outcome", expect.outcome.map(|o| inline(&json_of(&o)))),
        ("step", expect.step.as_deref().map(quote)),
        (
            "variables",
            expect.variables.as_ref().map(|v| inline(&json_of(v))),
        ),
        ("path", strings(&expect.path)),
        ("notPath", strings(&expect.not_path)),
    ])
}

/// A case as the testing guide writes one: a key a line, one line per turn, every value on
/// its line. `indent` is the indentation of the case's braces, `unit` one level more; the
/// first line has no indentation (the caller writes it) and there is no final newline.
pub fn case_text(case: &TestCase, indent: &str, unit: &str, newline: &str) -> String {
    let inner = format!("{indent}{unit}");
    let mut lines = vec![format!("{}: {}", quote("name"), quote(&case.name))];
    let mut key = |name: &str, value: Option<String>| {
        if let Some(value) = value {
            lines.push(format!("{}: {value}", quote(name)));
        }
    };
    key("strict", case.strict.map(|s| s.to_string()));
    key("start", case.start.as_ref().map(|s| inline(&json_of(s))));
    key(
        "contact",
        case.contact.as_ref().and_then(|c| {
            members(&[
                ("name", c.name.as_deref().map(quote)),
                ("phone", c.phone.as_deref().map(quote)),
            ])
        }),
    );
    key(
        "variables",
        case.variables.as_ref().map(|v| inline(&json_of(v))),
    );
    key(
        "handlers",
        case.handlers.as_ref().map(|h| inline(&json_of(h))),
    );
    let turns = if case.turns.is_empty() {
        "[]".to_owned()
    } else {
        let items: Vec<String> = case
            .turns
            .iter()
            .map(|turn| format!("{inner}{unit}{}", turn_line(turn)))
            .collect();
        format!(
            "[{newline}{}{newline}{inner}]",
            items.join(&format!(",{newline}"))
        )
    };
    lines.push(format!("{}: {turns}", quote("turns")));
    if let Some(expect) = case.expect.as_ref().and_then(expect_line) {
        lines.push(format!("{}: {expect}", quote("expect")));
    }
    let body: Vec<String> = lines.iter().map(|line| format!("{inner}{line}")).collect();
    format!(
        "{{{newline}{}{newline}{indent}}}",
        body.join(&format!(",{newline}"))
    )
}

/// A whole test file as the testing guide writes one (two spaces a level, `\n`, a final
/// newline).
pub fn test_file_text(file: &TestFile) -> String {
    let mut lines = Vec::new();
    if let Some(schema) = &file.schema {
        lines.push(format!("  \"$schema\": {}", quote(schema)));
    }
    if let Some(flows) = &file.flows {
        lines.push(format!("  \"flows\": {}", inline(&json_of(flows))));
    }
    if let Some(strict) = file.strict {
        lines.push(format!("  \"strict\": {strict}"));
    }
    let cases: Vec<String> = file
        .tests
        .iter()
        .map(|case| format!("    {}", case_text(case, "    ", "  ", "\n")))
        .collect();
    if cases.is_empty() {
        lines.push("  \"tests\": []".to_owned());
    } else {
        lines.push(format!("  \"tests\": [\n{}\n  ]", cases.join(",\n")));
    }
    format!("{{\n{}\n}}\n", lines.join(",\n"))
}

/// The text of the test file `text` with `case` after its last case, written in the file's
/// own indentation and line endings; every other byte stays. `None` when `text` is not a
/// test file's JSON with a `tests` array (the caller then writes the file anew, or refuses).
pub fn append_case(text: &str, case: &TestCase) -> Option<String> {
    let (value, map) = parse_with_positions(text).ok()?;
    let count = value.get("tests")?.as_array()?.len();
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let tests = map.member("/tests")?;
    let key_indent = line_indent(text, tests.key.as_ref()?.start);
    let edited = if count == 0 {
        let unit = unit_of(&key_indent);
        let indent = format!("{key_indent}{unit}");
        let written = case_text(case, &indent, &unit, newline);
        let range = tests.value.clone();
        format!(
            "{}[{newline}{indent}{written}{newline}{key_indent}]{}",
            &text[..range.start],
            &text[range.end..]
        )
    } else {
        let last = map.member(&format!("/tests/{}", count - 1))?.value.clone();
        let starts_line = text[..last.start]
            .rsplit('\n')
            .next()
            .is_some_and(|before| before.trim().is_empty());
        let unit = unit_of(&key_indent);
        let indent = if starts_line {
            line_indent(text, last.start)
        } else {
            format!("{key_indent}{unit}")
        };
        let written = case_text(case, &indent, &unit, newline);
        format!(
            "{},{newline}{indent}{written}{}",
            &text[..last.end],
            &text[last.end..]
        )
    };
    // The edit must read back as the file with the case appended, and nothing else changed.
    let (mut expected, _) = parse_with_positions(text).ok()?;
    expected
        .get_mut("tests")?
        .as_array_mut()?
        .push(serde_json::to_value(case).ok()?);
    let (result, _) = parse_with_positions(&edited).ok()?;
    (result == expected).then_some(edited)
}

/// The whitespace that starts the line holding byte `at`.
fn line_indent(text: &str, at: usize) -> String {
    let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    text[start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// One level of the file's indentation: the `tests` key's own (a member of the top object),
/// else two spaces.
fn unit_of(key_indent: &str) -> String {
    if key_indent.is_empty() {
        "  ".to_owned()
    } else {
        key_indent.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FlowSet, Simulation, run, run_case};
    use serde_json::json;

    fn shop() -> Value {
        json!({ "version": 2, "id": "shop", "trigger": { "keywords": ["shop"] }, "steps": [
            { "id": "hi", "kind": "message", "text": "Hello {{contact_name}}" },
            { "id": "menu", "kind": "buttons", "text": "Pick", "save": "pick", "buttons": [
                { "id": "a", "title": "Apples", "next": "qty" },
                { "id": "b", "title": "Bread", "next": "bread" }] },
            { "id": "qty", "kind": "ask", "text": "How many?", "save": "qty", "input": "number",
              "retries": 1, "retryText": "A number, please.", "onFail": "bread" },
            { "id": "count", "kind": "set", "var": "counted", "value": true },
            { "id": "order", "kind": "action", "handler": "orders.create", "args": { "qty": "{{qty}}" }, "save": "order" },
            { "id": "check", "kind": "branch", "cases": [
                { "when": { "var": "qty", "op": "gt", "value": 4 }, "next": "many" }], "default": "few" },
            { "id": "many", "kind": "end", "text": "Many apples, order {{order}}." },
            { "id": "few", "kind": "end" },
            { "id": "bread", "kind": "end", "text": "Bread it is." }
        ]})
    }

    fn record(document: &Value, arguments: Value) -> TestCase {
        let set = FlowSet::new(&[document]).expect("valid");
        let simulation =
            Simulation::from_arguments(arguments.as_object().expect("object")).expect("input");
        let conversation = run(&set, &simulation).expect("runs");
        record_case(&conversation, &simulation.start, &simulation.setup)
    }

    fn passes(document: &Value, case: &TestCase) -> Option<crate::Failure> {
        let set = FlowSet::new(&[document]).expect("valid");
        let file = TestFile::from_json(&json!({ "tests": [case] })).expect("well-formed");
        assert!(file.check_against(&set).is_empty());
        run_case(&set, &file.tests[0], 0).failure
    }

    fn order() -> Value {
        json!({ "start": { "message": "shop" }, "contact": { "name": "Ana" },
                "variables": { "note": "gift" },
                "handlers": { "orders.create": { "returnsEach": ["A-1", "A-2"] } },
                "replies": [{ "tap": "a" }, "lots", "7"] })
    }

    #[test]
    fn a_conversation_becomes_a_strict_case_one_line_a_turn() {
        let case = record(&shop(), order());
        let text = case_text(&case, "", "  ", "\n");
        expect_test::expect![[r#"
            {
              "name": "a",
              "strict": true,
              "start": { "message": "shop" },
              "contact": { "name": "Ana" },
              "variables": { "note": "gift" },
              "handlers": { "orders.create": { "returnsEach": ["A-1", "A-2"] } },
              "turns": [
                { "bot": { "step": "hi", "text": "Hello Ana" } },
                { "bot": { "step": "menu", "text": "Pick" } },
                { "user": { "tap": "a" } },
                { "bot": { "step": "qty", "text": "How many?" } },
                { "user": "lots" },
                { "bot": { "step": "qty", "text": "A number, please." } },
                { "user": "7" },
                { "bot": { "step": "many", "text": "Many apples, order A-1." } }
              ],
              "expect": { "outcome": "ended", "variables": { "counted": true, "order": "A-1", "pick": "a", "qty": 7 } }
            }"#]]
        .assert_eq(&text);
        // The text is the case.
        let read: Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(read, serde_json::to_value(&case).expect("value"));
        assert_eq!(passes(&shop(), &case), None);
    }

    #[test]
    fn the_case_fails_on_the_turn_where_the_bot_says_or_goes_elsewhere() {
        let case = record(&shop(), order());
        // What the bot says: the retry text changed.
        let mut said = shop();
        said["steps"][2]["retryText"] = json!("Digits only.");
        let failure = passes(&said, &case).expect("fails");
        assert_eq!(failure.path, "/tests/0/turns/5");
        assert_eq!(failure.check, "turn 5 (strict)");
        assert_eq!(
            failure.actual, "[shop/qty] text: \"Digits only.\"",
            "{failure:?}"
        );
        // Where it goes: the Apples button leads to the bread.
        let mut went = shop();
        went["steps"][1]["buttons"][0]["next"] = json!("bread");
        let failure = passes(&went, &case).expect("fails");
        assert_eq!(failure.path, "/tests/0/turns/3");
        assert_eq!(failure.at.expect("at").step, "bread");
        // A message more: the greeting is sent twice.
        let mut more = shop();
        more["steps"][0]["next"] = json!("hi2");
        more["steps"].as_array_mut().expect("steps").insert(
            1,
            json!({ "id": "hi2", "kind": "message", "text": "Welcome", "next": "menu" }),
        );
        let failure = passes(&more, &case).expect("fails");
        assert_eq!(failure.path, "/tests/0/turns/1");
    }

    #[test]
    fn a_silent_stop_is_named_by_step_and_nothing_else_is_repeated() {
        let case = record(
            &shop(),
            json!({ "replies": [{ "text": "Apples" }, "2", "left over"] }),
        );
        let text = case_text(&case, "    ", "  ", "\n");
        expect_test::expect![[r#"
            {
                  "name": "Apples",
                  "strict": true,
                  "turns": [
                    { "bot": { "step": "hi", "text": "Hello Test User" } },
                    { "bot": { "step": "menu", "text": "Pick" } },
                    { "user": "Apples" },
                    { "bot": { "step": "qty", "text": "How many?" } },
                    { "user": "2" }
                  ],
                  "expect": { "outcome": "ended", "step": "few", "variables": { "counted": true, "order": null, "pick": "a", "qty": 2 } }
                }"#]]
        .assert_eq(&text);
        assert_eq!(passes(&shop(), &case), None);
        // Waiting at a menu: the last message already names the step.
        let waiting = record(&shop(), json!({}));
        assert_eq!(waiting.name, "the start");
        let expect = waiting.expect.expect("expect");
        assert_eq!(expect.outcome, Some(OutcomeSpec::Waiting));
        assert_eq!(expect.step, None);
        assert_eq!(expect.variables, None);
    }

    #[test]
    fn names_come_from_the_first_reply_and_stay_unique() {
        let case = record(&shop(), json!({ "start": { "message": "shop" } }));
        assert_eq!(case.name, "shop");
        let long = "x".repeat(80);
        let case = record(&shop(), json!({ "replies": ["", long] }));
        assert_eq!(case.name, format!("{}…", "x".repeat(60)));
        let taken = ["a", "a (2)"];
        assert_eq!(unique_name("a", |n| taken.contains(&n)), "a (3)");
        assert_eq!(unique_name("b", |n| taken.contains(&n)), "b");
    }

    #[test]
    fn a_case_is_appended_in_the_files_own_formatting() {
        let case = record(&shop(), json!({ "replies": ["Bread"] }));
        let file = "{\r\n\t\"flows\": [\"shop.json\"],\r\n\t\"tests\": [\r\n\t\t{ \"name\": \"first\", \"turns\": [] }\r\n\t]\r\n}\r\n";
        let appended = append_case(file, &case).expect("appended");
        expect_test::expect![[r#"
            {
            	"flows": ["shop.json"],
            	"tests": [
            		{ "name": "first", "turns": [] },
            		{
            			"name": "Bread",
            			"strict": true,
            			"turns": [
            				{ "bot": { "step": "hi", "text": "Hello Test User" } },
            				{ "bot": { "step": "menu", "text": "Pick" } },
            				{ "user": "Bread" },
            				{ "bot": { "step": "bread", "text": "Bread it is." } }
            			],
            			"expect": { "outcome": "ended", "variables": { "pick": "b" } }
            		}
            	]
            }
        "#]]
        .assert_eq(&appended.replace("\r\n", "\n"));
        assert_eq!(
            appended.matches("\r\n").count(),
            appended.matches('\n').count()
        );
        // An empty `tests` gets the case on lines of its own; a file on one line too.
        let empty = append_case("{\n  \"tests\": []\n}\n", &case).expect("appended");
        assert!(
            empty.starts_with("{\n  \"tests\": [\n    {\n      \"name\": \"Bread\","),
            "{empty}"
        );
        assert!(empty.ends_with("    }\n  ]\n}\n"), "{empty}");
        let compact = append_case("{\"tests\":[{\"name\":\"x\"}]}", &case).expect("appended");
        let read = TestFile::from_json(&serde_json::from_str(&compact).expect("JSON"))
            .expect("a test file");
        assert_eq!(read.tests.len(), 2);
        assert_eq!(append_case("{\"tests\": 3}", &case), None);
        assert_eq!(append_case("not json", &case), None);
    }

    #[test]
    fn a_new_file_is_written_as_the_guide_writes_one() {
        let case = record(&shop(), json!({ "replies": ["Bread"] }));
        let file = TestFile {
            schema: None,
            flows: Some(vec!["shop.json".to_owned()]),
            strict: None,
            tests: vec![case],
        };
        let text = test_file_text(&file);
        assert!(
            text.starts_with("{\n  \"flows\": [\"shop.json\"],\n  \"tests\": [\n    {\n      \"name\": \"Bread\",\n      \"strict\": true,\n      \"turns\": [\n        { \"bot\""),
            "{text}"
        );
        let read = TestFile::from_json(&serde_json::from_str(&text).expect("JSON")).expect("file");
        assert_eq!(read, file);
    }
}
