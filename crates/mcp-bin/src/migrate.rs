//! `botmesh-mcp migrate [--write] FILE...`: brings flow documents of version 0 or 1 (the 2023
//! dashboard's exports too) to version 2 with `botmesh_flow_schema::migrate`, the engine of the
//! `flow_migrate` tool, so the command line and an agent migrate the same way.
//!
//! Without `--write`, each version 2 document goes to stdout (several files: one after the
//! other, a stream of JSON texts as `jq` prints them) and what was done goes to stderr, so
//! `botmesh-mcp migrate old.json > new.json` keeps only the document. With `--write`, each
//! file that changes is rewritten in place and what was done goes to stdout. What was done is,
//! per file, `FILE: version 0 → 2`, every change as a sentence (`  0 → 1: …`), then each
//! validation issue the version 2 document still has (`FILE: error[invalid] POINTER: …`, as
//! `check` writes them, without a position: the pointers are into the new document).
//!
//! The document is written anew, as a person would lay it out: the indentation of the file
//! (two spaces, four, or tabs, read from its first indented line), its line ends (`\r\n`
//! stays), a final newline, and keys in the order of the format (`$schema`, `version`, `id`,
//! `metadata`, `trigger`, `variables`, `steps`; in a step `id`, `kind`, then its fields in the
//! order the contract declares them; elsewhere `id`, `type`, `var`, `op`, `value`, `title`,
//! `description`, `text`, `when`, `rows`, `next`, then the rest alphabetically). A document
//! already at version 2 is left as it is (printed unchanged without `--write`).
//!
//! Exit codes, as `check`'s: 0 every file is a valid version 2 document now; 1 a file is not
//! JSON, cannot be migrated (not an object, a version that is not 0, 1 or 2) or its version 2
//! document still has validation issues (it is written all the same with `--write`: nothing
//! is lost, and `check` then shows the issues with their lines); 2 a usage error or a file
//! that cannot be read or written. Every file is read before anything is written.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use botmesh_flow_analyzer::{Value, parse_with_positions};
use botmesh_flow_schema::{CURRENT_VERSION, StepKind, TOP_LEVEL_KEYS};

use crate::check::{complain_as, emit};

const USAGE: &str = "usage: botmesh-mcp migrate [--write] FILE...

Migrates flow documents of version 0 or 1 to version 2 (the flow_migrate engine).
  --write   rewrite each FILE in place; without it the version 2 documents go to stdout and
            the changes to stderr
Prints each change as a sentence, then the issues the version 2 document still has.
Exit status: 0 every file is a valid version 2 document, 1 a file is not JSON, cannot be
migrated or still has issues, 2 usage error or a file that cannot be read or written.";

/// The usage text, which the top-level `--help` quotes.
pub(crate) fn usage() -> &'static str {
    USAGE
}

#[derive(Debug, PartialEq, Eq)]
struct Args {
    write: bool,
    files: Vec<PathBuf>,
}

#[derive(Debug, PartialEq, Eq)]
enum Command {
    Migrate(Args),
    Help,
}

fn parse_args(args: Vec<OsString>) -> Result<Command, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut write = false;
    let mut files = Vec::new();
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Long("write") => write = true,
            Short('h') | Long("help") => return Ok(Command::Help),
            Value(file) => files.push(PathBuf::from(file)),
            other => return Err(other.unexpected().to_string()),
        }
    }
    if files.is_empty() {
        return Err("no FILE to migrate".to_owned());
    }
    Ok(Command::Migrate(Args { write, files }))
}

/// What migrating one file gave.
#[derive(Debug, PartialEq, Eq)]
struct Migrated {
    /// The text to print or write: the version 2 document (`None`: nothing to write, the file
    /// could not be migrated).
    text: Option<String>,
    /// Whether the text differs from the file's (a version 0 or 1 document).
    changed: bool,
    /// What was done and what is left, one line each.
    lines: Vec<String>,
    /// Not migrated, or issues left.
    failed: bool,
}

/// Migrates the text of file `name`.
fn migrate_text(name: &str, text: &str) -> Migrated {
    let failure = |line: String| Migrated {
        text: None,
        changed: false,
        lines: vec![line],
        failed: true,
    };
    let document = match parse_with_positions(text) {
        Ok((document, _)) => document,
        Err(error) => {
            return failure(format!(
                "{name}:{}:{}: not JSON: {}",
                error.line, error.column, error.reason
            ));
        }
    };
    let migration = match botmesh_flow_schema::migrate(&document, CURRENT_VERSION) {
        Ok(migration) => migration,
        Err(error) => return failure(format!("{name}: cannot migrate: {error}")),
    };
    let mut lines = Vec::new();
    let changed = migration.from != migration.to;
    if changed {
        lines.push(format!(
            "{name}: version {} → {}",
            migration.from, migration.to
        ));
        for step in &migration.applied {
            for change in &step.changes {
                lines.push(format!("  {} → {}: {change}", step.from, step.to));
            }
        }
    } else {
        lines.push(format!(
            "{name}: already version {CURRENT_VERSION}, nothing to migrate"
        ));
    }
    for issue in &migration.issues {
        let path = if issue.path.is_empty() {
            "(root)"
        } else {
            &issue.path
        };
        lines.push(format!("{name}: error[invalid] {path}: {}", issue.message));
    }
    let text = if changed {
        write_document(&migration.document, &Layout::of(text))
    } else {
        text.to_owned()
    };
    Migrated {
        text: Some(text),
        changed,
        lines,
        failed: !migration.issues.is_empty(),
    }
}

/// How the file was laid out: its indentation unit and line end.
struct Layout {
    indent: String,
    newline: &'static str,
}

impl Layout {
    /// The indentation of the first indented line (two spaces when none is), and `\r\n` when
    /// the text uses it.
    fn of(text: &str) -> Layout {
        let indent = text
            .lines()
            .skip(1)
            .map(|line| {
                let width = line.len() - line.trim_start_matches([' ', '\t']).len();
                &line[..width]
            })
            .find(|lead| !lead.is_empty())
            .map_or("  ".to_owned(), |lead| {
                if lead.starts_with('\t') {
                    "\t".to_owned()
                } else {
                    lead.to_owned()
                }
            });
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        Layout { indent, newline }
    }
}

/// Where an object is in the document: it decides the order of its keys.
#[derive(Clone, Copy)]
enum Place {
    /// The document.
    Top,
    /// A step (the items of `steps`).
    Step,
    /// An object whose keys are names the author chose (`variables`, `args`): alphabetical.
    Named,
    /// Anything else (a button, a case, a condition, `metadata`…).
    Other,
}

const OTHER_KEYS: [&str; 11] = [
    "id",
    "type",
    "var",
    "op",
    "value",
    "title",
    "description",
    "text",
    "when",
    "rows",
    "next",
];

/// The keys of an object in the order they are written: those the place ranks first, in its
/// order, then the rest alphabetically.
fn ordered_keys(map: &serde_json::Map<String, Value>, place: Place) -> Vec<&String> {
    let step_fields;
    let ranked: &[&str] = match place {
        Place::Top => &TOP_LEVEL_KEYS,
        Place::Other => &OTHER_KEYS,
        Place::Named => &[],
        Place::Step => {
            step_fields = map
                .get("kind")
                .and_then(Value::as_str)
                .and_then(StepKind::parse)
                .map_or(&["id", "kind"][..], StepKind::fields);
            step_fields
        }
    };
    let rank = |key: &str| {
        ranked
            .iter()
            .position(|k| *k == key)
            .unwrap_or(ranked.len())
    };
    let mut keys: Vec<&String> = map.keys().collect();
    // `map` iterates in key order, and the sort is stable: the unranked stay alphabetical.
    keys.sort_by_key(|key| rank(key));
    keys
}

/// The document as text, laid out as `layout` says, ending with a line end.
fn write_document(document: &Value, layout: &Layout) -> String {
    let mut out = String::new();
    write_value(&mut out, document, layout, 0, Place::Top);
    out.push_str(layout.newline);
    out
}

fn write_value(out: &mut String, value: &Value, layout: &Layout, depth: usize, place: Place) {
    let pad = |out: &mut String, depth: usize| {
        out.push_str(layout.newline);
        for _ in 0..depth {
            out.push_str(&layout.indent);
        }
    };
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('{');
            for (i, key) in ordered_keys(map, place).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                pad(out, depth + 1);
                let _ = write!(out, "{}: ", Value::from(key.as_str()));
                let child = match (place, key.as_str()) {
                    (Place::Top, "steps") => Place::Step,
                    (Place::Top, "variables") | (Place::Step, "args") => Place::Named,
                    _ => Place::Other,
                };
                write_value(out, &map[key.as_str()], layout, depth + 1, child);
            }
            pad(out, depth);
            out.push('}');
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                pad(out, depth + 1);
                write_value(out, item, layout, depth + 1, place);
            }
            pad(out, depth);
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

fn complain(message: &str, usage: bool) {
    complain_as("migrate", message, usage.then_some(USAGE));
}

#[expect(
    clippy::print_stderr,
    reason = "migrate is a CLI: without --write, what was done goes to stderr beside the document"
)]
fn tell(lines: &[String]) {
    for line in lines {
        eprintln!("{line}");
    }
}

/// Runs `botmesh-mcp migrate` with the arguments that follow `migrate`.
pub(crate) fn run(args: Vec<OsString>) -> ExitCode {
    let args = match parse_args(args) {
        Ok(Command::Migrate(args)) => args,
        Ok(Command::Help) => {
            emit(&format!("{USAGE}\n"));
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            complain(&message, true);
            return ExitCode::from(2);
        }
    };
    let mut texts = Vec::with_capacity(args.files.len());
    for path in &args.files {
        match std::fs::read_to_string(path) {
            Ok(text) => texts.push(text),
            Err(error) => {
                complain(
                    &format!("cannot read {}: {}", path.display(), error.kind()),
                    false,
                );
                return ExitCode::from(2);
            }
        }
    }
    let mut failed = false;
    for (path, text) in args.files.iter().zip(&texts) {
        let name = path.display().to_string();
        let migrated = migrate_text(&name, text);
        failed |= migrated.failed;
        if !args.write {
            tell(&migrated.lines);
            if let Some(text) = &migrated.text {
                emit(text);
            }
            continue;
        }
        if migrated.changed
            && let Some(text) = &migrated.text
            && let Err(error) = std::fs::write(path, text)
        {
            complain(&format!("cannot write {name}: {}", error.kind()), false);
            return ExitCode::from(2);
        }
        let mut lines = migrated.lines;
        if migrated.changed {
            lines[0].push_str(" (rewritten)");
        }
        let mut report = lines.join("\n");
        report.push('\n');
        emit(&report);
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn parses_write_and_files() {
        assert_eq!(
            parse_args(os(&["a.json", "--write", "b.json"])),
            Ok(Command::Migrate(Args {
                write: true,
                files: vec![PathBuf::from("a.json"), PathBuf::from("b.json")],
            }))
        );
        assert_eq!(parse_args(os(&[])), Err("no FILE to migrate".to_owned()));
        assert_eq!(
            parse_args(os(&["--in-place", "a.json"])),
            Err("invalid option '--in-place'".to_owned())
        );
    }

    #[test]
    fn a_legacy_export_becomes_a_version_2_document_laid_out_like_the_file() {
        let legacy = "{\n    \"name\": \"Soporte\",\n    \"steps\": [\n        { \"type\": \"text\", \"message\": \"Hola\", \"goto\": \"bye\" },\n        { \"id\": \"bye\", \"type\": \"end\" }\n    ]\n}\n";
        let migrated = migrate_text("legacy.json", legacy);
        assert!(!migrated.failed, "{:?}", migrated.lines);
        assert!(migrated.changed);
        expect_test::expect![[r#"
            {
                "version": 2,
                "id": "soporte",
                "metadata": {
                    "title": "Soporte"
                },
                "steps": [
                    {
                        "id": "s1",
                        "kind": "message",
                        "text": "Hola",
                        "next": "bye"
                    },
                    {
                        "id": "bye",
                        "kind": "end"
                    }
                ]
            }
        "#]]
        .assert_eq(migrated.text.as_deref().unwrap_or(""));
        expect_test::expect![[r#"
            legacy.json: version 0 → 2
              0 → 1: set "version" to 1
              0 → 1: set "id" to "soporte" from "name" "Soporte"
              0 → 1: renamed "type" to "kind" in 2 steps
              0 → 1: renamed "message" to "text" in 1 step
              0 → 1: renamed "goto" to "next" in 1 step
              0 → 1: changed kind "text" to "message" in 1 step
              0 → 1: step /steps/0 had no id and is now "s1"
              1 → 2: set "version" to 2
              1 → 2: moved "name" to "metadata.title"
        "#]]
        .assert_eq(&(migrated.lines.join("\n") + "\n"));
        // The result is what flow_migrate returns, and it validates.
        let (document, _) = parse_with_positions(migrated.text.as_deref().unwrap()).unwrap();
        let expected =
            botmesh_flow_schema::migrate(&serde_json::from_str(legacy).unwrap(), CURRENT_VERSION)
                .unwrap()
                .document;
        assert_eq!(document, expected);
        assert!(botmesh_flow_schema::validate(&document).valid);
    }

    #[test]
    fn tabs_and_crlf_stay_and_version_2_is_left_alone() {
        let v1 = "{\r\n\t\"version\": 1,\r\n\t\"id\": \"a\",\r\n\t\"steps\": [{ \"id\": \"w\", \"kind\": \"delay\", \"ms\": 1500 }]\r\n}";
        let text = migrate_text("a.json", v1).text.unwrap();
        assert!(text.starts_with("{\r\n\t\"version\": 2,\r\n\t\"id\": \"a\",\r\n\t\"steps\": [\r\n\t\t{\r\n\t\t\t\"id\": \"w\",\r\n\t\t\t\"kind\": \"delay\",\r\n\t\t\t\"seconds\": 2"), "{text:?}");
        assert!(text.ends_with("}\r\n"));
        let v2 = "{\"version\": 2, \"id\": \"a\", \"steps\": [{\"id\": \"e\", \"kind\": \"end\"}]}";
        let same = migrate_text("b.json", v2);
        assert_eq!(
            (same.text.as_deref(), same.changed, same.failed),
            (Some(v2), false, false)
        );
        assert_eq!(
            same.lines,
            ["b.json: already version 2, nothing to migrate"]
        );
    }

    #[test]
    fn what_cannot_be_migrated_or_is_still_invalid_fails_naming_why() {
        let not_json = migrate_text("x.json", "{\n  \"steps\": [,]\n}");
        assert!(not_json.failed && not_json.text.is_none());
        assert_eq!(not_json.lines, ["x.json:2:13: not JSON: expected value"]);
        let bad = migrate_text("y.json", "{\"version\": 7, \"steps\": []}");
        assert_eq!(
            bad.lines,
            ["y.json: cannot migrate: version must be an integer from 0 to 2, found 7"]
        );
        let array = migrate_text("z.json", "[]");
        assert!(array.failed && array.text.is_none());
        // Migrated, but a step kind no version knows stays: written, with its issue.
        let odd = migrate_text(
            "odd.json",
            "{\"name\": \"Odd\", \"steps\": [{\"id\": \"a\", \"type\": \"teleport\"}]}",
        );
        assert!(odd.failed && odd.changed && odd.text.is_some());
        assert!(
            odd.lines.iter().any(|l| l.starts_with(
                "odd.json: error[invalid] /steps/0/kind: unknown step kind \"teleport\""
            )),
            "{:?}",
            odd.lines
        );
    }
}
