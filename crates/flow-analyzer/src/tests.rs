//! Data-driven tests: every fixture of `test_data/fixtures` against its golden Mermaid and JSON
//! (`UPDATE_EXPECT=1` rewrites them), a hit and a near miss for each lint code, the
//! `flow_analyze` payload and the `check` reports.

use std::path::Path;

use expect_test::{expect, expect_file};
use serde_json::{Value, json};

use crate::*;

struct Fixture {
    name: String,
    direction: Direction,
    flows: Vec<Value>,
}

fn fixture_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/test_data/fixtures"))
}

fn load(name: &str) -> Fixture {
    let path = fixture_dir().join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let value: Value = serde_json::from_str(&text).unwrap();
    let direction = value
        .get("direction")
        .and_then(Value::as_str)
        .map_or(Direction::TD, |d| d.parse().unwrap());
    let flows = value["flows"].as_array().unwrap().clone();
    Fixture {
        name: name.to_owned(),
        direction,
        flows,
    }
}

fn all_fixtures() -> Vec<Fixture> {
    let mut names: Vec<String> = std::fs::read_dir(fixture_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".json").map(str::to_owned))
        .collect();
    names.sort();
    names.iter().map(|n| load(n)).collect()
}

fn lint_fixture(fixture: &Fixture) -> Vec<Diagnostic> {
    let refs: Vec<&Value> = fixture.flows.iter().collect();
    lint(&refs)
}

#[test]
fn golden_mermaid_and_json_for_every_fixture() {
    let fixtures = all_fixtures();
    assert!(fixtures.len() >= 15, "only {} fixtures", fixtures.len());
    for fixture in &fixtures {
        let refs: Vec<&Value> = fixture.flows.iter().collect();
        let graph = describe(&refs);
        let mermaid = render_mermaid(&graph, fixture.direction);
        expect_file![format!("../test_data/golden/{}.mmd", fixture.name)].assert_eq(&mermaid);
        let diagnostics = lint(&refs);
        let mut text =
            serde_json::to_string_pretty(&json!({ "graph": graph, "diagnostics": diagnostics }))
                .unwrap();
        text.push('\n');
        expect_file![format!("../test_data/golden/{}.json", fixture.name)].assert_eq(&text);
        // `analyze_set` compiles the set once for its graph and lint; `describe` and `lint`
        // each compile on their own (describe flow by flow): the results are the same.
        if let [document, subflows @ ..] = fixture.flows.as_slice() {
            let analysis = analyze_set(document, subflows);
            assert_eq!(analysis.graph.as_ref(), Some(&graph), "{}", fixture.name);
            assert_eq!(analysis.diagnostics, diagnostics, "{}", fixture.name);
        }
    }
}

#[test]
fn every_fixture_is_a_valid_document_set() {
    for fixture in all_fixtures() {
        for (i, flow) in fixture.flows.iter().enumerate() {
            let validation = botmesh_flow_schema::validate(flow);
            assert!(
                validation.valid,
                "{} flow {i}: {:?}",
                fixture.name, validation.issues
            );
        }
    }
}

#[test]
fn every_code_has_a_hit_and_a_clean_near_miss() {
    for code in Code::ALL {
        let stem = code.as_str().replace('-', "_");
        let hit = lint_fixture(&load(&format!("lint_{stem}_hit")));
        assert!(
            hit.iter().any(|d| d.code == code),
            "{} not triggered: {hit:#?}",
            code.as_str()
        );
        assert!(hit.iter().all(|d| d.severity == d.code.severity()));
        let near = lint_fixture(&load(&format!("lint_{stem}_near")));
        assert!(near.is_empty(), "{} near miss: {near:#?}", code.as_str());
    }
}

#[test]
fn possibly_unset_names_the_first_path_that_skips_the_write() {
    let flow = json!({ "version": 2, "id": "f", "steps": [
        { "id": "q", "kind": "ask", "text": "Code?", "save": "code", "pattern": "^[0-9]+$", "onFail": "sorry" },
        { "id": "ok", "kind": "message", "text": "Code {{code}}", "next": "clear" },
        { "id": "sorry", "kind": "message", "text": "We could not read {{code}}", "next": "clear" },
        { "id": "clear", "kind": "set", "var": "code", "value": null },
        { "id": "again", "kind": "end", "text": "Was {{code}}" },
    ]});
    let found: Vec<String> = lint(&[&flow])
        .into_iter()
        .filter(|d| d.code == Code::PossiblyUnsetVariable)
        .map(|d| format!("{}: {}", d.path, d.message))
        .collect();
    expect![[r#"
        [
            "/steps/2/text: variable \"code\" may be unset here: nothing writes it on the path \"q\" (onFail) → \"sorry\"; write it on every path, declare it with a default, or check it with exists first",
            "/steps/4/text: variable \"code\" may be unset here: nothing writes it on the path \"clear\" → \"again\"; write it on every path, declare it with a default, or check it with exists first",
        ]
    "#]]
    .assert_debug_eq(&found);
}

/// An undefined name suggests the nearest written, declared or built-in name (one helper,
/// `botmesh_flow_schema::nearest_name`); a placeholder with capitals, the lower-cased one.
#[test]
fn undefined_and_malformed_names_suggest_the_name_meant() {
    let flow = json!({ "version": 2, "id": "f", "variables": { "plan": { "type": "string", "default": "basic" } }, "steps": [
        { "id": "q", "kind": "ask", "text": "Invoice?", "save": "invoice" },
        { "id": "m", "kind": "message", "text": "Hi {{name}}, {{invoic}} on {{plann}} to {{phone_number}}, {{colour}}" },
        { "id": "c", "kind": "message", "text": "{{Invoice}} {{ Plan }} {{Bad Name}}" },
        { "id": "bye", "kind": "end" }
    ]});
    let found: Vec<String> = lint(&[&flow])
        .into_iter()
        .filter(|d| matches!(d.code, Code::UndefinedVariable | Code::MalformedPlaceholder))
        .map(|d| format!("{}: {}", d.path, d.message))
        .collect();
    expect![[r#"
        [
            "/steps/1/text: variable \"name\" is read but never written, declared or built in; did you mean the built-in \"contact_name\"? If not, declare it under variables or write it before this step",
            "/steps/1/text: variable \"invoic\" is read but never written, declared or built in; did you mean \"invoice\"? If not, declare it under variables or write it before this step",
            "/steps/1/text: variable \"plann\" is read but never written, declared or built in; did you mean \"plan\"? If not, declare it under variables or write it before this step",
            "/steps/1/text: variable \"phone_number\" is read but never written, declared or built in; did you mean the built-in \"contact_phone\"? If not, declare it under variables or write it before this step",
            "/steps/1/text: variable \"colour\" is read but never written, declared or built in; declare it under variables, write it before this step, or fix the name",
            "/steps/2/text: placeholder \"{{Invoice}}\" does not name a variable (variable names are lower case), so it is sent as written; did you mean {{invoice}}?",
            "/steps/2/text: placeholder \"{{ Plan }}\" does not name a variable (variable names are lower case), so it is sent as written; did you mean {{plan}}?",
            "/steps/2/text: placeholder \"{{Bad Name}}\" does not name a variable; use lowercase letters, digits and underscores (spaces only around the name), e.g. {{name}}",
        ]
    "#]]
    .assert_debug_eq(&found);
}

/// `infinite-loop` names the way back to point elsewhere (its field and pointer), as well as the
/// wait that keeps the loop.
#[test]
fn an_infinite_loop_names_its_way_back() {
    let flow = json!({ "version": 2, "id": "f", "steps": [
        { "id": "a", "kind": "message", "text": "a" },
        { "id": "b", "kind": "message", "text": "b", "next": "a" },
        { "id": "c", "kind": "set", "var": "x", "value": 1, "next": "c" },
    ]});
    let found: Vec<String> = lint(&[&flow])
        .into_iter()
        .filter(|d| d.code == Code::InfiniteLoop)
        .map(|d| format!("{}: {}", d.path, d.message))
        .collect();
    expect![[r#"
        [
            "/steps/0: steps \"a\", \"b\" form a loop in which no step waits for the user, so the bot would spin; to give it an exit, point the \"next\" of step \"b\" (/steps/1/next, back to \"a\") at a step outside the loop, such as an end; to keep the loop, add an ask, buttons or list step to it, so the bot waits for the user each time round",
            "/steps/2: step \"c\" leads back to itself without waiting for the user, so the bot would spin; to give it an exit, point the \"next\" of step \"c\" (/steps/2/next, back to \"c\") at a step outside the loop, such as an end; to keep the loop, add an ask, buttons or list step to it, so the bot waits for the user each time round",
        ]
    "#]]
    .assert_debug_eq(&found);
}

#[test]
fn a_long_unset_path_shows_its_first_three_and_last_four_steps() {
    let mut steps: Vec<Value> =
        vec![json!({ "id": "q", "kind": "ask", "text": "Code?", "save": "code" })];
    steps.extend((1..=10).map(|i| json!({ "id": format!("m{i}"), "kind": "delay", "seconds": 1 })));
    steps.push(json!({ "id": "say", "kind": "end", "text": "Code {{ code }}" }));
    let flow = json!({ "version": 2, "id": "f", "steps": steps });
    let found: Vec<String> = lint(&[&flow]).into_iter().map(|d| d.message).collect();
    expect![[r#"
        [
            "variable \"code\" may be unset here: nothing writes it on the path \"q\" (retries run out) → \"m1\" → \"m2\" → … → \"m8\" → \"m9\" → \"m10\" → \"say\"; write it on every path, declare it with a default, or check it with exists first",
        ]
    "#]]
    .assert_debug_eq(&found);
}

#[test]
fn a_menu_save_is_a_write_of_its_variable() {
    let menu = |text: &str| {
        json!({ "version": 2, "id": "f", "steps": [
            { "id": "size_q", "kind": "buttons", "text": "Size?", "save": "size",
              "buttons": [{ "id": "small", "title": "Small" }] },
            { "id": "pizza_q", "kind": "list", "text": "Pizza?", "button": "See", "save": "pizza",
              "sections": [{ "rows": [{ "id": "margherita", "title": "Margherita" }] }] },
            { "id": "bye", "kind": "end", "text": text },
        ]})
    };
    // Read after the menus: written, read, nothing to say.
    let read = menu("A {{size}} {{pizza}}");
    assert_eq!(lint(&[&read]), vec![]);
    // Never read: the two saves are unused writes, at the `save` of each menu.
    let unread = menu("Bye");
    let found: Vec<(String, String)> = lint(&[&unread])
        .into_iter()
        .map(|d| (d.code.as_str().to_owned(), d.path))
        .collect();
    assert_eq!(
        found,
        [
            ("unused-variable".to_owned(), "/steps/0/save".to_owned()),
            ("unused-variable".to_owned(), "/steps/1/save".to_owned()),
        ]
    );
    let graph = describe(&[&read]);
    let labels: Vec<&str> = graph.flows[0].nodes.iter().map(|n| &*n.label).collect();
    assert_eq!(labels[..2], ["Size? → size", "Pizza? → pizza"]);
}

#[test]
fn severities_and_spellings_follow_the_spec() {
    let table: Vec<String> = Code::ALL
        .iter()
        .map(|c| format!("{} {}", c.as_str(), c.severity().as_str()))
        .collect();
    expect![[r#"
        [
            "unreachable-step warning",
            "infinite-loop error",
            "missing-subflow error",
            "subflow-cycle error",
            "undefined-variable warning",
            "unused-variable info",
            "duplicate-title warning",
            "duplicate-case warning",
            "duplicate-keyword warning",
            "message-burst warning",
            "implicit-end info",
            "malformed-placeholder warning",
            "possibly-unset-variable warning",
            "multiple-fallbacks warning",
            "type-mismatch warning",
            "keyword-shadowed warning",
            "unmatchable-keyword warning",
        ]
    "#]]
    .assert_debug_eq(&table);
    for code in Code::ALL {
        assert_eq!(json!(code), json!(code.as_str()));
    }
}

#[test]
fn messages_are_one_sentence_that_says_what_to_change() {
    for fixture in all_fixtures() {
        for d in lint_fixture(&fixture) {
            assert!(!d.message.ends_with('.'), "{}", d.message);
            assert!(!d.message.contains('\n'), "{}", d.message);
            assert!(d.message.contains("; "), "no fix in: {}", d.message);
            assert!(d.path.starts_with('/'), "{}", d.path);
        }
    }
}

#[test]
fn diagnostics_come_by_flow_then_document_order() {
    for fixture in all_fixtures() {
        let diagnostics = lint_fixture(&fixture);
        let sources: Vec<usize> = diagnostics
            .iter()
            .map(|d| {
                fixture
                    .flows
                    .iter()
                    .position(|f| f["id"] == d.flow.as_str())
                    .unwrap()
            })
            .collect();
        assert!(sources.is_sorted(), "{}", fixture.name);
        let steps: Vec<(usize, Option<u64>)> = diagnostics
            .iter()
            .zip(&sources)
            .filter(|(d, _)| d.path.starts_with("/steps/"))
            .map(|(d, &s)| (s, d.path.split('/').nth(2).and_then(|n| n.parse().ok())))
            .collect();
        assert!(steps.is_sorted(), "{}", fixture.name);
    }
}

#[test]
fn subflow_cycle_and_diagnostic_fields() {
    let hit = lint_fixture(&load("lint_subflow_cycle_hit"));
    let cycles: Vec<(String, Option<String>, String, String)> = hit
        .iter()
        .filter(|d| d.code == Code::SubflowCycle)
        .map(|d| {
            (
                d.flow.clone(),
                d.step.clone(),
                d.path.clone(),
                d.source.clone(),
            )
        })
        .collect();
    expect![[r#"
        [
            (
                "a",
                Some(
                    "to_b",
                ),
                "/steps/1/flow",
                "document",
            ),
            (
                "b",
                Some(
                    "to_c",
                ),
                "/steps/1/flow",
                "subflows/0",
            ),
            (
                "c",
                Some(
                    "back_to_a",
                ),
                "/steps/1/flow",
                "subflows/1",
            ),
            (
                "c",
                Some(
                    "self",
                ),
                "/steps/2/flow",
                "subflows/1",
            ),
        ]
    "#]]
    .assert_debug_eq(&cycles);
}

#[test]
fn a_variable_written_in_a_called_subflow_is_defined_for_the_caller() {
    let fixture = load("lint_undefined_variable_near");
    assert!(lint_fixture(&fixture).is_empty());
    // Without the subflow, the same read is undefined (and the call is missing).
    let codes: Vec<Code> = lint(&[&fixture.flows[0]]).iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![Code::MissingSubflow, Code::UndefinedVariable]);
}

#[test]
fn titles_compare_trimmed_and_lower_cased_in_full() {
    let titles = |titles: [&str; 3]| {
        let buttons: Vec<Value> = titles
            .iter()
            .enumerate()
            .map(|(i, t)| json!({"id": format!("b{i}"), "title": t}))
            .collect();
        let document = json!({"version": 2, "id": "f", "steps": [
            {"id": "pick", "kind": "buttons", "text": "?", "buttons": buttons},
            {"id": "bye", "kind": "end"}
        ]});
        lint(&[&document])
            .iter()
            .map(|d| format!("{} {}", d.path, d.message))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        titles(["Yes", " yES ", "Ja"]),
        [
            "/steps/0/buttons/1/title button title \" yES \" repeats the title at /steps/0/buttons/0/title (ignoring case); give each button a distinct title"
        ]
    );
    // Non-ASCII titles lower-case in full: the Kelvin sign is a `k`, `ß` is not `ss`.
    let kelvin = titles(["\u{212A}ey", "key", "Ünï"]);
    assert_eq!(kelvin.len(), 1);
    assert!(kelvin[0].starts_with("/steps/0/buttons/1/title "));
    assert_eq!(titles(["Straße", "STRASSE", "ÜNÏ"]), Vec::<String>::new());
    assert_eq!(titles(["Ünï", "x", "üNÏ"]).len(), 1);
}

#[test]
fn a_loop_through_a_subflow_that_waits_is_not_infinite() {
    // `answer` starts with a default: the asker's retries can run out without writing it.
    let caller = json!({"version": 2, "id": "main",
        "variables": {"answer": {"type": "string", "default": "go"}}, "steps": [
        {"id": "again", "kind": "subflow", "flow": "asker"},
        {"id": "loop", "kind": "branch", "cases": [
            {"when": {"var": "answer", "op": "ne", "value": "stop"}, "next": "again"}]},
        {"id": "bye", "kind": "end"}
    ]});
    let waiting = json!({"version": 2, "id": "asker", "steps": [
        {"id": "q", "kind": "ask", "text": "Again?", "save": "answer"},
        {"id": "done", "kind": "end"}
    ]});
    let quiet = json!({"version": 2, "id": "asker", "steps": [
        {"id": "s", "kind": "set", "var": "answer", "value": "go"},
        {"id": "done", "kind": "end"}
    ]});
    let codes = |set: &[&Value]| lint(set).iter().map(|d| d.code).collect::<Vec<_>>();
    assert_eq!(codes(&[&caller, &waiting]), vec![]);
    assert_eq!(codes(&[&caller, &quiet]), vec![Code::InfiniteLoop]);
}

#[test]
fn repeated_step_ids_share_one_mermaid_node_id() {
    // Not a valid document (ids repeat), but describe and render still take it: every node
    // and edge with the id uses the first node's generated id.
    let main = json!({"version": 2, "id": "main", "steps": [
        {"id": "a", "kind": "message", "text": "one"},
        {"id": "b", "kind": "buttons", "text": "?", "buttons": [
            {"id": "x", "title": "Back", "next": "a"}, {"id": "y", "title": "On"}]},
        {"id": "a", "kind": "subflow", "flow": "sub"},
        {"id": "c", "kind": "message", "text": "two", "next": "b"}
    ]});
    let sub = json!({"version": 2, "id": "sub", "steps": [
        {"id": "a", "kind": "end"}, {"id": "a", "kind": "end"}
    ]});
    let graph = describe(&[&main, &sub]);
    expect![[r#"
        flowchart TD
          subgraph s0["main"]
            n0["a<br>message: one"]
            n1["b<br>buttons: ?"]
            n0[["a<br>subflow: sub"]]
            n2["c<br>message: two"]
            n0 --> n1
            n1 -->|"Back"| n0
            n1 -->|"On"| n0
            n0 --> n2
            n2 --> n1
          end
          subgraph s1["sub"]
            n3(["a<br>end"])
            n3(["a<br>end"])
          end
          n0 -.-> n3
    "#]]
    .assert_eq(&render_mermaid(&graph, Direction::TD));
}

#[test]
fn mermaid_never_uses_step_ids_or_raw_specials() {
    for fixture in all_fixtures() {
        let refs: Vec<&Value> = fixture.flows.iter().collect();
        for direction in Direction::ALL {
            let text = render_mermaid(&describe(&refs), direction);
            assert_mermaid_shape(&text);
        }
    }
}

/// Failure paths stand out: the `class … handoff` line names exactly the handoff nodes, and
/// `linkStyle` exactly the `retry-exhausted` links, counted as Mermaid counts links (in the
/// order they are written, calls included).
#[test]
fn mermaid_colours_handoffs_and_exhausted_retries() {
    let mut seen = (0, 0);
    for fixture in all_fixtures() {
        let refs: Vec<&Value> = fixture.flows.iter().collect();
        let graph = describe(&refs);
        let text = render_mermaid(&graph, Direction::TD);
        let mut handoffs = Vec::new();
        let mut links = Vec::new();
        for line in text.lines().map(str::trim_start) {
            if line.contains("-->") || line.contains("-.->") {
                links.push(line.contains("|\"retries exhausted\"|"));
            } else if line.starts_with('n')
                && (line.contains("<br>handoff: ") || line.ends_with("<br>handoff\"])"))
            {
                handoffs.push(line[..line.find('(').unwrap()].to_owned());
            }
        }
        let classed: Vec<String> = text
            .lines()
            .find_map(|l| l.trim_start().strip_prefix("class "))
            .map(|l| {
                l.trim_end_matches(" handoff")
                    .split(',')
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        handoffs.dedup();
        assert_eq!(classed, handoffs, "{}", fixture.name);
        let styled: Vec<usize> = text
            .lines()
            .find_map(|l| l.trim_start().strip_prefix("linkStyle "))
            .map(|l| {
                l.split(' ')
                    .next()
                    .unwrap()
                    .split(',')
                    .map(|n| n.parse().unwrap())
                    .collect()
            })
            .unwrap_or_default();
        let exhausted: Vec<usize> = (0..links.len()).filter(|&i| links[i]).collect();
        assert_eq!(styled, exhausted, "{}", fixture.name);
        seen.0 += handoffs.len();
        seen.1 += exhausted.len();
    }
    assert!(
        seen.0 >= 3 && seen.1 >= 3,
        "the fixtures exercise too little: {seen:?}"
    );
}

/// Every line is one of the forms the renderer emits, and quoted parts hold no raw `"`, `#`
/// (outside entity codes), `<` (outside `<br>`), `>`, backtick or control character.
fn assert_mermaid_shape(text: &str) {
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    assert!(
        ["TD", "LR", "BT", "RL"]
            .iter()
            .any(|d| header == format!("flowchart {d}")),
        "{header}"
    );
    for line in lines {
        let body = line.trim_start();
        if body == "end" {
            continue;
        }
        let (code, quoted) = split_quoted(body);
        for part in &quoted {
            let cleaned = part.replace("<br>", "");
            let mut rest = cleaned.as_str();
            while let Some(at) = rest.find('#') {
                let after = &rest[at + 1..];
                let entity = ["35;", "quot;", "amp;", "lt;", "gt;", "96;", "37;"]
                    .iter()
                    .find(|e| after.starts_with(**e))
                    .unwrap_or_else(|| panic!("raw # in {line}"));
                rest = &after[entity.len()..];
            }
            assert!(
                !cleaned.contains(['<', '>', '`', '&', '%'])
                    && !cleaned.chars().any(char::is_control),
                "{line}"
            );
            assert!(!part.is_empty(), "empty label in {line}");
        }
        let is_numbers = |text: &str, prefix: &str| {
            text.split(',').all(|n| {
                n.strip_prefix(prefix)
                    .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            })
        };
        let ok = code.starts_with("subgraph s")
            || code == "classDef handoff fill:#fdecea,stroke:#c62828,color:#7f1d1d"
            || code
                .strip_prefix("class ")
                .and_then(|rest| rest.strip_suffix(" handoff"))
                .is_some_and(|ids| is_numbers(ids, "n"))
            || code
                .strip_prefix("linkStyle ")
                .and_then(|rest| rest.strip_suffix(" stroke:#c62828,color:#c62828"))
                .is_some_and(|links| is_numbers(links, ""))
            || (code.starts_with('n') && {
                let id_end = code
                    .find(|c: char| !c.is_ascii_alphanumeric())
                    .unwrap_or(code.len());
                let rest = &code[id_end..];
                ["[\"\"]", "{\"\"}", "([\"\"])", "[[\"\"]]", "[/\"\"/]"].contains(&rest)
                    || rest.starts_with(" --> n")
                    || rest.starts_with(" -->|\"\"| n")
                    || rest.starts_with(" -.-> n")
            });
        assert!(ok, "unexpected line: {line}");
    }
}

/// Splits a line into its unquoted skeleton (quotes kept, contents removed) and the quoted
/// contents.
fn split_quoted(line: &str) -> (String, Vec<String>) {
    let mut code = String::new();
    let mut quoted = Vec::new();
    let mut parts = line.split('"');
    code.push_str(parts.next().unwrap_or(""));
    while let Some(inside) = parts.next() {
        quoted.push(inside.to_owned());
        code.push_str("\"\"");
        code.push_str(parts.next().expect("balanced quotes"));
    }
    (code, quoted)
}

#[test]
fn escaping_uses_mermaid_entity_codes() {
    assert_eq!(
        escape_label("a#\"&<>`b\nc\r\nd\te"),
        "a#35;#quot;#amp;#lt;#gt;#96;b<br>c<br>d e"
    );
    assert_eq!(escape_label("[x] (y) {z} | ; 😀"), "[x] (y) {z} | ; 😀");
}

#[test]
fn long_labels_end_with_an_ellipsis_at_a_char_boundary() {
    let shorten = |text: &str, max: usize| {
        let mut out = String::new();
        crate::mermaid::push_label(&mut out, text, max);
        out
    };
    assert_eq!(shorten("héllo wörld", 6), "héllo…");
    assert_eq!(shorten("😀😀😀", 2), "😀…");
    assert_eq!(shorten("short", 5), "short");
    assert_eq!(shorten("a#b", 2), "a…");
    assert_eq!(shorten("ab#c", 3), "ab…");
}

#[test]
fn directions_and_formats_parse_their_spellings_only() {
    for direction in Direction::ALL {
        assert_eq!(direction.as_str().parse::<Direction>(), Ok(direction));
    }
    assert_eq!(Direction::default(), Direction::TD);
    expect![[r#"unknown direction "td" (expected TD, LR, BT or RL)"#]]
        .assert_eq(&"td".parse::<Direction>().unwrap_err().to_string());
    assert_eq!("json".parse::<Format>(), Ok(Format::Json));
    assert_eq!("mermaid".parse::<Format>(), Ok(Format::Mermaid));
    assert!("svg".parse::<Format>().is_err());
    assert_eq!("github".parse::<ReportFormat>(), Ok(ReportFormat::Github));
    assert!("sarif".parse::<ReportFormat>().is_err());
}

#[test]
fn analyze_returns_mermaid_or_graph_and_a_summary() {
    let fixture = load("two_subflows");
    let (document, subflows) = fixture.flows.split_first().unwrap();
    let mermaid = analyze(document, subflows, Format::Mermaid, Direction::LR);
    assert_eq!(mermaid["valid"], true);
    assert!(
        mermaid["mermaid"]
            .as_str()
            .unwrap()
            .starts_with("flowchart LR\n")
    );
    assert!(mermaid.get("graph").is_none());
    let graph = analyze(document, subflows, Format::Json, Direction::TD);
    assert!(graph.get("mermaid").is_none());
    assert_eq!(graph["graph"]["flows"].as_array().unwrap().len(), 3);
    expect![[
        r#"{"edges":7,"errors":0,"flows":3,"infos":0,"issues":0,"nodes":8,"steps":8,"warnings":2}"#
    ]]
    .assert_eq(&graph["summary"].to_string());
}

#[test]
fn an_invalid_set_still_counts_its_steps() {
    let document = json!({"version": 2, "id": "main", "steps": [
        {"id": "a", "kind": "message", "text": ""},
        {"id": "b", "kind": "transfer"},
        {"id": "c", "kind": "end"}
    ]});
    let subflows = [json!({"version": 2, "id": "sub", "steps": "none"})];
    let analysis = analyze(&document, &subflows, Format::Json, Direction::TD);
    assert_eq!(analysis["valid"], false);
    expect![[
        r#"{"edges":0,"errors":0,"flows":2,"infos":0,"issues":3,"nodes":0,"steps":3,"warnings":0}"#
    ]]
    .assert_eq(&analysis["summary"].to_string());
}

#[test]
fn analyze_carries_validation_issues_with_their_source() {
    let good = json!({"version": 2, "id": "main", "steps": [{"id": "a", "kind": "end"}]});
    let broken = [
        json!({"version": 2}),
        json!({"version": 1, "id": "old", "steps": [{"id": "a", "kind": "end"}]}),
        json!({"version": 2, "id": "x", "steps": [{"id": "a", "kind": "message"}]}),
        json!("not a document"),
    ];
    for bad in &broken {
        for (document, subflows, source) in [
            (bad, vec![good.clone()], "document"),
            (&good, vec![bad.clone()], "subflows/0"),
        ] {
            let payload = analyze(document, &subflows, Format::Mermaid, Direction::TD);
            let expected: Vec<Value> = botmesh_flow_schema::validate(bad)
                .issues
                .iter()
                .map(|i| json!({"path": i.path, "message": i.message, "source": source}))
                .collect();
            assert_eq!(payload["valid"], expected.is_empty(), "{bad}");
            assert_eq!(payload["issues"], json!(expected), "{bad}");
            if !expected.is_empty() {
                assert!(payload.get("mermaid").is_none());
                assert_eq!(payload["diagnostics"], json!([]));
            }
        }
    }
}

#[test]
fn duplicate_flow_ids_make_the_set_invalid() {
    let flow = json!({"version": 2, "id": "main", "steps": [{"id": "a", "kind": "end"}]});
    let payload = analyze(
        &flow,
        std::slice::from_ref(&flow),
        Format::Json,
        Direction::TD,
    );
    assert_eq!(payload["valid"], false);
    assert!(payload.get("graph").is_none());
    expect![[r#"[{"message":"duplicate flow id \"main\" in the set (first in document)","path":"/id","source":"subflows/0"}]"#]]
        .assert_eq(&payload["issues"].to_string());
}

#[test]
fn the_example_document_lints_clean() {
    let example: Value = serde_json::from_str(botmesh_flow_schema::EXAMPLE_FLOW_DOCUMENT).unwrap();
    let analysis = analyze_set(&example, &[]);
    assert!(analysis.valid, "{:?}", analysis.issues);
    assert_eq!(analysis.diagnostics, vec![]);
}

#[test]
fn implicit_end_node_and_terminals() {
    let fixture = load("lint_implicit_end_hit");
    let graph = describe(&[&fixture.flows[0]]);
    let flow = &graph.flows[0];
    assert_eq!(flow.terminals, vec![IMPLICIT_END.to_owned()]);
    assert_eq!(flow.nodes.last().map(|n| n.id), Some(IMPLICIT_END));
    let into_end: Vec<&str> = flow
        .edges
        .iter()
        .filter(|e| e.to == IMPLICIT_END)
        .map(|e| e.from)
        .collect();
    assert_eq!(into_end, vec!["more"]);
}

fn report_for(name: &str) -> FileReport {
    let fixture = load(name);
    let (document, subflows) = fixture.flows.split_first().unwrap();
    let named: Vec<(String, &Value)> = subflows
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("sub{i}.json"), s))
        .collect();
    let refs: Vec<(&str, &Value)> = named.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    check_document(&format!("{name}.json"), document, &refs)
}

#[test]
fn check_reports_in_text_json_and_github() {
    let reports = vec![
        report_for("lint_subflow_cycle_near"),
        report_for("lint_missing_subflow_hit"),
        report_for("lint_implicit_end_hit"),
    ];
    assert!(!reports[0].has_errors());
    assert!(reports[1].has_errors());
    assert!(!reports[2].has_errors());
    expect![[r#"
        lint_missing_subflow_hit.json: error[missing-subflow] /steps/0/flow: flow "payment" is not in the set; pass it in subflows or correct the flow id
        lint_implicit_end_hit.json: info[implicit-end] /steps/1: a path through step "more" falls off the end of steps; add an end (or handoff) step so the flow ends on purpose
        checked 3 files: 1 error, 0 warnings, 1 info
    "#]]
    .assert_eq(&render_report(&reports, ReportFormat::Text, None));
    expect![[r#"
        ::error file=lint_missing_subflow_hit.json,title=missing-subflow::/steps/0/flow: flow "payment" is not in the set; pass it in subflows or correct the flow id
        ::notice file=lint_implicit_end_hit.json,title=implicit-end::/steps/1: a path through step "more" falls off the end of steps; add an end (or handoff) step so the flow ends on purpose
        checked 3 files: 1 error, 0 warnings, 1 info
    "#]]
    .assert_eq(&render_report(&reports, ReportFormat::Github, None));
    let json: Value =
        serde_json::from_str(&render_report(&reports, ReportFormat::Json, None)).unwrap();
    assert_eq!(
        json["summary"],
        json!({"files": 3, "errors": 1, "warnings": 0, "infos": 1})
    );
    assert_eq!(json["files"][1]["ok"], false);
    assert_eq!(json["files"][1]["findings"][0]["code"], "missing-subflow");
}

#[test]
fn check_names_the_subflow_file_a_finding_is_in() {
    let report = report_for("lint_subflow_cycle_hit");
    let files: Vec<&str> = report.findings.iter().map(|f| f.file.as_str()).collect();
    assert_eq!(
        files,
        vec![
            "lint_subflow_cycle_hit.json",
            "sub0.json",
            "sub1.json",
            "sub1.json"
        ]
    );
}

#[test]
fn check_reports_migration_as_an_error_naming_the_migrate_command_and_flow_migrate() {
    let old = json!({"version": 1, "id": "old", "steps": [{"id": "a", "kind": "end"}]});
    let legacy = json!({"name": "Legacy", "steps": [{"type": "text", "message": "hi"}]});
    let report = check_document("old.json", &old, &[("legacy.json", &legacy)]);
    assert!(report.has_errors());
    let lines = render_report(&[report], ReportFormat::Text, None);
    expect![[r#"
        old.json: error[migration-needed] /version: this is a version 1 document; migrate it to version 2 with botmesh-mcp migrate --write old.json (flow_migrate over MCP), then check it again
        legacy.json: error[migration-needed] /version: this is a version 0 document; migrate it to version 2 with botmesh-mcp migrate --write legacy.json (flow_migrate over MCP), then check it again
        checked 1 file: 2 errors, 0 warnings, 0 infos
    "#]]
    .assert_eq(&lines);
}

#[test]
fn max_warnings_counts_warnings_only_and_says_so_in_every_format() {
    let finding = |severity, code: &str| Finding {
        file: "a.json".to_owned(),
        severity,
        code: code.to_owned(),
        path: "/steps/0".to_owned(),
        message: "m".to_owned(),
        at_key: false,
        location: None,
    };
    let reports = vec![FileReport {
        file: "a.json".to_owned(),
        valid: true,
        summary: AnalysisSummary::default(),
        findings: vec![
            finding(Severity::Warning, "w1"),
            finding(Severity::Info, "i"),
            finding(Severity::Warning, "w2"),
        ],
    }];
    assert_eq!(warning_count(&reports), 2);
    // At the limit: nothing more is said.
    assert_eq!(
        render_report(&reports, ReportFormat::Text, Some(2)),
        render_report(&reports, ReportFormat::Text, None)
    );
    expect![[r#"
        a.json: warning[w1] /steps/0: m
        a.json: info[i] /steps/0: m
        a.json: warning[w2] /steps/0: m
        checked 1 file: 0 errors, 2 warnings, 1 info
        too many warnings: 2, more than --max-warnings 1 allows
    "#]]
    .assert_eq(&render_report(&reports, ReportFormat::Text, Some(1)));
    let github = render_report(&reports, ReportFormat::Github, Some(0));
    assert!(
        github.ends_with(
            "::error title=max-warnings::too many warnings: 2, more than --max-warnings 0 allows\n"
        ),
        "{github}"
    );
    let json: Value =
        serde_json::from_str(&render_report(&reports, ReportFormat::Json, Some(1))).unwrap();
    assert_eq!(json["summary"]["maxWarnings"], 1);
    assert_eq!(json["summary"]["tooManyWarnings"], true);
    let json: Value =
        serde_json::from_str(&render_report(&reports, ReportFormat::Json, None)).unwrap();
    assert!(json["summary"].get("tooManyWarnings").is_none());
}

#[test]
fn a_subflow_checked_with_several_files_is_reported_once() {
    let sub = report_for("lint_implicit_end_hit");
    let mut reports = vec![sub.clone(), sub.clone(), sub];
    drop_repeated_findings(&mut reports);
    let counts: Vec<usize> = reports.iter().map(|r| r.findings.len()).collect();
    assert_eq!(counts, [1, 0, 0]);
    assert_eq!(
        render_report(&reports, ReportFormat::Text, None)
            .lines()
            .last(),
        Some("checked 3 files: 0 errors, 0 warnings, 1 info")
    );
}

#[test]
fn a_conversation_test_file_is_told_apart_by_its_shape() {
    assert!(is_flowtest_file(&json!({ "tests": [] })));
    assert!(is_flowtest_file(
        &json!({ "flows": ["a.json"], "tests": [{ "name": "x" }] })
    ));
    assert!(!is_flowtest_file(&json!({ "tests": [], "steps": [] })));
    assert!(!is_flowtest_file(&json!({ "tests": {} })));
    assert!(!is_flowtest_file(&json!({ "name": "legacy", "steps": [] })));
    let report = FileReport::flowtest_file("t/a.flowtest.json");
    assert!(!report.has_errors());
    expect![[r#"
        t/a.flowtest.json: info[flowtest-file] /tests: this is a conversation test file (a "tests" array and no "steps"), not a flow; run it with botmesh-mcp test t/a.flowtest.json
        checked 1 file: 0 errors, 0 warnings, 1 info
    "#]]
    .assert_eq(&render_report(&[report], ReportFormat::Text, None));
}

#[test]
fn github_annotations_escape_their_fields() {
    let report = FileReport {
        file: "dir,with:odd%name.json".to_owned(),
        valid: true,
        summary: AnalysisSummary::default(),
        findings: vec![Finding {
            file: "dir,with:odd%name.json".to_owned(),
            severity: Severity::Warning,
            code: "duplicate-title".to_owned(),
            path: "/steps/0".to_owned(),
            message: "50% of\nit".to_owned(),
            at_key: false,
            location: None,
        }],
    };
    expect![[r#"
        ::warning file=dir%2Cwith%3Aodd%25name.json,title=duplicate-title::/steps/0: 50%25 of%0Ait
        checked 1 file: 0 errors, 1 warning, 0 infos
    "#]]
    .assert_eq(&render_report(&[report], ReportFormat::Github, None));
}

#[test]
fn findings_carry_the_line_and_column_of_their_member() {
    let text = "{\n  \"version\": 2,\n  \"id\": \"pos\",\n  \"steps\": [\n    { \"id\": \"a\", \"kind\": \"message\", \"text\": \"\", \"goto\": \"b\" },\n    { \"id\": \"b\", \"kind\": \"end\" }\n  ]\n}\n";
    let (document, map) = parse_with_positions(text).unwrap();
    let mut report = check_document("pos.json", &document, &[]);
    report.locate(|file| (file == "pos.json").then_some(&map));
    expect![[r#"
        pos.json:5:45: error[invalid] /steps/0/text: must be a string of 1-4096 characters, found an empty string
        pos.json:5:49: error[invalid] /steps/0/goto: unknown property "goto" (did you mean "next"?)
        checked 1 file: 2 errors, 0 warnings, 0 infos
    "#]]
    .assert_eq(&render_report(std::slice::from_ref(&report), ReportFormat::Text, None));
    expect![[r#"
        ::error file=pos.json,line=5,col=45,endLine=5,endColumn=47,title=invalid::/steps/0/text: must be a string of 1-4096 characters, found an empty string
        ::error file=pos.json,line=5,col=49,endLine=5,endColumn=55,title=invalid::/steps/0/goto: unknown property "goto" (did you mean "next"?)
        checked 1 file: 2 errors, 0 warnings, 0 infos
    "#]]
    .assert_eq(&render_report(std::slice::from_ref(&report), ReportFormat::Github, None));
    let json: Value =
        serde_json::from_str(&render_report(&[report], ReportFormat::Json, None)).unwrap();
    assert_eq!(
        json["files"][0]["findings"][1],
        json!({"file": "pos.json", "severity": "error", "code": "invalid", "path": "/steps/0/goto",
               "message": "unknown property \"goto\" (did you mean \"next\"?)",
               "line": 5, "column": 49, "endLine": 5, "endColumn": 55})
    );
    let broken = parse_with_positions("{\n  \"id\": \"a\",\n}").unwrap_err();
    let report = FileReport::not_json("broken.json", &broken);
    assert!(report.has_errors());
    expect![[r#"
        broken.json:3:1: error[not-json] (root): the file is not JSON: trailing comma
        checked 1 file: 1 error, 0 warnings, 0 infos
    "#]]
    .assert_eq(&render_report(&[report], ReportFormat::Text, None));
}

#[test]
fn not_json_names_the_source() {
    let error = parse_source("flows/a.json", "{ nope").unwrap_err();
    expect![[r#"flows/a.json is not JSON: key must be a string at line 1 column 3"#]]
        .assert_eq(&error.to_string());
}

mod properties {
    //! Generated flows: the graph is consistent, the Mermaid text keeps its shape, and
    //! `infinite-loop` agrees with a brute-force search; arbitrary JSON never panics.

    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::assert_mermaid_shape;
    use crate::*;

    const PIECES: &[&str] = &[
        "\"",
        "[",
        "]",
        "(",
        ")",
        "{",
        "}",
        "|",
        "#",
        ";",
        "<",
        ">",
        "`",
        "\n",
        "&",
        "%%{init}%%",
        "-->",
        "end",
        "graph",
        "😀",
        "e\u{301}",
        " ",
        "word",
        "#quot;",
        "{{name}}",
        "{{",
    ];

    fn label() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(PIECES), 1..8).prop_map(|p| p.concat())
    }

    /// (kind, target, text) per step; targets index into the steps.
    fn flow() -> impl Strategy<Value = Value> {
        prop::collection::vec((0usize..7, any::<prop::sample::Index>(), label()), 1..14).prop_map(
            |specs| {
                let count = specs.len();
                let id = |i: usize| format!("s{i}");
                let steps: Vec<Value> = specs
                    .iter()
                    .enumerate()
                    .map(|(i, (kind, target, text))| {
                        let to = id(target.index(count));
                        match kind {
                            0 => json!({"id": id(i), "kind": "message", "text": text, "next": to}),
                            1 => json!({"id": id(i), "kind": "message", "text": text}),
                            2 => json!({"id": id(i), "kind": "ask", "text": text, "save": "name", "next": to}),
                            3 => json!({"id": id(i), "kind": "buttons", "text": text, "buttons": [
                                {"id": "a", "title": "A", "next": to}, {"id": "b", "title": "B"}]}),
                            4 => json!({"id": id(i), "kind": "branch", "cases": [
                                {"when": {"var": "name", "op": "eq", "value": text}, "next": to}]}),
                            5 => json!({"id": id(i), "kind": "set", "var": "name", "value": text, "next": to}),
                            _ => json!({"id": id(i), "kind": "end", "text": text}),
                        }
                    })
                    .collect();
                json!({"version": 2, "id": "prop", "steps": steps})
            },
        )
    }

    /// Brute force: is step `start` on a cycle of steps that do not wait?
    fn on_quiet_cycle(graph: &FlowGraph<'_>, start: &str) -> bool {
        let quiet = |id: &str| {
            graph
                .nodes
                .iter()
                .any(|n| n.id == id && !n.waits && n.kind != "end" && n.kind != IMPLICIT_END)
        };
        if !quiet(start) {
            return false;
        }
        let mut seen = vec![start];
        let mut stack = vec![start];
        while let Some(node) = stack.pop() {
            for edge in graph.edges.iter().filter(|e| e.from == node) {
                if edge.to == start {
                    return true;
                }
                if quiet(edge.to) && !seen.contains(&edge.to) {
                    seen.push(edge.to);
                    stack.push(edge.to);
                }
            }
        }
        false
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i32>().prop_map(|n| json!(n)),
            prop::sample::select(vec![
                "end", "next", "s0", "buttons", "branch", "subflow", "{{x"
            ])
            .prop_map(|s| json!(s)),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map(
                    prop::sample::select(vec![
                        "id", "kind", "steps", "next", "text", "buttons", "cases", "when", "flow",
                        "default", "onFail", "save", "var", "title", "trigger", "keywords", "all",
                    ]),
                    inner,
                    0..6
                )
                .prop_map(|m| Value::Object(
                    m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
                )),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 256,
            failure_persistence: None,
            rng_seed: prop::test_runner::RngSeed::Fixed(0x00b0_7e5e),
            ..ProptestConfig::default()
        })]

        #[test]
        fn generated_flows_render_and_lint_consistently(document in flow()) {
            let graph = describe(&[&document]);
            let flow = &graph.flows[0];
            let steps = document["steps"].as_array().unwrap().len();
            let falls_off = flow.edges.iter().any(|e| e.to == IMPLICIT_END);
            prop_assert_eq!(flow.nodes.len(), steps + usize::from(falls_off));
            for edge in &flow.edges {
                prop_assert!(flow.nodes.iter().any(|n| n.id == edge.from));
                prop_assert!(flow.nodes.iter().any(|n| n.id == edge.to));
            }
            for direction in Direction::ALL {
                assert_mermaid_shape(&render_mermaid(&graph, direction));
            }
            let diagnostics = lint(&[&document]);
            let loops: Vec<&Diagnostic> =
                diagnostics.iter().filter(|d| d.code == Code::InfiniteLoop).collect();
            let any_cycle = flow.nodes.iter().any(|n| on_quiet_cycle(flow, n.id));
            prop_assert_eq!(!loops.is_empty(), any_cycle);
            for d in loops {
                prop_assert!(on_quiet_cycle(flow, d.step.as_deref().unwrap()));
            }
        }

        #[test]
        fn arbitrary_json_never_panics(first in json_value(), second in json_value()) {
            let graph = describe(&[&first, &second]);
            let _ = render_mermaid(&graph, Direction::LR);
            let _ = lint(&[&first, &second]);
            let _ = analyze(&first, std::slice::from_ref(&second), Format::Json, Direction::TD);
        }
    }
}

#[test]
fn the_text_report_keeps_every_finding_on_one_line() {
    let document: serde_json::Value = serde_json::json!({
        "version": 2, "id": "a",
        "steps": [{ "id": "x", "kind": "end", "bad\nz.json: info[fake] /x: all good": 1 }]
    });
    let report = crate::check_document("flow.json", &document, &[]);
    let text = crate::render_report(&[report], crate::ReportFormat::Text, None);
    assert!(
        !text.lines().any(|line| line.starts_with("z.json")),
        "{text}"
    );
    assert!(text.contains("\\n"), "{text}");
}

mod fixing {
    //! The seeded mutation harness: valid documents (every fixture's document and the example)
    //! broken in the ways a safe fix repairs (a kind or key under another platform's or an old
    //! version's name, a misspelt kind, a title over its limit, a duplicate button id) are
    //! valid again after `fix_document` with safe fixes only; and fixing twice changes nothing.

    use proptest::prelude::*;
    use serde_json::Value;

    use super::all_fixtures;
    use crate::*;

    /// Every valid document set to mutate: (document, subflows).
    fn sets() -> Vec<(Value, Vec<Value>)> {
        let mut sets: Vec<(Value, Vec<Value>)> = all_fixtures()
            .into_iter()
            .map(|f| (f.flows[0].clone(), f.flows[1..].to_vec()))
            .collect();
        sets.push((
            serde_json::from_str(botmesh_flow_schema::EXAMPLE_FLOW_DOCUMENT).unwrap(),
            Vec::new(),
        ));
        sets
    }

    /// Other names a kind is known by (another platform's, or version 0's).
    fn aliases(kind: &str) -> &'static [&'static str] {
        match kind {
            "handoff" => &["transfer", "agent", "human"],
            "ask" => &["input", "question", "prompt"],
            "message" => &["text", "say", "mesage", "massage"],
            "buttons" => &["options", "choices", "buton"],
            "delay" => &["wait", "sleep"],
            "branch" => &["condition", "brnach"],
            "action" => &["webhook"],
            "subflow" => &["subflwo"],
            _ => &[],
        }
    }

    /// Applies mutation `choice` (of the safe classes) to some step picked by `pick`; returns
    /// false when that step offers no such mutation.
    fn mutate(document: &mut Value, choice: u8, pick: usize, alias: usize) -> bool {
        let Some(steps) = document.get_mut("steps").and_then(Value::as_array_mut) else {
            return false;
        };
        let count = steps.len();
        let step = &mut steps[pick % count];
        let Some(object) = step.as_object_mut() else {
            return false;
        };
        let kind = object
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        match choice % 5 {
            // `kind` written `type`.
            0 => match object.remove("kind") {
                Some(kind) => {
                    object.insert("type".into(), kind);
                    true
                }
                None => false,
            },
            // The kind under another name.
            1 => {
                let names = aliases(&kind);
                if names.is_empty() || !object.contains_key("kind") {
                    return false;
                }
                object.insert("kind".into(), names[alias % names.len()].into());
                true
            }
            // `next` written `goto` (or `then`).
            2 => match object.remove("next") {
                Some(next) => {
                    let name = if alias.is_multiple_of(2) {
                        "goto"
                    } else {
                        "then"
                    };
                    object.insert(name.into(), next);
                    true
                }
                None => false,
            },
            // A button title over the limit.
            3 => {
                let Some(buttons) = object.get_mut("buttons").and_then(Value::as_array_mut) else {
                    return false;
                };
                let n = buttons.len();
                let title = &mut buttons[alias % n]["title"];
                let long = format!("{} and a great deal more", title.as_str().unwrap_or("x"));
                *title = long.into();
                true
            }
            // Two buttons with one id.
            _ => {
                let Some(buttons) = object.get_mut("buttons").and_then(Value::as_array_mut) else {
                    return false;
                };
                if buttons.len() < 2 {
                    return false;
                }
                let first = buttons[0]["id"].clone();
                buttons[1]["id"] = first;
                true
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 512,
            failure_persistence: None,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0xf1c5),
            ..ProptestConfig::default()
        })]

        #[test]
        fn safe_fixes_repair_every_safe_mutant_and_fixing_twice_changes_nothing(
            set in 0usize..64,
            mutations in proptest::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 1..4),
        ) {
            let sets = sets();
            let (original, subflows) = &sets[set % sets.len()];
            let mut mutant = original.clone();
            let mut changed = false;
            for (choice, pick, alias) in mutations {
                changed |= mutate(&mut mutant, choice, pick, alias);
            }
            prop_assume!(changed);
            let before = analyze_set(&mutant, subflows);
            prop_assert!(!before.valid, "the mutant is invalid: {}", mutant);
            let fixed = fix_document(&mutant, subflows, false);
            prop_assert!(fixed.valid, "still invalid after {:?}: {:?}", fixed.applied, fixed.issues);
            prop_assert!(fixed.applied.iter().all(|f| f.applicability == botmesh_flow_schema::Applicability::Safe));
            let again = fix_document(&fixed.document, subflows, false);
            prop_assert_eq!(&again.document, &fixed.document);
            prop_assert!(again.applied.is_empty(), "{:?}", again.applied);
        }
    }

    #[test]
    fn unsafe_fixes_only_when_asked() {
        let document = serde_json::json!({ "version": 2, "id": "f", "steps": [
            { "id": "a", "kind": "message", "text": "Hi", "next": "bey" },
            { "id": "bye", "kind": "message", "text": "Bye" },
        ]});
        let safe = fix_document(&document, &[], false);
        assert!(
            !safe.valid,
            "the nearest step for an unknown next is unsafe"
        );
        assert!(safe.applied.is_empty());
        let risky = fix_document(&document, &[], true);
        assert!(risky.valid, "{:?}", risky.issues);
        let applied: Vec<&str> = risky
            .applied
            .iter()
            .map(|f| f.description.as_str())
            .collect();
        assert_eq!(
            applied,
            [
                "point next at the nearest step id, \"bye\" (check it is the step meant)",
                "add an end step \"end\" after the last step, so paths that fall off end there"
            ]
        );
        assert_eq!(
            risky.document["steps"][2],
            serde_json::json!({"id": "end", "kind": "end"})
        );
        assert!(risky.diagnostics.is_empty(), "{:?}", risky.diagnostics);
    }
}
