//! The source map against the parsed value: for random documents written with random
//! whitespace, every pointer's value range holds that value, every key range holds that key,
//! and the line and column are where the range starts.
use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::*;

/// Writes `value` with the whitespace `gaps` says (cycled), so positions are not trivial.
fn write(value: &Value, gaps: &[&str], at: &mut usize, out: &mut String) {
    fn gap(gaps: &[&str], at: &mut usize, out: &mut String) {
        out.push_str(gaps[*at % gaps.len()]);
        *at += 1;
    }
    match value {
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                gap(gaps, at, out);
                out.push_str(&Value::from(key.as_str()).to_string());
                gap(gaps, at, out);
                out.push(':');
                gap(gaps, at, out);
                write(item, gaps, at, out);
                gap(gaps, at, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                gap(gaps, at, out);
                write(item, gaps, at, out);
                gap(gaps, at, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

fn every_pointer(value: &Value, pointer: String, out: &mut Vec<(String, Option<String>)>) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                let mut child = pointer.clone();
                push_token(&mut child, key);
                out.push((child.clone(), Some(key.clone())));
                every_pointer(item, child, out);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let child = format!("{pointer}/{index}");
                out.push((child.clone(), None));
                every_pointer(item, child, out);
            }
        }
        _ => {}
    }
}

/// Line and column of a byte offset, counted the plain way.
fn naive(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

fn value_strategy() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        "[a-z/~\"\\\\é😀\u{2028}\n ]{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec(("[a-z/~\"é😀 ]{0,6}", inner), 0..5)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, rng_seed: proptest::test_runner::RngSeed::Fixed(0x5017ce), ..ProptestConfig::default() })]

    #[test]
    fn every_pointer_is_where_its_member_is(
        value in value_strategy(),
        gaps in prop::collection::vec(prop_oneof![Just(""), Just(" "), Just("\n"), Just("\r\n  "), Just("\t")], 1..6),
    ) {
        let mut text = String::new();
        let mut at = 0;
        write(&value, &gaps, &mut at, &mut text);
        let (parsed, map) = parse_with_positions(&text).expect("written JSON parses");
        prop_assert_eq!(&parsed, &value);
        let mut pointers = vec![(String::new(), None)];
        every_pointer(&value, String::new(), &mut pointers);
        for (pointer, key) in pointers {
            let member = map.member(&pointer).expect("every pointer is mapped");
            let held: Value = serde_json::from_str(&text[member.value.clone()]).expect("a value");
            prop_assert_eq!(Some(&held), value.pointer(&pointer), "{}", pointer);
            prop_assert_eq!(member.key.is_some(), key.is_some());
            if let (Some(range), Some(key)) = (&member.key, &key) {
                let held: String = serde_json::from_str(&text[range.clone()]).expect("a key");
                prop_assert_eq!(&held, key);
            }
            let location = map.locate(&pointer, key.is_some()).expect("located");
            let start = member.key.clone().filter(|_| key.is_some()).unwrap_or(member.value.clone());
            prop_assert_eq!((location.line, location.column), naive(&text, start.start));
            prop_assert_eq!((location.end_line, location.end_column), naive(&text, start.end));
        }
    }

    /// A `replace` or a `remove` written into the text changes nothing outside the member: the
    /// text before it is the same bytes, and so is the text after it (past the comma a removal
    /// takes with it), whatever the whitespace around.
    #[test]
    fn text_edits_leave_every_other_byte_alone(
        value in value_strategy(),
        gaps in prop::collection::vec(prop_oneof![Just(""), Just(" "), Just("\n"), Just("\r\n  "), Just("\t")], 1..6),
        pick in any::<prop::sample::Index>(),
        new in value_strategy(),
        remove in any::<bool>(),
    ) {
        let mut text = String::new();
        let mut at = 0;
        write(&value, &gaps, &mut at, &mut text);
        let mut pointers = Vec::new();
        every_pointer(&value, String::new(), &mut pointers);
        prop_assume!(!pointers.is_empty());
        let (pointer, _) = &pointers[pick.index(pointers.len())];
        let (_, map) = parse_with_positions(&text).expect("JSON");
        let member = map.member(pointer).expect("mapped").clone();
        let start = member.key.clone().map_or(member.value.start, |k| k.start);
        let op = if remove {
            json!({"op": "remove", "path": pointer})
        } else {
            json!({"op": "replace", "path": pointer, "value": new})
        };
        let edited = edit_text(&text, std::slice::from_ref(&op)).expect("a replace or remove is a text edit");
        let mut expected = value.clone();
        crate::apply_patch(&mut expected, &[op]).expect("the patch applies");
        prop_assert_eq!(serde_json::from_str::<Value>(&edited).expect("JSON"), expected);
        if remove {
            // Before the member (or the comma before it) and after it all is kept.
            let kept_before = edited.starts_with(&text[..start])
                || text[..start].trim_end().ends_with(',');
            prop_assert!(kept_before, "{:?} -> {:?}", text, edited);
            prop_assert!(edited.len() < text.len());
        } else {
            prop_assert!(edited.starts_with(&text[..member.value.start]));
            prop_assert!(edited.ends_with(&text[member.value.end..]));
        }
    }

    /// A text that is not JSON gives the line and column where serde_json stopped, in
    /// characters, and never panics.
    #[test]
    fn broken_texts_report_where_they_break(value in value_strategy(), cut in 0usize..200) {
        let text = serde_json::to_string_pretty(&value).expect("json");
        let mut end = cut.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let broken = format!("{}é\u{1}", &text[..end]);
        let error = parse_with_positions(&broken).expect_err("not JSON");
        prop_assert!(error.line >= 1 && error.column >= 1);
        let line = broken.split('\n').nth(error.line - 1).expect("the line exists");
        prop_assert!(error.column <= line.chars().count() + 1, "{:?} in {:?}", error, line);
    }
}

#[test]
fn keys_values_prefixes_and_syntax_errors() {
    let text = "{\n  \"steps\": [\n    { \"id\": \"é😀\", \"type\": \"message\" }\n  ]\n}\n";
    let (_, map) = parse_with_positions(text).unwrap();
    assert_eq!(
        map.locate("/steps/0/type", true),
        Some(Location {
            line: 3,
            column: 19,
            end_line: 3,
            end_column: 25
        })
    );
    assert_eq!(
        map.locate("/steps/0/type", false),
        Some(Location {
            line: 3,
            column: 27,
            end_line: 3,
            end_column: 36
        })
    );
    assert_eq!(
        map.locate("/steps/0/id", false),
        Some(Location {
            line: 3,
            column: 13,
            end_line: 3,
            end_column: 17
        }),
        "columns count characters, not bytes"
    );
    assert_eq!(
        map.locate("/steps/0/missing/deeper", true),
        map.locate("/steps/0", false),
        "a pointer the text lacks points at its longest known prefix"
    );
    let error = parse_with_positions("{\n  \"é\": 1,\n  \"b\": }").unwrap_err();
    assert_eq!(
        error.to_string(),
        "not JSON: expected value at line 3 column 8"
    );
    let duplicate = "{\"a\": 1, \"a\": [2]}";
    let (value, map) = parse_with_positions(duplicate).unwrap();
    assert_eq!(value["a"], json!([2]));
    assert_eq!(
        map.member("/a").unwrap().value,
        14..17,
        "the last key wins, as in serde_json"
    );
    assert_eq!(map.member("/a/0").unwrap().value, 15..16);
}

#[test]
fn fixes_are_written_as_minimal_text_edits() {
    let text = "{\n  \"version\": 2,\n  \"steps\": [\n    { \"id\": \"a\", \"type\": \"message\",   \"onFail\": \"x\", \"text\": \"Hi\" },\n    {\"id\": \"b\", \"kind\": \"transfer\"}\n  ]\n}\n";
    let patch = [
        json!({"op": "test", "path": "/steps/0/type", "value": "message"}),
        json!({"op": "move", "from": "/steps/0/type", "path": "/steps/0/kind"}),
        json!({"op": "replace", "path": "/steps/1/kind", "value": "handoff"}),
        json!({"op": "remove", "path": "/steps/0/onFail"}),
        json!({"op": "add", "path": "/steps/-", "value": {"id": "end", "kind": "end"}}),
    ];
    let edited = edit_text(text, &patch).expect("every operation is a text edit");
    assert_eq!(
        edited,
        "{\n  \"version\": 2,\n  \"steps\": [\n    { \"id\": \"a\", \"kind\": \"message\",   \"text\": \"Hi\" },\n    {\"id\": \"b\", \"kind\": \"handoff\"},\n    {\"id\":\"end\",\"kind\":\"end\"}\n  ]\n}\n"
    );
    // The last member goes with the comma before it.
    let last = edit_text(
        "{\"a\": 1,\n \"b\": 2\n}",
        &[json!({"op": "remove", "path": "/b"})],
    )
    .unwrap();
    assert_eq!(last, "{\"a\": 1\n}");
    // A failing test, or an edit that is not a text edit, leaves nothing written.
    assert_eq!(
        edit_text(
            text,
            &[json!({"op": "test", "path": "/version", "value": 1})]
        ),
        None
    );
    assert_eq!(
        edit_text(
            text,
            &[json!({"op": "move", "from": "/version", "path": "/steps/0/version"})]
        ),
        None
    );
}
