//! Parsing an `ask` reply by its `input` kind (runtime §4). The reply is already trimmed.
//!
//! `text` with a `pattern` is matched by the caller (it needs the compiled pattern); every other
//! kind is here. The spec's patterns are written out by hand: each is a few lines, and RE2's
//! `\s` (ASCII `[\t\n\f\r ]`) is spelled exactly.

use botmesh_flow_schema::InputKind;

use crate::value::Scalar;
use botmesh_flow_schema::normalize;

/// The value an `ask` of kind `input` saves for the trimmed reply `text`, or `None` when the
/// reply is not accepted. An empty reply is never accepted.
pub fn parse_answer(input: InputKind, text: &str) -> Option<Scalar> {
    if text.is_empty() {
        return None;
    }
    match input {
        InputKind::Text => Some(Scalar::String(text.to_owned())),
        InputKind::Number => number(text).map(Scalar::Number),
        InputKind::Email => email(text).then(|| Scalar::String(text.to_owned())),
        InputKind::Phone => phone(text).map(Scalar::String),
        InputKind::Date => date(text).map(Scalar::String),
        InputKind::Yesno => yes_no(text).map(Scalar::Bool),
    }
}

/// `^[+-]?([0-9]+([.,][0-9]+)?|[.,][0-9]+)$`, `,` standing for the decimal point. A number too
/// large for a double (more than about 309 digits) is not accepted: it has no JSON value.
fn number(text: &str) -> Option<f64> {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (whole, fraction) = match unsigned.find(['.', ',']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let shape = match fraction {
        None => digits(whole),
        Some(fraction) => (whole.is_empty() || digits(whole)) && digits(fraction),
    };
    if !shape {
        return None;
    }
    let value: f64 = text.replace(',', ".").parse().ok()?;
    value.is_finite().then_some(value)
}

/// RE2's `\s`: ASCII tab, newline, form feed, carriage return and space (no vertical tab).
fn re2_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\u{c}' | '\r' | ' ')
}

/// `^[^\s@]+@[^\s@]+\.[^\s@]+$`.
fn email(text: &str) -> bool {
    if text.chars().any(re2_space) {
        return false;
    }
    let Some((local, domain)) = text.split_once('@') else {
        return false;
    };
    if local.is_empty() || domain.contains('@') {
        return false;
    }
    // Some `.` of the domain has a character before and after it.
    let first = domain.chars().next().map_or(0, char::len_utf8);
    let last = domain.chars().next_back().map_or(0, char::len_utf8);
    domain.len() >= first + 1 + last && domain[first..domain.len() - last].contains('.')
}

/// After removing ASCII spaces, `-`, `.`, `(` and `)`: `^\+?[0-9]{7,15}$`; the cleaned string.
fn phone(text: &str) -> Option<String> {
    let cleaned: String = text
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '.' | '(' | ')'))
        .collect();
    let digits = cleaned.strip_prefix('+').unwrap_or(&cleaned);
    ((7..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()))
        .then_some(cleaned)
}

/// `YYYY-MM-DD`, or day first `D/M/YYYY` (one or two digits for day and month, `/`, `-` or
/// `.` twice), naming a real calendar day of the years 1900–2999; as `YYYY-MM-DD`.
fn date(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let ascii_digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    let (day, month, year) = if b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && ascii_digits(&b[..4])
        && ascii_digits(&b[5..7])
        && ascii_digits(&b[8..])
    {
        (&text[8..], &text[5..7], &text[..4])
    } else {
        let separator = *b.iter().find(|c| matches!(c, b'/' | b'-' | b'.'))?;
        let mut parts = text.split(char::from(separator));
        let (day, month, year) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some()
            || !(1..=2).contains(&day.len())
            || !(1..=2).contains(&month.len())
            || year.len() != 4
            || !ascii_digits(day.as_bytes())
            || !ascii_digits(month.as_bytes())
            || !ascii_digits(year.as_bytes())
        {
            return None;
        }
        (day, month, year)
    };
    let (day, month, year): (u32, u32, u32) =
        (day.parse().ok()?, month.parse().ok()?, year.parse().ok()?);
    if !(1900..=2999).contains(&year) || !(1..=12).contains(&month) || day == 0 {
        return None;
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    (day <= days).then(|| format!("{year:04}-{month:02}-{day:02}"))
}

/// `yes`, `y`, `si`, `s`, `ok`, `true` → true; `no`, `n`, `false` → false (normalized).
fn yes_no(text: &str) -> Option<bool> {
    match normalize(text).as_str() {
        "yes" | "y" | "si" | "s" | "ok" | "true" => Some(true),
        "no" | "n" | "false" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(text: &str) -> Option<f64> {
        match parse_answer(InputKind::Number, text) {
            Some(Scalar::Number(n)) => Some(n),
            _ => None,
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(num("42"), Some(42.0));
        assert_eq!(num("-3,5"), Some(-3.5));
        assert_eq!(num("+.5"), Some(0.5));
        assert_eq!(num(",25"), Some(0.25));
        for bad in [
            "", "1.", "1.2.3", "1e5", "١٢", "1 000", "--1", "+", ".", "0x10", "1,2,3",
        ] {
            assert_eq!(num(bad), None, "{bad:?}");
        }
        assert_eq!(num(&"9".repeat(400)), None);
    }

    #[test]
    fn emails() {
        for good in [
            "a@b.c",
            "ana.perez@mail.example.com",
            "x@y..z",
            "ñ@ü.es",
            "a@b.c\u{b}",
        ] {
            assert!(email(good), "{good:?}");
        }
        for bad in [
            "a@b", "@b.c", "a@.c", "a@b.", "a b@c.d", "a@b@c.d", "a@b\t.c",
        ] {
            assert!(!email(bad), "{bad:?}");
        }
    }

    #[test]
    fn phones() {
        assert_eq!(phone("+34 (600) 12-34.56"), Some("+34600123456".to_owned()));
        assert_eq!(phone("1234567"), Some("1234567".to_owned()));
        assert_eq!(phone("123456"), None);
        assert_eq!(phone(&"1".repeat(16)), None);
        assert_eq!(phone("+ 1234567"), Some("+1234567".to_owned()));
        assert_eq!(phone("12345\u{a0}67"), None);
        assert_eq!(phone("++1234567"), None);
    }

    #[test]
    fn dates() {
        assert_eq!(date("2024-02-29"), Some("2024-02-29".to_owned()));
        assert_eq!(date("5/1/2024"), Some("2024-01-05".to_owned()));
        assert_eq!(date("05.01.2024"), Some("2024-01-05".to_owned()));
        assert_eq!(date("31-12-1999"), Some("1999-12-31".to_owned()));
        for bad in [
            "2023-02-29",
            "1900-02-29",
            "2024-1-5",
            "5/1-2024",
            "32/1/2024",
            "1/13/2024",
            "1/1/1899",
            "1/1/3000",
            "001/1/2024",
            "1/1/24",
            "2024/01/05",
            "0/1/2024",
        ] {
            assert_eq!(date(bad), None, "{bad:?}");
        }
        assert_eq!(date("2000-02-29"), Some("2000-02-29".to_owned()));
    }

    #[test]
    fn yes_and_no() {
        assert_eq!(yes_no("Sí"), Some(true));
        assert_eq!(yes_no("OK"), Some(true));
        assert_eq!(yes_no("No"), Some(false));
        assert_eq!(yes_no("nope"), None);
        assert_eq!(yes_no("yes!"), None);
    }
}
