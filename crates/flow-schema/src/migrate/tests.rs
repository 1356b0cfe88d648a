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

/// What no version knows is never passed on silently: a kind, a menu option that is an
/// object, a key; each is named in `changes` with what became of it.
#[test]
fn migration_names_what_it_did_not_understand() {
    let legacy = json!({ "name": "Soporte", "colour": "red", "steps": [
        { "id": "t", "type": "transfer", "message": "Un momento" },
        { "id": "m", "type": "menu", "message": "¿Qué?", "options": ["Sí", { "label": "No" }] },
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
            "step \"t\": kept as is: no version has kind \"transfer\"; did you mean handoff?",
            "menu step \"m\": option 2 is an object instead of a string and was kept as its title",
            "kept as is: no version has the top-level key \"colour\"",
            "step \"x\": kept as is: no version has the key \"colour\"",
            "kept as is: no version has the top-level key \"colour\"",
            "step \"x\": kept as is: no version has the key \"colour\"",
        ]
    );
}
