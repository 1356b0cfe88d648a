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
