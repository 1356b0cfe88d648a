//! The RE2 check: a golden table of accepted and refused patterns with their messages, the class
//! name list against the Unicode tables, nesting limits, and a seeded property test that the
//! check never panics and is never looser than `regex-syntax`'s full parser (but for `\p{Cs}`,
//! which RE2 has and `regex-syntax` has not).
use expect_test::expect;
use proptest::prelude::*;

use super::*;

/// One line per pattern: `ok` or the problem.
fn table(patterns: &[&str]) -> String {
    patterns
        .iter()
        .map(|pattern| {
            let verdict = problem(pattern).unwrap_or_else(|| "ok".to_owned());
            format!("{pattern}  →  {verdict}\n")
        })
        .collect()
}

#[test]
fn what_re2_accepts_passes() {
    let accepted = [
        r"^\d{3}-\d{4}$",
        r"(?i)^(yes|no)$",
        r"(?i:a)(?-i:b)(?sm)x.y(?U)z*",
        r"[[:alpha:]][[:^digit:]]\w\W\s\S\b\B\A\z",
        r"\pL\pN\p{Lu}\p{Greek}\p{^Greek}\PL\P{Han}\p{Any}[\p{Latin}\d]",
        r"\x41\x{1F600}\t\n\r\f\v\a\.\*\\",
        r"(?P<year>\d{4})-(?<month>\d{2})-(?P<día>\d{2})",
        r"a{1000}(a{2}){500}a*?a+?a??a{2,5}?",
        r"",
        r"[^\x00-\x{10FFFF}]",
    ];
    expect![[r#"
        ^\d{3}-\d{4}$  →  ok
        (?i)^(yes|no)$  →  ok
        (?i:a)(?-i:b)(?sm)x.y(?U)z*  →  ok
        [[:alpha:]][[:^digit:]]\w\W\s\S\b\B\A\z  →  ok
        \pL\pN\p{Lu}\p{Greek}\p{^Greek}\PL\P{Han}\p{Any}[\p{Latin}\d]  →  ok
        \x41\x{1F600}\t\n\r\f\v\a\.\*\\  →  ok
        (?P<year>\d{4})-(?<month>\d{2})-(?P<día>\d{2})  →  ok
        a{1000}(a{2}){500}a*?a+?a??a{2,5}?  →  ok
          →  ok
        [^\x00-\x{10FFFF}]  →  ok
    "#]]
    .assert_eq(&table(&accepted));
}

#[test]
fn what_re2_refuses_is_refused_with_one_clear_reason() {
    let refused = [
        r"(?=a)b",
        r"(a)\1",
        r"(a",
        r"\p{greek}",
        r"\p{Old Italic}",
        r"\p{Grek}",
        r"\p{Emoji}",
        r"\pX",
        r"\p{sc=Greek}",
        r"\p{Block=Basic_Latin}",
        r"[\p{Alphabetic}]",
        r"(?x) a b",
        r"(?u)a",
        r"(?R)a",
        r"\u0041",
        r"\u{1F600}",
        r"[\U0001F600]",
        r"\<word\>",
        r"\b{start}a",
        r"(?P<a.b>x)",
        r"a**",
        r"a{2}{3}",
        r"a{1001}",
        r"a{2,1001}",
        r"(a{2}){501}",
        r"((a{10}){10}){11}",
        r"\Qa.b\E",
    ];
    expect![[r#"
        (?=a)b  →  look-around, including look-ahead and look-behind, is not supported
        (a)\1  →  backreferences are not supported
        (a  →  unclosed group
        \p{greek}  →  unknown Unicode class "greek" (did you mean "Greek"?)
        \p{Old Italic}  →  unknown Unicode class "Old Italic" (did you mean "Old_Italic"?)
        \p{Grek}  →  unknown Unicode class "Grek" (did you mean "Greek"?)
        \p{Emoji}  →  unknown Unicode class "Emoji"
        \pX  →  unknown Unicode class "X" (the one-letter classes are C, L, M, N, P, S and Z)
        \p{sc=Greek}  →  Unicode classes of the form \p{name=value} are not supported; write \p{Greek}
        \p{Block=Basic_Latin}  →  Unicode classes of the form \p{name=value} are not supported
        [\p{Alphabetic}]  →  unknown Unicode class "Alphabetic"
        (?x) a b  →  the flag "x" is not supported (RE2 has i, m, s and U)
        (?u)a  →  the flag "u" is not supported (RE2 has i, m, s and U)
        (?R)a  →  the flag "R" is not supported (RE2 has i, m, s and U)
        \u0041  →  the escapes \u and \U are not supported (write \x{41})
        \u{1F600}  →  the escapes \u and \U are not supported (write \x{1F600})
        [\U0001F600]  →  the escapes \u and \U are not supported (write \x{1F600})
        \<word\>  →  the assertion \< is not supported (RE2 has ^, $, \A, \z, \b and \B)
        \b{start}a  →  the assertion \b{start} is not supported (RE2 has ^, $, \A, \z, \b and \B)
        (?P<a.b>x)  →  the capture group name "a.b" may only hold letters, digits and "_"
        a**  →  a repetition operator cannot follow another one (as in a** or a{2}{3}); put the first in a group: (?:a*)*
        a{2}{3}  →  a repetition operator cannot follow another one (as in a** or a{2}{3}); put the first in a group: (?:a*)*
        a{1001}  →  a repetition count is at most 1000 (found 1001)
        a{2,1001}  →  a repetition count is at most 1000 (found 1001)
        (a{2}){501}  →  nested repetition counts multiply to more than 1000
        ((a{10}){10}){11}  →  nested repetition counts multiply to more than 1000
        \Qa.b\E  →  unrecognized escape sequence
    "#]]
    .assert_eq(&table(&refused));
}

#[test]
fn every_class_name_is_a_real_unicode_name_listed_once() {
    let mut sorted = CLASS_NAMES.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(
        sorted.len(),
        CLASS_NAMES.len(),
        "a class name is listed twice"
    );
    // `Any`, 36 general categories, Unicode 16.0's 170 script values (Common and Inherited
    // included).
    assert_eq!(CLASS_NAMES.len(), 1 + 36 + 170);
    for name in CLASS_NAMES {
        for pattern in [format!(r"\p{{{name}}}"), format!(r"\P{{{name}}}")] {
            // Surrogates are no Rust `char`, so `regex-syntax` has no `Cs` class; RE2 has one.
            assert!(
                *name == "Cs" || regex_syntax::Parser::new().parse(&pattern).is_ok(),
                "{pattern} is not a Unicode class"
            );
            assert_eq!(problem(&pattern), None, "{pattern}");
        }
    }
    for letter in ONE_LETTER {
        assert_eq!(problem(&format!(r"\p{letter}")), None);
    }
}

#[test]
fn nesting_is_limited_to_re2s_1000_levels_without_exhausting_the_stack() {
    let nested = |depth: usize| format!("{}a{}", "(".repeat(depth), ")".repeat(depth));
    assert_eq!(problem(&nested(999)), None);
    let refused = problem(&nested(1001)).unwrap();
    assert!(refused.contains("nest"), "{refused}");
    let classes = format!("{}a{}", "[".repeat(2000), "]".repeat(2000));
    assert!(problem(&classes).is_some());
}

/// Patterns built from the characters regular expressions are made of.
fn regex_like() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            proptest::sample::select(vec![
                "(",
                ")",
                "[",
                "]",
                "{",
                "}",
                "*",
                "+",
                "?",
                "|",
                "^",
                "$",
                ".",
                "-",
                ",",
                ":",
                "=",
                "!",
                "<",
                ">",
                "\\",
                "a",
                "b",
                "1",
                "9",
                "P",
                "p",
                "u",
                "x",
                "d",
                "w",
                "Q",
                "E",
                "{2}",
                "{1001}",
                "{2,3}",
                "(?i)",
                "(?x)",
                "(?P<n>",
                "\\p{Greek}",
                "\\p{greek}",
                "\\pL",
                "[[:alpha:]]",
                "é",
                "\u{1F600}",
            ])
            .prop_map(str::to_owned),
            any::<char>().prop_map(String::from),
        ],
        0..24,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 4000,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x2E2),
        ..ProptestConfig::default()
    })]

    #[test]
    fn never_panics_and_never_accepts_what_the_full_parser_refuses(pattern in regex_like()) {
        if problem(&pattern).is_none() {
            prop_assert!(
                regex_syntax::Parser::new().parse(&pattern).is_ok(),
                "accepted {pattern:?}, which regex-syntax refuses"
            );
        }
    }
}
