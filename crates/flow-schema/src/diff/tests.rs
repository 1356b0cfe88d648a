//! Diff tests: golden files for document pairs, errors, and properties.

use super::diff;
use crate::migrate::tests::{json_like_a_flow, pretty, read_json, test_data};
use crate::{digest, migrate};
use expect_test::expect_file;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use serde_json::{Value, json};

/// Every `<case>.left.json` with its `<case>.right.json`, diffed into `<case>.diff.json`.
/// Refresh with `UPDATE_EXPECT=1 cargo test -p botmesh-flow-schema`.
#[test]
fn document_pairs_match_their_golden_diffs() {
    let folder = test_data().join("diff");
    let mut lefts: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().ends_with(".left.json"))
        .collect();
    lefts.sort();
    for left_path in &lefts {
        let case = left_path.to_string_lossy().replace(".left.json", "");
        let left = read_json(left_path);
        let right = read_json(format!("{case}.right.json").as_ref());
        let found = diff(&left, &right).unwrap();
        expect_file![format!("{case}.diff.json")]
            .assert_eq(&pretty(&serde_json::to_value(&found).unwrap()));
    }
    assert!(lefts.len() >= 5, "only {} cases", lefts.len());
}

#[test]
fn spelling_alone_is_no_change() {
    let left = read_json(&test_data().join("diff/respelled.left.json"));
    let right = read_json(&test_data().join("diff/respelled.right.json"));
    let found = diff(&left, &right).unwrap();
    assert!(!found.changed);
    assert_eq!(found.before, found.after);
    assert!(found.metadata.is_empty() && found.changed_steps.is_empty() && !found.reordered);
}

#[test]
fn before_and_after_are_digests_of_the_migrated_documents() {
    let left = read_json(&test_data().join("flows/v0/pizza-es.json"));
    let right = read_json(&test_data().join("flows/v1/restaurant-es.json"));
    let found = diff(&left, &right).unwrap();
    assert_eq!(
        found.before,
        digest(&migrate(&left, 2).unwrap().document).digest
    );
    assert_eq!(
        found.after,
        digest(&migrate(&right, 2).unwrap().document).digest
    );
    assert!(found.changed);
    // Nothing in common: every step is added or removed.
    assert_eq!(found.removed.len(), 6);
    assert_eq!(found.added.len(), 7);
    assert!(found.changed_steps.is_empty());
}

#[test]
fn a_document_that_cannot_be_migrated_is_a_caller_error() {
    let good = json!({ "version": 2, "id": "a", "steps": [] });
    let cases = [
        (
            json!({ "version": 3 }),
            good.clone(),
            "the left document cannot be migrated: version must be an integer from 0 to 2, found 3",
        ),
        (
            good.clone(),
            json!({ "version": "2" }),
            r#"the right document cannot be migrated: version must be an integer from 0 to 2, found "2""#,
        ),
        (
            good.clone(),
            json!(null),
            "the right document cannot be migrated: the document must be a JSON object, found null",
        ),
    ];
    for (left, right, message) in cases {
        assert_eq!(diff(&left, &right).unwrap_err().to_string(), message);
    }
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(0x0006),
        failure_persistence: None,
        ..Config::default()
    }
}

/// A small version 2 document: steps drawn from a fixed pool of ids, in any order, some of
/// them menus whose buttons come from a small pool (so nested changes happen).
fn document() -> impl Strategy<Value = Value> {
    let button = (0u8..3, 0u8..3)
        .prop_map(|(id, title)| json!({ "id": format!("b{id}"), "title": format!("T{title}") }));
    let step = (
        0usize..6,
        0u8..3,
        prop::option::of(0u8..3),
        prop::option::of(prop::collection::vec(button, 1..4)),
    )
        .prop_map(|(id, text, next, buttons)| {
            let mut step =
                json!({ "id": format!("s{id}"), "kind": "message", "text": format!("t{text}") });
            if let Some(next) = next {
                step["next"] = json!(format!("s{next}"));
            }
            if let Some(buttons) = buttons {
                step["kind"] = json!("buttons");
                step["buttons"] = json!(buttons);
            }
            step
        });
    (prop::collection::vec(step, 0..6), 0u8..2, prop::collection::vec(0u8..3, 0..3)).prop_map(
        |(steps, title, tags)| {
            let tags: Vec<String> = tags.iter().map(|t| format!("g{t}")).collect();
            json!({ "version": 2, "id": "p", "metadata": { "title": format!("T{title}"), "tags": tags }, "steps": steps })
        },
    )
}

/// A change seen from the step (or the top level): its field, its path below the step, and
/// its two values.
fn seen(change: &super::FieldChange, swap: bool) -> (String, String, Option<Value>, Option<Value>) {
    let below = match change.path.strip_prefix("/steps/") {
        Some(rest) => rest.find('/').map_or("", |at| &rest[at..]).to_owned(),
        None => change.path.clone(),
    };
    let (before, after) = if swap {
        (change.after.clone(), change.before.clone())
    } else {
        (change.before.clone(), change.after.clone())
    };
    (change.field.clone(), below, before, after)
}

proptest! {
    #![proptest_config(config(256))]

    /// Any pair of JSON values: a diff or a caller error, never a panic; a document
    /// compared with itself is unchanged whenever it can be migrated.
    #[test]
    fn never_panics_on_arbitrary_json(
        left in json_like_a_flow(),
        right in crate::migrate::tests::document(),
    ) {
        let _ = diff(&left, &right);
        if let Ok(found) = diff(&right, &right) {
            prop_assert!(!found.changed);
        }
    }

    /// A document never differs from itself, and swapping sides swaps the lists.
    #[test]
    fn diff_is_symmetric(left in document(), right in document()) {
        let same = diff(&left, &left).unwrap();
        prop_assert!(!same.changed && same.added.is_empty() && same.changed_steps.is_empty());
        let forward = diff(&left, &right).unwrap();
        let backward = diff(&right, &left).unwrap();
        prop_assert_eq!(&forward.added, &backward.removed);
        prop_assert_eq!(&forward.removed, &backward.added);
        prop_assert_eq!(&forward.metadata, &backward.metadata);
        prop_assert_eq!(forward.changed, backward.changed);
        prop_assert_eq!(forward.reordered, backward.reordered);
        let mut a: Vec<_> = forward.changed_steps.iter().map(|s| (&s.id, &s.fields)).collect();
        let mut b: Vec<_> = backward.changed_steps.iter().map(|s| (&s.id, &s.fields)).collect();
        a.sort();
        b.sort();
        prop_assert_eq!(a, b);
        // Each value change is seen the same way from both sides, its values swapped, and the
        // value after a change is what the right document holds at its path.
        for step in &forward.changed_steps {
            let back = backward.changed_steps.iter().find(|s| s.id == step.id).unwrap();
            let there: Vec<_> = step.values.iter().map(|c| seen(c, false)).collect();
            let back: Vec<_> = back.values.iter().map(|c| seen(c, true)).collect();
            prop_assert_eq!(there, back);
            prop_assert!(!step.values.is_empty());
            for change in &step.values {
                if let Some(after) = &change.after {
                    prop_assert_eq!(right.pointer(&change.path), Some(after));
                }
            }
        }
        let there: Vec<_> = forward.metadata_values.iter().map(|c| seen(c, false)).collect();
        let back: Vec<_> = backward.metadata_values.iter().map(|c| seen(c, true)).collect();
        prop_assert_eq!(there, back);
        prop_assert_eq!(forward.metadata_values.is_empty(), forward.metadata.is_empty());
        // Added and removed steps carry what the documents hold there.
        for entry in &forward.added_steps {
            prop_assert_eq!(right.pointer(&entry.path), Some(&entry.step));
        }
        for entry in &forward.removed_steps {
            prop_assert_eq!(left.pointer(&entry.path), Some(&entry.step));
        }
        // Something is listed exactly when the documents differ.
        let listed = !forward.metadata.is_empty() || !forward.added.is_empty()
            || !forward.removed.is_empty() || !forward.changed_steps.is_empty() || forward.reordered;
        prop_assert_eq!(forward.changed, listed);
    }
}

#[test]
fn long_values_are_cut_and_marked() {
    let long = "é".repeat(300);
    let left = json!({ "version": 2, "id": "a", "steps": [{ "id": "s", "kind": "message", "text": long }] });
    let right = json!({ "version": 2, "id": "a", "steps": [{ "id": "s", "kind": "message", "text": "short" }] });
    let found = diff(&left, &right).unwrap();
    let change = &found.changed_steps[0].values[0];
    assert_eq!(change.field, "text");
    assert!(change.cut);
    let before = change.before.as_ref().unwrap().as_str().unwrap();
    assert_eq!(before.chars().count(), super::MAX_DIFF_VALUE + 1);
    assert!(before.starts_with("\"éé") && before.ends_with('…'));
    assert_eq!(change.after, Some(json!("short")));
}
