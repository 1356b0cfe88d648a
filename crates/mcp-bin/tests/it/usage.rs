//! The command line's documentation against its parsers, so that a flag added, renamed or
//! removed without its documentation fails here, naming the file and the flag:
//! - every flag a parser accepts (its `Long("…")`/`Short('…')` patterns, and `http::FLAGS`) is
//!   in its command's `--help`, a subcommand's also in its usage lines, and in the guide page
//!   that documents the command, English and Spanish;
//! - every flag a `--help` names is accepted (the binary, given it, never answers "invalid
//!   option");
//! - the top-level `--help` quotes each subcommand's usage lines, and the README shows the
//!   top-level usage lines exactly (generated: `UPDATE_EXPECT=1` rewrites them).

use std::fs;
use std::path::Path;

use crate::util::command;

/// The binary's sources.
const SOURCES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

/// The repository's root.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The command that rewrites the README's usage lines.
const REGENERATE: &str = "UPDATE_EXPECT=1 cargo test -p botmesh-mcp-cli --test it usage";

/// The page (under `docs/`, and its `docs/es/` mirror) that documents each subcommand's options.
const GUIDES: &[(&str, &str)] = &[
    ("check", "reference/tools.md"),
    ("render", "guide/rendering.md"),
    ("chat", "guide/running.md"),
    ("test", "guide/testing.md"),
    ("migrate", "reference/tools.md"),
];

/// What the binary prints on stdout for `args`.
fn stdout_of(args: &[&str]) -> String {
    let output = command().args(args).output().expect("run botmesh-mcp");
    String::from_utf8(output.stdout).expect("UTF-8 help")
}

/// Whether the binary refuses `args` for its last argument being no option it knows.
fn refuses_last(args: &[&str]) -> bool {
    let output = command().args(args).output().expect("run botmesh-mcp");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let last = args.last().copied().unwrap_or_default();
    stderr.contains(&format!("invalid option '{last}'"))
}

/// The options a text names (`-o`, `--max-size`), in order, without repeats: a `-` that does
/// not follow a letter, digit or `-`, then an optional `-`, a letter and letters, digits or `-`.
fn flags_in(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut found: Vec<String> = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let after_word = at > 0 && (chars[at - 1].is_alphanumeric() || chars[at - 1] == '-');
        if chars[at] != '-' || after_word {
            at += 1;
            continue;
        }
        let dashes = if chars.get(at + 1) == Some(&'-') {
            2
        } else {
            1
        };
        let start = at + dashes;
        let mut end = start;
        while chars
            .get(end)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '-')
        {
            end += 1;
        }
        if chars.get(start).is_some_and(char::is_ascii_alphabetic) {
            let flag: String = chars[at..end].iter().collect();
            let flag = flag.trim_end_matches('-').to_owned();
            if !found.contains(&flag) {
                found.push(flag);
            }
        }
        at = end.max(at + 1);
    }
    found
}

/// A source file's product code: before its `#[cfg(test)] mod tests`.
fn product_code(source: &str) -> &str {
    source
        .split("#[cfg(test)]\nmod tests {")
        .next()
        .unwrap_or(source)
}

/// The options a parser accepts, one group per line of source (the spellings of one match
/// arm: `Short('o') | Long("output")`).
fn accepted(source: &str) -> Vec<Vec<String>> {
    let mut groups = Vec::new();
    for line in product_code(source).lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let mut group = Vec::new();
        for (pattern, open, close, dashes) in [
            ("Long(\"", "Long(\"", '"', "--"),
            ("Short('", "Short('", '\'', "-"),
        ] {
            for (at, _) in code.match_indices(pattern) {
                let rest = &code[at + open.len()..];
                if let Some(end) = rest.find(close) {
                    group.push(format!("{dashes}{}", &rest[..end]));
                }
            }
        }
        if !group.is_empty() {
            groups.push(group);
        }
    }
    groups
}

/// The string literals of `http.rs`'s `FLAGS`, as options.
fn http_flags() -> Vec<String> {
    let source = fs::read_to_string(Path::new(SOURCES).join("http.rs")).expect("http.rs");
    let list = source
        .split_once("pub(crate) const FLAGS: &[&str] = &[")
        .and_then(|(_, rest)| rest.split_once("];"))
        .map(|(list, _)| list)
        .expect("http.rs declares FLAGS");
    let flags: Vec<String> = list
        .split('"')
        .skip(1)
        .step_by(2)
        .map(|name| format!("--{name}"))
        .collect();
    assert!(flags.len() > 5, "FLAGS read: {flags:?}");
    flags
}

/// The lines of the top-level `--help`'s usage block, two spaces in.
fn usage_block(help: &str) -> Vec<&str> {
    help.split_once("Usage:\n")
        .map(|(_, rest)| rest.split("\n\n").next().unwrap_or(rest))
        .expect("the help has a usage block")
        .lines()
        .collect()
}

/// The subcommands the top-level usage lines name that have a module of their own.
fn subcommands(help: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for line in usage_block(help) {
        let Some(rest) = line.trim_start().strip_prefix("botmesh-mcp ") else {
            continue;
        };
        let word: String = rest.chars().take_while(char::is_ascii_lowercase).collect();
        let own = Path::new(SOURCES).join(format!("{word}.rs")).exists();
        if !word.is_empty() && own && !names.contains(&word) {
            names.push(word);
        }
    }
    names
}

/// The Markdown of `docs/{page}` and of `docs/es/{page}`.
fn guide(page: &str) -> [(String, String); 2] {
    [format!("docs/{page}"), format!("docs/es/{page}")].map(|shown| {
        let text = fs::read_to_string(Path::new(ROOT).join(&shown))
            .unwrap_or_else(|_| panic!("{shown} is readable"));
        (shown, text)
    })
}

/// Whether `group` is the help option (a subcommand's help need not name itself).
fn is_help(group: &[String]) -> bool {
    group.iter().any(|flag| flag == "--help")
}

#[test]
fn every_subcommand_flag_is_documented_and_every_documented_flag_is_accepted() {
    let top = stdout_of(&["--help"]);
    let names = subcommands(&top);
    assert!(names.len() >= 4, "subcommands found: {names:?}");
    let mut failures = Vec::new();
    for name in &names {
        let file = format!("crates/mcp-bin/src/{name}.rs");
        let usage = stdout_of(&[name, "--help"]);
        let lines = usage.split("\n\n").next().unwrap_or(&usage);
        let (named, in_lines) = (flags_in(&usage), flags_in(lines));
        let source = fs::read_to_string(Path::new(ROOT).join(&file)).expect("the module");
        let groups = accepted(&source);
        assert!(!groups.is_empty(), "no options read from {file}");
        let guides = GUIDES.iter().find(|(command, _)| command == name).map_or_else(
            || {
                failures.push(format!(
                    "`botmesh-mcp {name}`: name the page that documents its options in GUIDES (crates/mcp-bin/tests/it/usage.rs)"
                ));
                Vec::new()
            },
            |(_, page)| guide(page).to_vec(),
        );
        for group in groups.iter().filter(|group| !is_help(group)) {
            for flag in group.iter().filter(|flag| !named.contains(flag)) {
                failures.push(format!(
                    "{file} accepts {flag}, which `botmesh-mcp {name} --help` does not name: add it to USAGE in {file}"
                ));
            }
            if !group.iter().any(|flag| in_lines.contains(flag)) {
                failures.push(format!(
                    "{file} accepts {}, which its usage lines (the first paragraph of USAGE, quoted by the top-level --help and the README) do not name",
                    group.join(" | ")
                ));
            }
            for (shown, text) in &guides {
                if !group.iter().any(|flag| flags_in(text).contains(flag)) {
                    failures.push(format!(
                        "{shown} does not document {} of `botmesh-mcp {name}` ({file})",
                        group.join(" | ")
                    ));
                }
            }
        }
        for flag in &named {
            if refuses_last(&[name, flag]) {
                failures.push(format!(
                    "`botmesh-mcp {name} --help` names {flag}, which {file} does not accept"
                ));
            }
        }
        let quoted: Vec<&str> = usage_block(&top)
            .into_iter()
            .skip_while(|line| {
                !line
                    .trim_start()
                    .starts_with(&format!("botmesh-mcp {name} "))
            })
            .take_while(|line| {
                let line = line.trim_start();
                !line.starts_with("botmesh-mcp ")
                    || line.starts_with(&format!("botmesh-mcp {name} "))
            })
            .collect();
        let top_flags = flags_in(&quoted.join("\n"));
        for flag in in_lines.iter().filter(|flag| !top_flags.contains(flag)) {
            failures.push(format!(
                "the top-level --help does not quote {flag} of `botmesh-mcp {name}`'s usage lines"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_top_level_flag_is_documented_and_every_documented_flag_is_accepted() {
    let top = stdout_of(&["--help"]);
    let names = subcommands(&top);
    let named = flags_in(&top);
    let source = fs::read_to_string(Path::new(SOURCES).join("main.rs")).expect("main.rs");
    let mut groups = accepted(&source);
    groups.extend(http_flags().into_iter().map(|flag| vec![flag]));
    let mut failures = Vec::new();
    let docs_text = |dir: &str| {
        let pages = [
            "index.md",
            "guide/getting-started.md",
            "guide/hosting.md",
            "reference/tools.md",
        ];
        pages
            .map(|page| fs::read_to_string(Path::new(ROOT).join(dir).join(page)).expect("a page"))
            .concat()
    };
    let (docs_en, docs_es) = (
        flags_in(&docs_text("docs")),
        flags_in(&docs_text("docs/es")),
    );
    for group in &groups {
        for flag in group {
            if !named.contains(flag) {
                failures.push(format!(
                    "crates/mcp-bin/src/main.rs (or http.rs's FLAGS) accepts {flag}, which `botmesh-mcp --help` does not name: add it to USAGE_HEAD or USAGE_TAIL in main.rs"
                ));
            }
        }
        if is_help(group) || group.iter().any(|flag| flag == "--version") {
            continue;
        }
        for (dir, documented) in [("docs", &docs_en), ("docs/es", &docs_es)] {
            if !group.iter().any(|flag| documented.contains(flag)) {
                failures.push(format!(
                    "{dir}/: index.md, guide/getting-started.md, guide/hosting.md and reference/tools.md do not document {} (crates/mcp-bin/src/main.rs)",
                    group.join(" | ")
                ));
            }
        }
    }
    // Each flag of the top-level help, given to the command its line is about: `token new`
    // for the token line, none for the server's lines and the options; the subcommands' lines
    // (and the lines that continue them) are the other test's.
    let block = usage_block(&top);
    let rest = top
        .split_once(&block.join("\n"))
        .map_or("", |(_, rest)| rest);
    let mut about: Option<Vec<&str>> = Some(Vec::new());
    let lines = block.iter().map(|line| (true, *line));
    for (in_block, line) in lines.chain(rest.lines().map(|line| (false, line))) {
        match line.trim_start().strip_prefix("botmesh-mcp ") {
            Some(words) if in_block => {
                let command: Vec<&str> = words
                    .split(' ')
                    .take_while(|w| w.chars().all(|c| c.is_ascii_lowercase()) && !w.is_empty())
                    .collect();
                let subcommand = command
                    .first()
                    .is_some_and(|w| names.iter().any(|n| n == w));
                about = (!subcommand).then_some(command);
            }
            // A continuation line of the usage block is about the line before it.
            _ if in_block => {}
            _ => about = Some(Vec::new()),
        }
        let Some(prefix) = &about else {
            continue;
        };
        for flag in flags_in(line) {
            let mut args = prefix.clone();
            args.push(&flag);
            if refuses_last(&args) {
                failures.push(format!(
                    "`botmesh-mcp --help` names {flag} (\"{}\"), which `botmesh-mcp {}` does not accept",
                    line.trim(),
                    prefix.join(" ")
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The README's copy of the usage lines, between these two lines.
const README_START: &str = "<!-- The usage lines of `botmesh-mcp --help`, copied by the test usage::the_readme_shows_the_usage_lines_of_help: UPDATE_EXPECT=1 cargo test -p botmesh-mcp-cli --test it usage rewrites them. -->";
const README_END: &str = "<!-- End of the usage lines. -->";

#[test]
fn the_readme_shows_the_usage_lines_of_help() {
    let top = stdout_of(&["--help"]);
    let lines: Vec<&str> = usage_block(&top)
        .into_iter()
        .map(|line| line.strip_prefix("  ").unwrap_or(line))
        .collect();
    let block = format!(
        "{README_START}\n```text\n{}\n```\n{README_END}",
        lines.join("\n")
    );
    let path = Path::new(ROOT).join("README.md");
    let readme = fs::read_to_string(&path).expect("README.md");
    let (Some((before, _)), Some((_, after))) = (
        readme.split_once(README_START),
        readme.split_once(README_END),
    ) else {
        panic!(
            "README.md has no usage block: put these two lines where it goes and run `{REGENERATE}`:\n{README_START}\n{README_END}"
        );
    };
    let fresh = format!("{before}{block}{after}");
    if fresh == readme {
        return;
    }
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        fs::write(&path, fresh).expect("write README.md");
        return;
    }
    let stale = readme
        .split_once(README_START)
        .and_then(|(_, rest)| rest.split_once(README_END))
        .map_or("", |(inside, _)| inside);
    panic!(
        "README.md: its usage lines are stale: run `{REGENERATE}`\n--- README.md\n{}\n--- botmesh-mcp --help\n{}",
        stale.trim(),
        lines.join("\n")
    );
}

#[test]
fn flags_are_read_from_text_and_source() {
    assert_eq!(
        flags_in("  -o, --output FILE [--max-size PX] non-loopback botmesh-mcp (-h) -32600 --x-"),
        ["-o", "--output", "--max-size", "-h", "--x"]
    );
    let source = "//! x\nmatch arg {\n    Short('o') | Long(\"output\") => {}\n    // Long(\"old\")\n    Long(\"fix\") => {}\n}\n#[cfg(test)]\nmod tests {\n    Long(\"test-only\")\n}\n";
    assert_eq!(
        accepted(source),
        [
            vec!["--output".to_owned(), "-o".to_owned()],
            vec!["--fix".to_owned()]
        ]
    );
}
