//! Migration tests: golden files for the legacy fixtures, errors, id derivation, and
//! properties on arbitrary JSON.

use super::{flow_id_from_name, migrate};
use crate::{Error, canonical_json};
use expect_test::expect_file;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// A value with every object's keys in sorted order, whatever `serde_json::Map` does.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|key| (key.clone(), sorted(&map[key])))
                    .collect::<Map<_, _>>(),
            )
        }
        other => other.clone(),
    }
}

/// Pretty JSON with sorted keys and a final newline, as the golden files hold it.
pub(crate) fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(&sorted(value)).unwrap();
    text.push('\n');
    text
}

pub(crate) fn test_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data")
}

pub(crate) fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The `.json` files of a fixture folder, sorted by name.
pub(crate) fn fixtures(folder: &str) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(test_data().join(folder))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    paths
}

/// Every legacy fixture migrated to version 2: document, applied changes and issues.
/// Refresh with `UPDATE_EXPECT=1 cargo test -p botmesh-flow-schema`.
#[test]
fn legacy_fixtures_match_their_golden_migrations() {
    let mut checked = 0;
    for version in ["v0", "v1"] {
        for path in fixtures(&format!("flows/{version}")) {
            let document = read_json(&path);
            let migration =
                migrate(&document, 2).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            let golden = test_data().join(format!("migrate/{version}-{stem}.json"));
            expect_file![golden].assert_eq(&pretty(&serde_json::to_value(&migration).unwrap()));
            checked += 1;
        }
    }
    assert!(checked >= 13, "only {checked} fixtures");
}

/// Going 0 → 1 and then 1 → 2 gives what 0 → 2 gives, and the intermediate document is
/// version 1.
#[test]
fn migration_in_two_hops_equals_one() {
    for path in fixtures("flows/v0") {
        let document = read_json(&path);
        let direct = migrate(&document, 2).unwrap();
        let first = migrate(&document, 1).unwrap();
        assert_eq!(first.document["version"], 1, "{}", path.display());
        assert!(first.issues.is_empty());
        let second = migrate(&first.document, 2).unwrap();
        assert_eq!(second.document, direct.document, "{}", path.display());
        assert_eq!(first.applied[0], direct.applied[0]);
        assert_eq!(second.applied[0], direct.applied[1]);
    }
}

#[test]
fn menus_become_buttons_or_lists_by_option_count() {
    let menu = |n: usize| {
        let options: Vec<String> = (1..=n).map(|i| format!("Option {i}")).collect();
        json!({ "steps": [{ "id": "m", "type": "menu", "message": "Pick", "options": options }] })
    };
    for n in 1..=3 {
        let step = &migrate(&menu(n), 1).unwrap().document["steps"][0];
        assert_eq!(step["kind"], "buttons");
        assert_eq!(step["buttons"].as_array().unwrap().len(), n);
        assert_eq!(step["buttons"][n - 1]["id"], format!("opt{n}"));
        assert!(step.get("options").is_none());
    }
    for n in [4, 10, 11] {
        let step = &migrate(&menu(n), 1).unwrap().document["steps"][0];
        assert_eq!(step["kind"], "list");
        assert_eq!(step["button"], "Menu");
        let rows = step["sections"][0]["rows"].as_array().unwrap();
        assert_eq!(rows.len(), n, "every option is kept");
        assert_eq!(rows[n - 1]["title"], format!("Option {n}"));
    }
}

#[test]
fn titles_are_cut_at_a_character_boundary_and_reported() {
    let document = json!({ "steps": [{ "id": "m", "type": "menu", "message": "¿Qué?",
        "options": ["Ñandú ñandú ñandú ñandú ñandú", "Hablar con un asesor humano"] }] });
    let migration = migrate(&document, 1).unwrap();
    let buttons = &migration.document["steps"][0]["buttons"];
    assert_eq!(buttons[0]["title"], "Ñandú ñandú ñandú ña");
    assert_eq!(buttons[1]["title"], "Hablar con un asesor");
    let changes = &migration.applied[0].changes;
    assert!(changes.contains(&r#"menu step "m": option title "Hablar con un asesor humano" cut to 20 characters "Hablar con un asesor""#.to_owned()), "{changes:#?}");
}

#[test]
fn flow_ids_are_derived_from_names() {
    let cases = [
        ("Pedidos de Pizza", "pedidos-de-pizza"),
        ("  Café & Té — Pedidos  ", "cafe-te-pedidos"),
        ("ÑANDÚ", "nandu"),
        ("24/7 Help Desk!", "flow-24-7-help-desk"),
        ("ask_name flow", "ask_name-flow"),
        ("__private", "private"),
        ("Straße", "stra-e"),
        ("日本語", ""),
        ("", ""),
        ("---", ""),
    ];
    for (name, id) in cases {
        assert_eq!(flow_id_from_name(name), id, "name {name:?}");
    }
    let long = flow_id_from_name(&"a b ".repeat(40));
    assert_eq!(
        long.len(),
        63,
        "cut to 64 then the trailing dash trimmed: {long}"
    );
    assert!(!long.ends_with('-'));
    assert_eq!(flow_id_from_name(&"x".repeat(100)).len(), 64);
}

#[test]
fn a_name_without_letters_gives_the_id_flow() {
    let migration = migrate(&json!({ "name": "¡¿?!", "steps": [] }), 1).unwrap();
    assert_eq!(migration.document["id"], "flow");
    assert_eq!(
        migration.applied[0].changes[1],
        r#"set "id" to "flow" because there is no usable "name""#
    );
}

#[test]
fn missing_step_ids_skip_taken_ones() {
    let document = json!({ "steps": [
        { "type": "end" }, { "id": "s1", "type": "end" }, { "type": "end" },
        { "id": "s3", "type": "end" }, { "type": "end" } ] });
    let migration = migrate(&document, 1).unwrap();
    let ids: Vec<&Value> = migration.document["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| &step["id"])
        .collect();
    assert_eq!(
        ids,
        [
            &json!("s2"),
            &json!("s1"),
            &json!("s4"),
            &json!("s3"),
            &json!("s5")
        ]
    );
}

#[test]
fn delays_round_up_to_whole_seconds() {
    let cases = [
        (0, 1),
        (1, 1),
        (999, 1),
        (1000, 1),
        (1001, 2),
        (2500, 3),
        (86_400_000, 86_400),
    ];
    for (ms, seconds) in cases {
        let document =
            json!({ "version": 1, "id": "d", "steps": [{ "id": "w", "kind": "delay", "ms": ms }] });
        let step = &migrate(&document, 2).unwrap().document["steps"][0];
        assert_eq!(step["seconds"], seconds, "{ms} ms");
        assert!(step.get("ms").is_none());
    }
    let fractional =
        json!({ "version": 1, "id": "d", "steps": [{ "id": "w", "kind": "delay", "ms": 1000.5 }] });
    assert_eq!(
        migrate(&fractional, 2).unwrap().document["steps"][0]["seconds"],
        2
    );
}

#[test]
fn same_version_and_target_applies_nothing() {
    let document = json!({ "version": 1, "id": "x", "name": "Kept", "steps": [] });
    let migration = migrate(&document, 1).unwrap();
    assert_eq!(migration.document, document);
    assert_eq!((migration.from, migration.to), (1, 1));
    assert!(migration.applied.is_empty());
    assert!(migration.issues.is_empty());
}

#[test]
fn a_version_spelled_as_a_float_is_that_integer() {
    let migration = migrate(&json!({ "version": 1.0, "id": "x", "steps": [] }), 2).unwrap();
    assert_eq!(migration.from, 1);
    assert_eq!(migration.document["version"], 2);
}

#[test]
fn caller_errors_are_reported_with_a_sentence() {
    let cases = [
        (
            json!({ "version": "2" }),
            2,
            r#"version must be an integer from 0 to 2, found "2""#,
        ),
        (
            json!({ "version": 3 }),
            2,
            "version must be an integer from 0 to 2, found 3",
        ),
        (
            json!({ "version": 1.5 }),
            2,
            "version must be an integer from 0 to 2, found 1.5",
        ),
        (
            json!({ "version": -1 }),
            2,
            "version must be an integer from 0 to 2, found -1",
        ),
        (
            json!({ "version": null }),
            2,
            "version must be an integer from 0 to 2, found null",
        ),
        (
            json!({ "version": 2 }),
            1,
            "target 1 is below the document's version 2",
        ),
        (json!({}), 3, "target 3 is above the current version 2"),
        (
            json!([]),
            2,
            "the document must be a JSON object, found an array",
        ),
        (
            json!("flow"),
            2,
            "the document must be a JSON object, found a string",
        ),
    ];
    for (document, target, message) in cases {
        let error = migrate(&document, target).unwrap_err();
        assert_eq!(error.to_string(), message, "{document} to {target}");
    }
    assert_eq!(
        migrate(&json!({ "version": 2 }), 0).unwrap_err(),
        Error::BadTarget { from: 2, target: 0 }
    );
}

#[test]
fn unknown_keys_and_other_kinds_are_carried_over() {
    let document = json!({ "name": "Keep", "owner": "sales", "steps": [
        { "id": "a", "type": "location", "latitude": 40.4, "longitude": -3.7, "extra": [1, 2] } ] });
    let migrated = migrate(&document, 2).unwrap().document;
    assert_eq!(migrated["owner"], "sales");
    assert_eq!(migrated["steps"][0]["kind"], "location");
    assert_eq!(migrated["steps"][0]["extra"], json!([1, 2]));
    assert_eq!(migrated["metadata"]["title"], "Keep");
}

// ---------------------------------------------------------------------------------------
// Properties.

fn config(cases: u32) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(0x0102),
        failure_persistence: None,
        ..Config::default()
    }
}

/// Arbitrary JSON, biased towards the keys and kinds migration looks at.
pub(crate) fn json_like_a_flow() -> BoxedStrategy<Value> {
    let key = prop_oneof![
        Just("type".to_owned()),
        Just("kind".to_owned()),
        Just("message".to_owned()),
        Just("goto".to_owned()),
        Just("next".to_owned()),
        Just("options".to_owned()),
        Just("ms".to_owned()),
        Just("id".to_owned()),
        Just("variable".to_owned()),
        Just("conditions".to_owned()),
        Just("name".to_owned()),
        Just("description".to_owned()),
        Just("metadata".to_owned()),
        Just("title".to_owned()),
        Just("media".to_owned()),
        Just("save".to_owned()),
        Just("seconds".to_owned()),
        Just("button".to_owned()),
        // The 2023 dashboard's words.
        Just("var".to_owned()),
        Just("validate".to_owned()),
        Just("label".to_owned()),
        Just("queue".to_owned()),
        Just("when".to_owned()),
        Just("conditions".to_owned()),
        Just("variables".to_owned()),
        "[a-z]{1,3}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        prop_oneof![
            Just("menu"),
            Just("text"),
            Just("question"),
            Just("wait"),
            Just("image"),
            Just("ask"),
            Just("delay"),
            Just("branch"),
            Just("s1"),
            Just("opt1"),
            Just("input"),
            Just("transfer"),
            Just("set"),
            Just("Invoice"),
            Just("invoice"),
            Just("Support Bot"),
        ]
        .prop_map(Value::from),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..12).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
    .boxed()
}

/// A document: arbitrary top-level members and an array of arbitrary steps.
pub(crate) fn document() -> BoxedStrategy<Value> {
    (
        prop_oneof![Just(None), (0u64..=2).prop_map(Some), Just(Some(7))],
        prop::collection::vec(json_like_a_flow(), 0..8),
        json_like_a_flow(),
        json_like_a_flow(),
    )
        .prop_map(|(version, steps, name, extra)| {
            let mut map = Map::new();
            if let Some(version) = version {
                map.insert("version".into(), Value::from(version));
            }
            map.insert("steps".into(), Value::Array(steps));
            map.insert("name".into(), name);
            if let Value::Object(extra) = extra {
                map.extend(extra);
            }
            Value::Object(map)
        })
        .boxed()
}

proptest! {
    #![proptest_config(config(256))]

    /// Any JSON at all: migration answers `Ok` or one of its errors, never panics.
    #[test]
    fn never_panics_on_arbitrary_json(value in json_like_a_flow(), target in 0u64..4) {
        let _ = migrate(&value, target);
    }

    /// On documents, migrating the result again to the same target changes nothing, and
    /// two hops give what one hop gives.
    #[test]
    fn migrating_a_migrated_document_is_a_no_op(document in document(), target in 0u64..=2) {
        let Ok(first) = migrate(&document, target) else {
            return Ok(());
        };
        prop_assert_eq!(first.to, target);
        let again = migrate(&first.document, target).unwrap();
        prop_assert!(again.applied.is_empty());
        prop_assert_eq!(canonical_json(&again.document), canonical_json(&first.document));
        if first.from == 0 && target == 2 {
            let hop = migrate(&migrate(&document, 1).unwrap().document, 2).unwrap();
            prop_assert_eq!(hop.document, first.document);
        }
    }

    /// Nothing is dropped silently: every string of the input is still in the output
    /// document or quoted in a change sentence (menu options may be cut, and say so).
    #[test]
    fn no_string_is_lost(document in document()) {
        let Ok(migration) = migrate(&document, 2) else {
            return Ok(());
        };
        let output = migration.document.to_string();
        let sentences: Vec<&String> = migration.applied.iter().flat_map(|step| &step.changes).collect();
        let mut strings = Vec::new();
        collect_strings(&document, &mut strings);
        for text in strings {
            // The string as it appears inside JSON text and inside a quoted sentence.
            let quoted = Value::String(text.clone()).to_string();
            let inner = &quoted[1..quoted.len() - 1];
            prop_assert!(
                output.contains(inner) || sentences.iter().any(|sentence| sentence.contains(inner)),
                "lost {:?}", text
            );
        }
    }
}

/// A well-formed 2023 dashboard export: menus of `{ label, goto }` options, inputs with `var`
/// (some with capitals) and `validate`, messages that read them (`{{Invoice}}`), transfers with
/// a queue, an `id` that is a name.
fn dashboard_export() -> BoxedStrategy<Value> {
    const IDS: [&str; 4] = ["Support Bot", "Ventas 24h", "ok_id", "Ñandú Bot"];
    const VARS: [&str; 4] = ["Invoice", "OrderNumber", "city", "Email_Address"];
    const PATTERNS: [&str; 3] = ["^INV-[0-9]{4}$", "[a-z]+", "^\\d{5}$"];
    let step = (0u8..5, 0usize..64, 0usize..64, 1usize..=10);
    (0usize..4, prop::collection::vec(step, 2..12))
        .prop_map(|(id, picks)| {
            let count = picks.len();
            let target = |n: usize| format!("step{}", n % count);
            let steps: Vec<Value> = picks
                .iter()
                .enumerate()
                .map(|(i, &(kind, a, b, options))| {
                    let id = format!("step{i}");
                    match kind {
                        0 => json!({ "id": id, "type": "text", "message": format!("Hi {{{{contact_name}}}} {i}: {{{{{}}}}}", VARS[b % VARS.len()]), "goto": target(a) }),
                        1 => {
                            let mut step = json!({ "id": id, "type": "input", "message": "Your answer?", "var": VARS[a % VARS.len()] });
                            if b % 2 == 0 {
                                step["validate"] = json!(PATTERNS[b % PATTERNS.len()]);
                            }
                            step
                        }
                        2 => {
                            let options: Vec<Value> = (0..options)
                                .map(|k| json!({ "label": format!("Choice number {k} of {i}"), "goto": target(a + k) }))
                                .collect();
                            json!({ "id": id, "type": "menu", "message": "Pick one", "options": options })
                        }
                        3 => json!({ "id": id, "type": "transfer", "queue": format!("queue-{b}"), "message": "Connecting you" }),
                        _ => json!({ "id": id, "type": "end", "message": "Bye" }),
                    }
                })
                .collect();
            json!({ "id": IDS[id], "name": IDS[id], "steps": steps })
        })
        .boxed()
}

proptest! {
    #![proptest_config(config(256))]

    /// Every well-formed dashboard export becomes a valid version 2 document, every menu
    /// option going where it went, every transfer keeping its queue, every input its
    /// variable (lower-cased, and every placeholder that reads it) and its pattern.
    #[test]
    fn dashboard_exports_migrate_to_valid_documents(export in dashboard_export()) {
        let migration = migrate(&export, 2).unwrap();
        prop_assert_eq!(&migration.issues, &Vec::new(), "{:#}", migration.document);
        // No capital variable is left, in a placeholder either.
        let mut strings = Vec::new();
        collect_strings(&migration.document, &mut strings);
        for text in &strings {
            prop_assert_eq!(crate::program::capital_holes(text).count(), 0, "{}", text);
        }
        let before = export["steps"].as_array().unwrap();
        let after = migration.document["steps"].as_array().unwrap();
        for (old, new) in before.iter().zip(after) {
            match old["type"].as_str().unwrap() {
                "menu" => {
                    let items = new.get("buttons").cloned()
                        .unwrap_or_else(|| new["sections"][0]["rows"].clone());
                    let targets: Vec<&Value> = items.as_array().unwrap().iter().map(|i| &i["next"]).collect();
                    let wanted: Vec<&Value> = old["options"].as_array().unwrap().iter().map(|o| &o["goto"]).collect();
                    prop_assert_eq!(targets, wanted);
                }
                "transfer" => {
                    prop_assert_eq!(&new["kind"], "handoff");
                    prop_assert_eq!(&new["queue"], &old["queue"]);
                }
                "input" => {
                    prop_assert_eq!(&new["kind"], "ask");
                    let var = old["var"].as_str().unwrap().to_ascii_lowercase();
                    prop_assert_eq!(&new["save"], &json!(var));
                    prop_assert_eq!(new.get("pattern"), old.get("validate"));
                }
                _ => {}
            }
        }
    }
}

fn collect_strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => out.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|item| collect_strings(item, out)),
        Value::Object(map) => map.values().for_each(|item| collect_strings(item, out)),
        _ => {}
    }
}

#[test]
fn generated_ids_skip_taken_ones_in_one_pass() {
    // 3,000 steps without ids, then 3,000 that already use s1..s3000: the first group gets
    // s3001.., in order, as the step-by-step search would give.
    let mut steps: Vec<serde_json::Value> = (0..3000)
        .map(|_| serde_json::json!({"type": "text", "message": "hola"}))
        .collect();
    steps
        .extend((1..=3000).map(
            |n| serde_json::json!({"id": format!("s{n}"), "type": "text", "message": "hola"}),
        ));
    let doc = serde_json::json!({"name": "Big", "steps": steps});
    let migration = crate::migrate(&doc, 1).expect("migrates");
    let ids: Vec<&str> = migration.document["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter_map(|s| s["id"].as_str())
        .collect();
    assert_eq!(ids[0], "s3001");
    assert_eq!(ids[2999], "s6000");
    assert_eq!(ids[3000], "s1");
}

/// What no version knows is never passed on silently: a kind, a key; each is named in
/// `changes` with what became of it.
#[test]
fn migration_names_what_it_did_not_understand() {
    let legacy = json!({ "name": "Soporte", "colour": "red", "steps": [
        { "id": "t", "type": "teleport", "message": "Un momento" },
        { "id": "m", "type": "menu", "message": "¿Qué?", "options": ["Sí", ["No"]] },
        { "id": "x", "type": "text", "message": "Hola", "colour": "blue" },
    ]});
    let migration = migrate(&legacy, 2).unwrap();
    let changes: Vec<&str> = migration
        .applied
        .iter()
        .flat_map(|step| step.changes.iter().map(String::as_str))
        .filter(|change| change.contains("kept"))
        .collect();
    assert_eq!(
        changes,
        [
            "step \"t\": kept as is: no version has kind \"teleport\"",
            "menu step \"m\": option 2 is an array instead of a string and was kept as its title",
            "kept as is: no version has the top-level key \"colour\"",
            "step \"x\": kept as is: no version has the key \"colour\"",
            "kept as is: no version has the top-level key \"colour\"",
            "step \"x\": kept as is: no version has the key \"colour\"",
        ]
    );
}

// ---------------------------------------------------------------------------------------
// The 2023 dashboard's words (spec §4): one case per word.

/// Every change sentence of a migration to version 2.
fn sentences(migration: &super::Migration) -> Vec<&str> {
    migration
        .applied
        .iter()
        .flat_map(|step| step.changes.iter().map(String::as_str))
        .collect()
}

#[test]
fn dashboard_input_becomes_an_ask_with_save_and_pattern() {
    let legacy = json!({ "name": "Facturas", "steps": [
        { "id": "num", "type": "input", "message": "¿Número de factura?", "var": "invoice",
          "validate": "^INV-[0-9]{4}$", "retries": 1 } ]});
    let migration = migrate(&legacy, 2).unwrap();
    assert_eq!(
        migration.document["steps"][0],
        json!({ "id": "num", "kind": "ask", "text": "¿Número de factura?", "save": "invoice",
                "pattern": "^INV-[0-9]{4}$", "retries": 1 })
    );
    assert_eq!(migration.issues, []);
    let said = sentences(&migration);
    for sentence in [
        "changed kind \"input\" to \"ask\" in 1 step",
        "renamed \"var\" to \"variable\" in 1 ask step",
        "renamed \"validate\" to \"pattern\" in 1 ask step",
        "renamed \"variable\" to \"save\" in 1 ask step",
    ] {
        assert!(said.contains(&sentence), "{sentence} in {said:#?}");
    }
    // The dashboard's words on the older `question` kind mean the same.
    let question =
        json!({ "steps": [{ "id": "q", "type": "question", "message": "?", "var": "a" }] });
    assert_eq!(
        migrate(&question, 2).unwrap().document["steps"][0]["save"],
        "a"
    );
    // Both names: the version 1 name wins, the dashboard's stays for validation to point at.
    let both = json!({ "steps": [{ "id": "q", "type": "input", "message": "?", "var": "a", "variable": "b" }] });
    let migration = migrate(&both, 2).unwrap();
    assert_eq!(migration.document["steps"][0]["save"], "b");
    assert_eq!(migration.document["steps"][0]["var"], "a");
    assert!(sentences(&migration).contains(
        &"step \"q\" has both \"var\" and \"variable\": kept \"variable\" and left \"var\" as it was"
    ));
}

#[test]
fn dashboard_transfer_becomes_a_handoff_keeping_its_queue() {
    let legacy = json!({ "name": "Soporte", "steps": [
        { "id": "agent", "type": "transfer", "queue": "billing", "message": "Te paso con una persona" } ]});
    let migration = migrate(&legacy, 2).unwrap();
    assert_eq!(
        migration.document["steps"][0],
        json!({ "id": "agent", "kind": "handoff", "queue": "billing", "text": "Te paso con una persona" })
    );
    assert_eq!(migration.issues, []);
    let said = sentences(&migration);
    assert!(
        said.contains(&"changed kind \"transfer\" to \"handoff\" in 1 step"),
        "{said:#?}"
    );
    assert!(
        said.contains(&"renamed \"message\" to \"text\" in 1 step"),
        "{said:#?}"
    );
    // A transfer the dashboard gave a goto: a handoff never goes on, so the target is dropped
    // and quoted, and the document is valid.
    let legacy = json!({ "name": "Soporte", "steps": [
        { "id": "agent", "type": "transfer", "queue": "billing", "goto": "bye" },
        { "id": "bye", "type": "end", "goto": "agent" } ]});
    let migration = migrate(&legacy, 2).unwrap();
    assert_eq!(migration.issues, []);
    assert_eq!(
        migration.document["steps"][0],
        json!({ "id": "agent", "kind": "handoff", "queue": "billing" })
    );
    let said = sentences(&migration);
    for sentence in [
        "step \"agent\": removed \"next\" \"bye\": a handoff step never goes on (the conversation leaves the bot)",
        "step \"bye\": removed \"next\" \"agent\": an end step never goes on (it ends the flow)",
    ] {
        assert!(said.contains(&sentence), "{sentence} in {said:#?}");
    }
}

#[test]
fn dashboard_option_objects_keep_their_routing() {
    let legacy = json!({ "name": "Menú", "steps": [
        { "id": "menu", "type": "menu", "message": "¿Qué necesitas?", "var": "Topic", "options": [
            { "label": "Facturas", "goto": "bills" },
            { "title": "Horario", "next": "hours" },
            "Otra cosa" ] },
        { "id": "other", "type": "end", "message": "Escríbenos." },
        { "id": "bills", "type": "end", "message": "Facturas." },
        { "id": "hours", "type": "end", "message": "De 9 a 18." } ]});
    let migration = migrate(&legacy, 2).unwrap();
    // The menu's variable (by the question's word) is the buttons' save, lower-cased.
    assert_eq!(migration.document["steps"][0]["save"], "topic");
    assert_eq!(
        migration.document["steps"][0]["buttons"],
        json!([
            { "id": "opt1", "title": "Facturas", "next": "bills" },
            { "id": "opt2", "title": "Horario", "next": "hours" },
            { "id": "opt3", "title": "Otra cosa" } ])
    );
    assert_eq!(migration.issues, []);
    assert!(sentences(&migration).contains(
        &"menu step \"menu\": 2 options were objects: \"label\" or \"title\" became each button's \"title\" and \"goto\" or \"next\" each button's \"next\""
    ));
    // Four options or more become rows, routed the same way; a long label is cut as a title is.
    let options: Vec<Value> = (1..=5)
        .map(|i| json!({ "label": format!("Option number {i} of the menu"), "goto": format!("s{i}") }))
        .collect();
    let mut steps =
        vec![json!({ "id": "menu", "type": "menu", "message": "Pick", "options": options })];
    steps.extend((1..=5).map(|i| json!({ "id": format!("s{i}"), "type": "end" })));
    let migration = migrate(&json!({ "name": "Rows", "steps": steps }), 2).unwrap();
    let rows = &migration.document["steps"][0]["sections"][0]["rows"];
    assert_eq!(
        rows[4],
        json!({ "id": "opt5", "title": "Option number 5 of the m", "next": "s5" })
    );
    assert_eq!(migration.issues, []);
    let said = sentences(&migration);
    assert!(said.contains(&"menu step \"menu\": 5 options were objects: \"label\" became each row's \"title\" and \"goto\" each row's \"next\""), "{said:#?}");
    assert!(said.contains(&"menu step \"menu\": option title \"Option number 5 of the menu\" cut to 24 characters \"Option number 5 of the m\""), "{said:#?}");
}

#[test]
fn odd_option_objects_are_kept_and_named() {
    let legacy = json!({ "name": "Odd", "steps": [
        { "id": "m", "type": "menu", "message": "?", "options": [
            { "label": "A", "title": "B", "goto": "x", "next": "y" },
            { "goto": "x" },
            { "label": "C", "colour": "red" } ] },
        { "id": "x", "type": "end" }, { "id": "y", "type": "end" } ]});
    let migration = migrate(&legacy, 2).unwrap();
    assert_eq!(
        migration.document["steps"][0]["buttons"],
        json!([
            { "id": "opt1", "title": "B", "label": "A", "next": "y", "goto": "x" },
            { "id": "opt2", "next": "x" },
            { "id": "opt3", "title": "C", "colour": "red" } ])
    );
    let said = sentences(&migration);
    for sentence in [
        "menu step \"m\": option 1 has both \"title\" and \"label\": read \"title\" and left \"label\" on its button as it was",
        "menu step \"m\": option 1 has both \"next\" and \"goto\": read \"next\" and left \"goto\" on its button as it was",
        "menu step \"m\": option 2 is an object without \"label\" or \"title\": its button has no title",
        "menu step \"m\": option 3's \"colour\" \"red\" was kept on its button as it is",
    ] {
        assert!(said.contains(&sentence), "{sentence} in {said:#?}");
    }
    assert!(
        !said.iter().any(|s| s.contains("option 1's")),
        "the label left beside a title is named once: {said:#?}"
    );
    // Validation then points at each: nothing was lost, nothing is silently wrong.
    let paths: Vec<&str> = migration.issues.iter().map(|i| i.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/steps/0/buttons/0/goto",
            "/steps/0/buttons/0/label",
            "/steps/0/buttons/1",
            "/steps/0/buttons/2/colour"
        ]
    );
}

#[test]
fn dashboard_ids_that_are_not_flow_ids_are_turned_into_one() {
    let cases = [
        (json!("Support Bot"), "support-bot"),
        (json!("Atención Cliente 24h"), "atencion-cliente-24h"),
        (json!("ask_name"), "ask_name"),
        (json!(2023), "flow-2023"),
        (json!("日本語"), "from-the-name"),
        (json!(null), "from-the-name"),
    ];
    for (id, expected) in cases {
        let legacy =
            json!({ "id": id, "name": "From the name", "steps": [{ "id": "e", "type": "end" }] });
        let migration = migrate(&legacy, 2).unwrap();
        assert_eq!(migration.document["id"], expected, "{id}");
        assert_eq!(migration.issues, [], "{id}");
        let said = sentences(&migration);
        if id == expected {
            assert!(
                !said.iter().any(|s| s.contains("\"id\"")),
                "a valid id is kept: {said:#?}"
            );
        } else {
            let sentence = format!(
                "changed \"id\" {id} to \"{expected}\": a flow id is a lowercase letter, then lowercase letters, digits, \"_\" or \"-\""
            );
            assert!(said.contains(&sentence.as_str()), "{sentence} in {said:#?}");
        }
    }
}

#[test]
fn dashboard_capital_variables_are_lower_cased_where_they_are_named() {
    let legacy = json!({ "name": "Caps", "variables": { "Plan": { "type": "string" } }, "steps": [
        { "id": "ask", "type": "input", "message": "Invoice?", "var": "Invoice" },
        { "id": "check", "type": "branch", "conditions": [
            { "when": { "all": [{ "var": "Invoice", "op": "exists" }, { "not": { "var": "Plan", "op": "eq", "value": "x" } }] }, "next": "done" } ] },
        { "id": "pick", "type": "menu", "message": "Plan?", "options": ["Basic"], "save": "Plan" },
        { "id": "done", "type": "end" } ]});
    let migration = migrate(&legacy, 2).unwrap();
    let document = &migration.document;
    assert_eq!(document["steps"][0]["save"], "invoice");
    assert_eq!(
        document["steps"][1]["cases"][0]["when"]["all"][0]["var"],
        "invoice"
    );
    assert_eq!(
        document["steps"][1]["cases"][0]["when"]["all"][1]["not"]["var"],
        "plan"
    );
    assert_eq!(document["steps"][2]["save"], "plan");
    assert_eq!(
        document["variables"],
        json!({ "plan": { "type": "string" } })
    );
    assert_eq!(migration.issues, []);
    let said = sentences(&migration);
    for sentence in [
        "renamed the variable \"Invoice\" to \"invoice\" (variable names are lower case) in step \"ask\", step \"check\"",
        "renamed the variable \"Plan\" to \"plan\" (variable names are lower case) in step \"check\", step \"pick\", its declaration",
    ] {
        assert!(said.contains(&sentence), "{sentence} in {said:#?}");
    }
}

#[test]
fn capital_placeholders_are_lower_cased_in_every_interpolated_field() {
    let legacy = json!({ "name": "Caps", "steps": [
        { "id": "ask", "type": "input", "message": "Invoice, {{Contact_Name}}?", "var": "Invoice",
          "retryText": "Not an invoice: {{ Invoice }}", "validate": "^INV" },
        { "id": "pic", "type": "image", "url": "https://example.com/i.png", "caption": "{{Invoice}}" },
        { "id": "keep", "type": "set", "var": "Copy", "value": "copy of {{Invoice}}" },
        { "id": "tpl", "type": "template", "name": "receipt", "language": "en", "parameters": ["{{Invoice}}", "{{Copy}}"] },
        { "id": "call", "type": "action", "handler": "billing.lookup", "args": { "ids": ["{{Invoice}}"], "who": { "n": "{{Name}}" } }, "save": "Result" },
        { "id": "bye", "type": "end", "message": "{{Invoice}} {{Result}}, {{Name}}. {{Invoice}}" } ]});
    let migration = migrate(&legacy, 2).unwrap();
    let document = &migration.document;
    let at = |pointer: &str| document.pointer(pointer).cloned().unwrap_or_default();
    assert_eq!(at("/steps/0/text"), "Invoice, {{Contact_Name}}?");
    assert_eq!(at("/steps/0/retryText"), "Not an invoice: {{ invoice }}");
    assert_eq!(at("/steps/1/caption"), "{{invoice}}");
    assert_eq!(at("/steps/2/var"), "copy");
    assert_eq!(at("/steps/2/value"), "copy of {{invoice}}");
    assert_eq!(
        at("/steps/3/parameters"),
        json!(["{{invoice}}", "{{copy}}"])
    );
    assert_eq!(at("/steps/4/args/ids/0"), "{{invoice}}");
    assert_eq!(at("/steps/4/args/who/n"), "{{name}}");
    assert_eq!(at("/steps/4/save"), "result");
    assert_eq!(
        at("/steps/5/text"),
        "{{invoice}} {{result}}, {{name}}. {{invoice}}"
    );
    let said = sentences(&migration);
    for sentence in [
        "renamed the variable \"Invoice\" to \"invoice\" (variable names are lower case) in step \"ask\" and 7 placeholders of step \"ask\", step \"pic\", step \"keep\", step \"tpl\", step \"call\", step \"bye\"",
        "left the variable \"Contact_Name\" as it is: lower-cased it would be \"contact_name\", which is a built-in variable; rename it",
        "renamed the variable \"Copy\" to \"copy\" (variable names are lower case) in step \"keep\" and 1 placeholder of step \"tpl\"",
        "renamed the variable \"Name\" to \"name\" (variable names are lower case) in 2 placeholders of step \"call\", step \"bye\"",
        "renamed the variable \"Result\" to \"result\" (variable names are lower case) in step \"call\" and 1 placeholder of step \"bye\"",
    ] {
        assert!(said.contains(&sentence), "{sentence} in {said:#?}");
    }
    // The one left is reported by validation or lint, not sent as written unnoticed.
    assert_eq!(migration.issues, []);
}

#[test]
fn a_capital_placeholder_that_would_clash_is_left_with_its_variable() {
    let legacy = json!({ "name": "Clash", "steps": [
        { "id": "a", "type": "input", "message": "?", "var": "Total" },
        { "id": "b", "type": "text", "message": "{{Total}} or {{total}}?" } ]});
    let migration = migrate(&legacy, 2).unwrap();
    assert_eq!(migration.document["steps"][0]["save"], "Total");
    assert_eq!(
        migration.document["steps"][1]["text"],
        "{{Total}} or {{total}}?"
    );
    assert!(sentences(&migration).contains(
        &"left the variable \"Total\" as it is: lower-cased it would be \"total\", which this document also uses (in step \"b\"); rename one of them"
    ));
}

#[test]
fn capital_variables_that_would_clash_are_left_and_reported() {
    let legacy = json!({ "name": "Clash", "steps": [
        { "id": "a", "type": "input", "message": "?", "var": "Total" },
        { "id": "b", "type": "input", "message": "?", "var": "total" },
        { "id": "c", "type": "input", "message": "?", "var": "Code" },
        { "id": "d", "type": "input", "message": "?", "var": "CODE" },
        { "id": "e", "type": "input", "message": "?", "var": "Contact_Name" },
        { "id": "f", "type": "input", "message": "?", "var": "Año" } ]});
    let migration = migrate(&legacy, 2).unwrap();
    let saves: Vec<&Value> = (0..6)
        .map(|i| &migration.document["steps"][i]["save"])
        .collect();
    assert_eq!(
        saves,
        ["Total", "total", "Code", "CODE", "Contact_Name", "Año"]
    );
    let said = sentences(&migration);
    for sentence in [
        "left the variable \"Total\" as it is: lower-cased it would be \"total\", which this document also uses (in step \"b\"); rename one of them",
        "left the variable \"Code\" as it is: lower-cased it would be \"code\", as is \"CODE\"; rename one of them",
        "left the variable \"CODE\" as it is: lower-cased it would be \"code\", as is \"Code\"; rename one of them",
        "left the variable \"Contact_Name\" as it is: lower-cased it would be \"contact_name\", which is a built-in variable; rename it",
    ] {
        assert!(said.contains(&sentence), "{sentence} in {said:#?}");
    }
    // "Año" is no variable name even lower-cased: validation reports it, migration does not.
    assert!(!said.iter().any(|s| s.contains("Año")), "{said:#?}");
    assert!(migration.issues.iter().any(|i| i.path == "/steps/5/save"));
}

/// The 2023 dashboard exports (`test_data/flows/v0/dashboard-*.json`) become valid version 2
/// documents whose menus go where the dashboard's went and that name no variable with capitals,
/// in a placeholder either; their golden migrations are checked with the other fixtures, and
/// `mcp-bin`'s end-to-end tests run them.
#[test]
fn the_dashboard_exports_migrate_to_valid_documents_with_their_routing() {
    let exports: Vec<PathBuf> = fixtures("flows/v0")
        .into_iter()
        .filter(|path| {
            path.file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with("dashboard-"))
        })
        .collect();
    assert_eq!(exports.len(), 3, "{exports:?}");
    for path in exports {
        let export = read_json(&path);
        let migration = migrate(&export, 2).unwrap();
        let name = path.display();
        assert_eq!(migration.issues, [], "{name}");
        let document = &migration.document;
        assert!(crate::validate::is_flow_id(
            document["id"].as_str().unwrap()
        ));
        let mut menus = 0;
        for (old, new) in export["steps"]
            .as_array()
            .unwrap()
            .iter()
            .zip(document["steps"].as_array().unwrap())
        {
            let Some(options) = old.get("options").and_then(Value::as_array) else {
                continue;
            };
            menus += 1;
            let items = new
                .get("buttons")
                .cloned()
                .unwrap_or_else(|| new["sections"][0]["rows"].clone());
            let items = items.as_array().unwrap();
            assert_eq!(items.len(), options.len(), "{name}");
            for (option, item) in options.iter().zip(items) {
                let title = option.get("label").or_else(|| option.get("title"));
                let target = option.get("goto").or_else(|| option.get("next"));
                assert_eq!(Some(&item["title"]), title, "{name}");
                assert_eq!(Some(&item["next"]), target, "{name}");
            }
        }
        assert!(menus > 0, "{name}");
        for place in crate::rename::places(document) {
            assert!(
                !place.name.bytes().any(|b| b.is_ascii_uppercase()),
                "{name}: {place:?}"
            );
        }
        let mut strings = Vec::new();
        collect_strings(document, &mut strings);
        for text in &strings {
            assert_eq!(
                crate::program::capital_holes(text).count(),
                0,
                "{name}: {text}"
            );
        }
    }
}
