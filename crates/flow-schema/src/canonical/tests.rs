//! Tests of the canonical form: RFC 8785's own examples, number formatting, key order,
//! digests, and properties checked against `serde_jcs` on generated documents.

use super::{canonical_eq, canonical_json, digest, utf16_cmp};
use expect_test::expect;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use serde_json::{Map, Number, Value, json};
use sha2::{Digest as _, Sha256};
use std::fmt::Write as _;

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn canon(text: &str) -> String {
    canonical_json(&parse(text))
}

/// RFC 8785 §3.2.2, the example of a whole document.
#[test]
fn rfc_8785_serialization_example() {
    let input = r#"{
        "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
        "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
        "literals": [null, true, false]
    }"#;
    expect![[r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#]]
        .assert_eq(&canon(input));
}

/// RFC 8785 §3.2.3, the sorting example: UTF-16 order puts the emoji (a surrogate pair)
/// before U+FB33 although its code point is higher.
#[test]
fn rfc_8785_sorting_example() {
    let input = r#"{
        "\u20ac": "Euro Sign",
        "\r": "Carriage Return",
        "\ufb33": "Hebrew Letter Dalet With Dagesh",
        "1": "One",
        "\ud83d\ude00": "Emoji: Grinning Face",
        "\u0080": "Control",
        "\u00f6": "Latin Small Letter O With Diaeresis"
    }"#;
    let expected = concat!(
        "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u{80}\":\"Control\",",
        "\"\u{f6}\":\"Latin Small Letter O With Diaeresis\",\"\u{20ac}\":\"Euro Sign\",",
        "\"\u{1f600}\":\"Emoji: Grinning Face\",\"\u{fb33}\":\"Hebrew Letter Dalet With Dagesh\"}",
    );
    assert_eq!(canon(input), expected);
}

/// RFC 8785 Appendix B: IEEE 754 bit patterns and their ECMAScript text.
#[test]
fn rfc_8785_appendix_b_numbers() {
    let table: [(u64, &str); 25] = [
        (0x0000000000000000, "0"),
        (0x8000000000000000, "0"),
        (0x0000000000000001, "5e-324"),
        (0x8000000000000001, "-5e-324"),
        (0x7fefffffffffffff, "1.7976931348623157e+308"),
        (0xffefffffffffffff, "-1.7976931348623157e+308"),
        (0x4340000000000000, "9007199254740992"),
        (0xc340000000000000, "-9007199254740992"),
        (0x4430000000000000, "295147905179352830000"),
        (0x44b52d02c7e14af5, "9.999999999999997e+22"),
        (0x44b52d02c7e14af6, "1e+23"),
        (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
        (0x444b1ae4d6e2ef4e, "999999999999999700000"),
        (0x444b1ae4d6e2ef4f, "999999999999999900000"),
        (0x444b1ae4d6e2ef50, "1e+21"),
        (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
        (0x3eb0c6f7a0b5ed8d, "0.000001"),
        (0x41b3de4355555553, "333333333.3333332"),
        (0x41b3de4355555554, "333333333.33333325"),
        (0x41b3de4355555555, "333333333.3333333"),
        (0x41b3de4355555556, "333333333.3333334"),
        (0x41b3de4355555557, "333333333.33333343"),
        (0xbecbf647612f3696, "-0.0000033333333333333333"),
        (0x43143ff3c1cb0959, "1424953923781206.2"),
        (0x3ff0000000000000, "1"),
    ];
    for (bits, expected) in table {
        let value = f64::from_bits(bits);
        let number = Value::Number(Number::from_f64(value).unwrap());
        assert_eq!(canonical_json(&number), expected, "bits {bits:016x}");
        // The same number read from its shortest Rust spelling gives the same text.
        assert_eq!(canon(&format!("{value:e}")), expected, "bits {bits:016x}");
    }
}

/// Integers beyond 2^53 become the nearest f64 (ties to even), as JavaScript's `Number`.
#[test]
fn large_integers_round_like_javascript() {
    let cases = [
        ("9007199254740992", "9007199254740992"),
        ("9007199254740993", "9007199254740992"),
        ("9007199254740995", "9007199254740996"),
        ("-9007199254740993", "-9007199254740992"),
        ("18446744073709551615", "18446744073709552000"),
        ("18446744073709551616", "18446744073709552000"),
        ("-9223372036854775808", "-9223372036854776000"),
        ("123456789012345678901234567890", "1.2345678901234568e+29"),
        ("-0", "0"),
        ("-0.0", "0"),
        ("0e10", "0"),
        ("1.0", "1"),
        ("1e2", "100"),
        ("100E-2", "1"),
        ("0.1", "0.1"),
        ("1e21", "1e+21"),
        ("123e-20", "1.23e-18"),
    ];
    for (input, expected) in cases {
        assert_eq!(canon(input), expected, "input {input}");
    }
}

#[test]
fn strings_escape_only_what_rfc_8785_requires() {
    let value = Value::String("\u{0}\u{8}\t\n\u{b}\u{c}\r\u{1f} \"\\/\u{7f}\u{2028}é😀".into());
    assert_eq!(
        canonical_json(&value),
        "\"\\u0000\\b\\t\\n\\u000b\\f\\r\\u001f \\\"\\\\/\u{7f}\u{2028}é😀\""
    );
}

#[test]
fn nested_structures_and_empty_containers() {
    expect![[r#"{"":{},"a":[],"b":[[],{"x":null}],"c":false}"#]].assert_eq(&canon(
        r#"{ "c" : false, "b": [ [ ], {"x": null} ], "a": [], "": {} }"#,
    ));
}

#[test]
fn utf16_order_differs_from_code_point_order_only_for_surrogates() {
    use std::cmp::Ordering::{Equal, Greater, Less};
    assert_eq!(utf16_cmp("a", "b"), Less);
    assert_eq!(utf16_cmp("a", "a"), Equal);
    assert_eq!(utf16_cmp("ab", "a"), Greater);
    assert_eq!(utf16_cmp("a", "a!"), Less);
    // U+1F600 (surrogates D83D DE00) sorts before U+FB33 and U+E000.
    assert_eq!(utf16_cmp("😀", "\u{fb33}"), Less);
    assert_eq!(utf16_cmp("\u{e000}", "😀"), Greater);
    // Below U+E000 code point order holds.
    assert_eq!(utf16_cmp("\u{d7ff}", "😀"), Less);
    assert_eq!(utf16_cmp("€", "😀"), Less);
}

#[test]
fn digest_is_sha256_of_the_canonical_bytes_and_reads_the_version() {
    let document = json!({ "version": 2, "id": "hello", "steps": [] });
    let expected = format!(
        "sha256:{:x}",
        Sha256::digest(canonical_json(&document).as_bytes())
    );
    let found = digest(&document);
    assert_eq!(found.digest, expected);
    assert_eq!(found.version, 2);
    expect!["sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"]
        .assert_eq(&digest(&json!({})).digest);
}

#[test]
fn digest_version_is_the_documents_integer_version_or_zero() {
    let cases = [
        (json!({}), 0),
        (json!({ "version": 0 }), 0),
        (json!({ "version": 1 }), 1),
        (json!({ "version": 2.0 }), 2),
        (json!({ "version": 7 }), 7),
        (json!({ "version": 1.5 }), 0),
        (json!({ "version": -1 }), 0),
        (json!({ "version": "2" }), 0),
        (json!([1, 2]), 0),
        (json!("version"), 0),
    ];
    for (document, version) in cases {
        assert_eq!(digest(&document).version, version, "{document}");
    }
}

#[test]
fn digest_streams_long_strings_across_its_buffer() {
    // Strings larger than the hashing buffer, and many small ones around them.
    let long = "ñ".repeat(40_000);
    let document = json!({
        "a": long,
        "b": (0..5000).map(|i| format!("item {i}")).collect::<Vec<_>>(),
        "c": "x".repeat(16 * 1024 - 3),
        "d": "\n".repeat(20_000),
    });
    let expected = format!(
        "sha256:{:x}",
        Sha256::digest(canonical_json(&document).as_bytes())
    );
    assert_eq!(digest(&document).digest, expected);
}

#[test]
fn canonical_eq_treats_number_spellings_as_equal() {
    assert!(canonical_eq(
        &parse("[1.0, 1e2, -0]"),
        &parse("[1, 100, 0]")
    ));
    assert!(canonical_eq(
        &parse("18446744073709551615"),
        &parse("18446744073709551616.0")
    ));
    assert!(!canonical_eq(
        &parse("9007199254740991"),
        &parse("9007199254740990")
    ));
    assert!(!canonical_eq(
        &parse(r#"{"a":1}"#),
        &parse(r#"{"a":1,"b":2}"#)
    ));
    assert!(!canonical_eq(&parse(r#"{"a":1}"#), &parse(r#"{"b":1}"#)));
    assert!(!canonical_eq(&parse("[1]"), &parse("[1, 1]")));
    assert!(!canonical_eq(&parse("null"), &parse("false")));
    assert!(!canonical_eq(&parse("\"1\""), &parse("1")));
}

// ---------------------------------------------------------------------------------------
// Properties.

fn config(cases: u32) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(0x8785),
        failure_persistence: None,
        ..Config::default()
    }
}

/// Keys on which `serde_jcs` is known to be right. It sorts the *escaped UTF-8 bytes*
/// including the closing quote, so it misorders keys where UTF-16 order differs from UTF-8
/// (U+E000–U+FFFF against surrogate pairs), escaped characters, and a key that is a prefix
/// of another followed by a character below `"`. We check those cases against the RFC.
fn safe_key() -> BoxedStrategy<String> {
    proptest::string::string_regex("[#-\\[\\]-~é€ñü中]{0,6}")
        .unwrap()
        .boxed()
}

/// Any key at all.
fn any_key() -> BoxedStrategy<String> {
    prop_oneof![
        safe_key(),
        any::<String>(),
        "[\\u{0}-\\u{22}a\\u{e000}-\\u{ffff}😀𝄞]{0,4}"
    ]
    .boxed()
}

/// Finite f64 values, as JSON can hold them.
fn finite_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |value| value.is_finite()),
        (-1_000_000i64..1_000_000, -30i32..30)
            .prop_map(|(mantissa, exponent)| mantissa as f64 * 10f64.powi(exponent)),
    ]
}

/// Numbers `serde_jcs` formats as JavaScript does: it writes `u64`/`i64` exactly, so
/// integers beyond ±2^53 are left out of the comparison (there it is the one that is wrong).
fn safe_number() -> BoxedStrategy<Value> {
    const SAFE: i64 = 1 << 53;
    prop_oneof![
        (-SAFE..=SAFE).prop_map(Value::from),
        (-1000i64..1000).prop_map(Value::from),
        finite_f64().prop_map(Value::from),
        Just(Value::from(SAFE as u64)),
    ]
    .boxed()
}

fn any_number() -> BoxedStrategy<Value> {
    prop_oneof![
        safe_number(),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from)
    ]
    .boxed()
}

fn json_value(key: BoxedStrategy<String>, number: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number,
        any::<String>().prop_map(Value::String),
        "[a-z \\n\"\\\\]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..8)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
    .boxed()
}

/// A JSON text of `value` with different whitespace, key order, number spellings and
/// string escapes, chosen by `seed`.
fn respell(value: &Value, seed: &mut u64, out: &mut String) {
    fn next(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }
    fn space(seed: &mut u64, out: &mut String) {
        out.push_str([" ", "", "\n  ", "\t", "\r\n"][(next(seed) % 5) as usize]);
    }
    fn string(text: &str, seed: &mut u64, out: &mut String) {
        out.push('"');
        for ch in text.chars() {
            match ch {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str(if next(seed).is_multiple_of(2) {
                    "\\\\"
                } else {
                    "\\u005C"
                }),
                '/' if next(seed).is_multiple_of(2) => out.push_str("\\/"),
                c if (c as u32) < 0x20 || next(seed).is_multiple_of(4) => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        write!(out, "\\u{unit:04X}").unwrap();
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }
    space(seed, out);
    match value {
        Value::Number(number) => {
            if let Some(integer) = number
                .as_i64()
                .map(i128::from)
                .or(number.as_u64().map(i128::from))
            {
                match next(seed) % 4 {
                    0 => write!(out, "{integer}"),
                    1 => write!(out, "{integer}.0"),
                    2 => write!(out, "{integer}e0"),
                    _ => write!(out, "{integer}0E-1"),
                }
                .unwrap();
            } else {
                let float = number.as_f64().unwrap();
                match next(seed) % 3 {
                    0 => write!(out, "{float:?}"),
                    1 => write!(out, "{float:e}"),
                    _ => write!(out, "{float:.16E}"),
                }
                .unwrap();
            }
        }
        Value::String(text) => string(text, seed, out),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                respell(item, seed, out);
            }
            space(seed, out);
            out.push(']');
        }
        Value::Object(map) => {
            let mut members: Vec<_> = map.iter().collect();
            let rotate = if members.is_empty() {
                0
            } else {
                next(seed) as usize % members.len()
            };
            members.rotate_left(rotate);
            if next(seed).is_multiple_of(2) {
                members.reverse();
            }
            out.push('{');
            for (index, (key, item)) in members.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                space(seed, out);
                string(key, seed, out);
                space(seed, out);
                out.push(':');
                respell(item, seed, out);
            }
            space(seed, out);
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
    space(seed, out);
}

proptest! {
    #![proptest_config(config(512))]

    /// Agreement with a second implementation, on the inputs where `serde_jcs` is right.
    #[test]
    fn agrees_with_serde_jcs(value in json_value(safe_key(), safe_number())) {
        prop_assert_eq!(canonical_json(&value), serde_jcs::to_string(&value).unwrap());
    }

    /// The canonical text is valid JSON whose canonical text is itself.
    #[test]
    fn canonicalization_is_idempotent(value in json_value(any_key(), any_number())) {
        let once = canonical_json(&value);
        let reparsed: Value = serde_json::from_str(&once).unwrap();
        prop_assert_eq!(canonical_json(&reparsed), once);
    }

    /// Key order, whitespace, number spelling and string escapes never change the digest.
    #[test]
    fn digest_ignores_spelling(value in json_value(any_key(), any_number()), seed in any::<u64>()) {
        let mut text = String::new();
        let mut seed = seed;
        respell(&value, &mut seed, &mut text);
        let respelled: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(digest(&respelled), digest(&value), "respelled as {}", text);
        prop_assert!(canonical_eq(&respelled, &value));
    }

    /// The streamed digest is SHA-256 of the canonical text.
    #[test]
    fn digest_hashes_the_canonical_text(value in json_value(any_key(), any_number())) {
        let expected = format!("sha256:{:x}", Sha256::digest(canonical_json(&value).as_bytes()));
        prop_assert_eq!(digest(&value).digest, expected);
    }

    /// Key comparison is UTF-16 code unit order.
    #[test]
    fn key_order_is_utf16_order(a in any_key(), b in any_key()) {
        prop_assert_eq!(utf16_cmp(&a, &b), a.encode_utf16().cmp(b.encode_utf16()));
    }

    /// `canonical_eq` is equality of canonical texts.
    #[test]
    fn canonical_eq_matches_canonical_text(
        a in json_value(safe_key(), any_number()),
        b in json_value(safe_key(), any_number()),
    ) {
        prop_assert_eq!(canonical_eq(&a, &b), canonical_json(&a) == canonical_json(&b));
        prop_assert!(canonical_eq(&a, &a));
    }
}

/// Every literal of `test_data/canonical/numbers.tsv` is written as JavaScript's
/// `String(Number(literal))` wrote it when the table was generated (by node, from random
/// bit patterns, decimal spellings, and integers around every power of two up to 2^64).
#[test]
fn numbers_agree_with_javascript() {
    let table = include_str!("../../test_data/canonical/numbers.tsv");
    let mut checked = 0;
    for line in table.lines().filter(|line| !line.starts_with('#')) {
        let (literal, expected) = line.split_once('\t').unwrap();
        assert_eq!(canon(literal), expected, "literal {literal}");
        checked += 1;
    }
    assert!(checked > 1500, "only {checked} numbers checked");
}

/// The inputs the `serde_jcs` comparison leaves out are ones where it is the one that is
/// wrong; if this starts failing, `serde_jcs` was fixed and the generators can widen.
#[test]
fn serde_jcs_differs_where_the_comparison_says() {
    for text in [
        "18446744073709551615",
        r#"{"a":1,"a!":2}"#,
        r#"{"\ufb33":1,"\ud83d\ude00":2}"#,
    ] {
        let value = parse(text);
        assert_ne!(
            canonical_json(&value),
            serde_jcs::to_string(&value).unwrap(),
            "{text}"
        );
    }
}
