//! The one placeholder scanner (runtime §5): what `{{…}}` in an interpolated text is replaced
//! by when it is sent, and what lint calls a malformed placeholder.
//!
//! `{{name}}` is a placeholder: `name` a variable name (`^[a-z_][a-z0-9_]{0,63}$`), with
//! spaces (U+0020 only) allowed on either side of it inside the braces. Matches are found left
//! to right, leftmost first: a `{{` that does not start a placeholder is text, and the scan
//! goes on at the next character, so `{{{x}}}` is `{`, the placeholder `x`, then `}`. Anything
//! else in braces is sent as written.
//!
//! Lint's `malformed-placeholder` is decided here too, from the same scan: a `{{` that does not
//! start a placeholder and is not followed by a third `{` (a run of braces, whose last `{{` is
//! tried next) is a problem:
//! - with no `}}` after it, or another `{{` before its first `}}`: it is unclosed (and when no
//!   `}}` follows at all, the scan stops: no placeholder can follow either);
//! - with only spaces before its first `}}`: it is empty;
//! - otherwise what it holds is not a variable name.
//!
//! A problem never hides a placeholder: the placeholders found are exactly the runtime's.

use crate::limits::MAX_VARIABLE_NAME;

/// True when `name` is a variable name: `^[a-z_][a-z0-9_]{0,63}$` (the limit is
/// `MAX_VARIABLE_NAME`).
pub fn is_variable_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= MAX_VARIABLE_NAME
        && matches!(bytes[0], b'a'..=b'z' | b'_')
        && bytes
            .iter()
            .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_'))
}

/// One placeholder of a text: bytes `start..end` of it (braces and spaces included) are
/// replaced by the value of `name`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hole<'a> {
    /// The byte offset of its `{{`.
    pub start: usize,
    /// The byte offset just past its `}}`.
    pub end: usize,
    /// The variable it reads.
    pub name: &'a str,
}

/// A `{{` that is sent as written although it looks like a placeholder (lint's
/// `malformed-placeholder`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem<'a> {
    /// `{{` with no `}}` after it (or another `{{` first); the char offset of the `{{`.
    Unclosed(usize),
    /// `{{}}`, or only spaces between the braces.
    Empty,
    /// `{{…}}` whose inside (as written, between the braces) is not a variable name.
    Invalid(&'a str),
}

/// What the scan finds, left to right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found<'a> {
    /// A placeholder.
    Hole(Hole<'a>),
    /// A malformed one.
    Problem(Problem<'a>),
}

/// Every placeholder and malformed placeholder of `text`, left to right.
pub fn scan(text: &str) -> Scan<'_> {
    Scan {
        text,
        at: 0,
        done: false,
    }
}

/// The placeholders of `text` alone, left to right (what the runtime replaces).
pub fn holes(text: &str) -> impl Iterator<Item = Hole<'_>> {
    scan(text).filter_map(|found| match found {
        Found::Hole(hole) => Some(hole),
        Found::Problem(_) => None,
    })
}

/// The iterator of [`scan`] (no vector per text).
#[derive(Debug, Clone)]
pub struct Scan<'t> {
    text: &'t str,
    /// Where the search for the next `{{` resumes.
    at: usize,
    /// Set after an unclosed `{{` that no `}}` follows.
    done: bool,
}

impl<'t> Iterator for Scan<'t> {
    type Item = Found<'t>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_at().map(|(_, found)| found)
    }
}

impl<'t> Scan<'t> {
    /// The next thing found, with the byte offset of its `{{`.
    fn next_at(&mut self) -> Option<(usize, Found<'t>)> {
        let text = self.text;
        let bytes = text.as_bytes();
        while !self.done {
            let start = find_pair(bytes, self.at, *b"{{")?;
            if let Some((name, end)) = placeholder(bytes, start) {
                self.at = end;
                // `placeholder` checked that `name` is ASCII between these offsets.
                let hole = Hole {
                    start,
                    end,
                    name: &text[name],
                };
                return Some((start, Found::Hole(hole)));
            }
            self.at = start + 1;
            if bytes.get(start + 2) == Some(&b'{') {
                // A run of braces: the next position is tried.
                continue;
            }
            let close = find_pair(bytes, start + 2, *b"}}");
            let open = find_pair(bytes, start + 2, *b"{{");
            let problem = match close {
                None => {
                    self.done = true;
                    Problem::Unclosed(text[..start].chars().count())
                }
                Some(close) if open.is_some_and(|open| open < close) => {
                    Problem::Unclosed(text[..start].chars().count())
                }
                Some(close) => {
                    let inner = &text[start + 2..close];
                    if inner.bytes().all(|b| b == b' ') {
                        Problem::Empty
                    } else {
                        Problem::Invalid(inner)
                    }
                }
            };
            return Some((start, Found::Problem(problem)));
        }
        None
    }
}

/// A `{{…}}` that is no placeholder only because its name has capitals (`{{Invoice}}`,
/// `{{ Invoice }}`): the runtime sends it as written. Exactly the [`Problem::Invalid`] of
/// [`scan`] whose inside, spaces trimmed, is a variable name once ASCII-lower-cased (the 2023
/// dashboard's variables, which migration and validation's fixes lower-case).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapitalHole<'a> {
    /// The byte offset of the name in the text (after `{{` and any spaces).
    pub start: usize,
    /// The name as written (`Invoice`).
    pub name: &'a str,
}

/// The [`CapitalHole`]s of `text`, left to right, from the one scan.
pub fn capital_holes(text: &str) -> impl Iterator<Item = CapitalHole<'_>> {
    let mut scan = scan(text);
    std::iter::from_fn(move || scan.next_at()).filter_map(|(start, found)| {
        let Found::Problem(Problem::Invalid(inner)) = found else {
            return None;
        };
        lower_cased(inner)?;
        let name = inner.trim_matches(' ');
        let lead = inner.len() - inner.trim_start_matches(' ').len();
        Some(CapitalHole {
            start: start + 2 + lead,
            name,
        })
    })
}

/// The variable name the inside of a `{{…}}` (as [`Problem::Invalid`] gives it) names once
/// ASCII-lower-cased, when only its capitals keep it from being a placeholder (`Invoice`,
/// ` Invoice `: `invoice`).
pub fn lower_cased(inner: &str) -> Option<String> {
    let name = inner.trim_matches(' ');
    let lower = name.to_ascii_lowercase();
    (lower != name && is_variable_name(&lower)).then_some(lower)
}

/// `text` with the name of each [`CapitalHole`] that `rename` maps replaced by what it maps
/// to (the braces and spaces kept), or `None` when nothing was replaced.
pub fn rename_capital_holes<'n>(
    text: &str,
    rename: impl Fn(&str) -> Option<&'n str>,
) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut replaced = false;
    for hole in capital_holes(text) {
        if let Some(new) = rename(hole.name) {
            out.push_str(&text[copied..hole.start]);
            out.push_str(new);
            copied = hole.start + hole.name.len();
            replaced = true;
        }
    }
    if !replaced {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

/// The byte offset of the first `pair` (two ASCII bytes, so always a char boundary) at or after
/// `from`. A plain byte scan: `str::find` builds a substring searcher per call, which costs more
/// than the scan on the short texts of a flow.
fn find_pair(bytes: &[u8], from: usize, pair: [u8; 2]) -> Option<usize> {
    let mut at = from;
    while let Some(found) = bytes.get(at..)?.iter().position(|&b| b == pair[0]) {
        let start = at + found;
        if bytes.get(start + 1) == Some(&pair[1]) {
            return Some(start);
        }
        at = start + 1;
    }
    None
}

/// The placeholder whose `{{` is at byte `start`: the byte range of its name and the offset
/// just past its `}}`.
fn placeholder(bytes: &[u8], start: usize) -> Option<(std::ops::Range<usize>, usize)> {
    let mut at = start + 2;
    while bytes.get(at) == Some(&b' ') {
        at += 1;
    }
    let name = at;
    match bytes.get(at) {
        Some(b'a'..=b'z' | b'_') => at += 1,
        _ => return None,
    }
    while let Some(b'a'..=b'z' | b'0'..=b'9' | b'_') = bytes.get(at) {
        at += 1;
    }
    if at - name > MAX_VARIABLE_NAME {
        return None;
    }
    let name = name..at;
    while bytes.get(at) == Some(&b' ') {
        at += 1;
    }
    (bytes.get(at..at + 2) == Some(b"}}")).then_some((name, at + 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(text: &str) -> Vec<String> {
        scan(text)
            .map(|found| match found {
                Found::Hole(h) => format!("{}@{}..{}", h.name, h.start, h.end),
                Found::Problem(Problem::Unclosed(at)) => format!("unclosed@{at}"),
                Found::Problem(Problem::Empty) => "empty".to_owned(),
                Found::Problem(Problem::Invalid(inner)) => format!("invalid {inner:?}"),
            })
            .collect()
    }

    #[test]
    fn placeholders_follow_runtime_section_5() {
        assert_eq!(shown("Hi {{name}}!"), ["name@3..11"]);
        // Spaces (U+0020 only) around the name.
        assert_eq!(shown("{{ total }}"), ["total@0..11"]);
        assert_eq!(shown("{{  a}}{{b  }}"), ["a@0..7", "b@7..14"]);
        assert_eq!(shown("{{\ta}}"), ["invalid \"\\ta\""]);
        // Leftmost first: `{{{x}}}` is `{`, x, `}`; more braces the same way.
        assert_eq!(shown("{{{x}}}"), ["x@1..6"]);
        assert_eq!(shown("{{{{x}}}}"), ["x@2..7"]);
        assert_eq!(shown("{{{ x }}}"), ["x@1..8"]);
        // Names: lowercase, digits, `_`, at most 64 characters.
        let long = "a".repeat(64);
        assert_eq!(shown(&format!("{{{{{long}}}}}")), [format!("{long}@0..68")]);
        let longer = "a".repeat(65);
        assert_eq!(
            shown(&format!("{{{{{longer}}}}}")),
            [format!("invalid {longer:?}")]
        );
        assert_eq!(shown("{{_x9}}"), ["_x9@0..7"]);
        // Nothing else in braces is a placeholder.
        assert!(shown("no braces } { here {x} }}").is_empty());
    }

    #[test]
    fn problems_are_what_the_runtime_sends_as_written() {
        assert_eq!(
            shown("Hi {{name}}, {{}} {{ }} {{Bad Name}} {{x"),
            [
                "name@3..11",
                "empty",
                "empty",
                "invalid \"Bad Name\"",
                "unclosed@37"
            ]
        );
        // No `}}` at all: reported once, and the scan stops.
        assert_eq!(shown("a {{b {{c"), ["unclosed@2"]);
        // Another `{{` before the `}}`: the first is unclosed, the second still reads.
        assert_eq!(shown("{{a {{b}}"), ["unclosed@0", "b@4..9"]);
        assert_eq!(shown("{{ {{x}} }}"), ["unclosed@0", "x@3..8"]);
        // A run of braces is reported once, at its last `{{`.
        assert_eq!(shown("{{{Bad}}}"), ["invalid \"Bad\""]);
        assert_eq!(
            shown("{{x.y}} {{1x}} {{a b}}"),
            ["invalid \"x.y\"", "invalid \"1x\"", "invalid \"a b\""]
        );
        // Char offsets, not bytes.
        assert_eq!(shown("ñ {{"), ["unclosed@2"]);
        // The holes alone.
        assert_eq!(
            holes("{{a}} {{ {{b}}").map(|h| h.name).collect::<Vec<_>>(),
            ["a", "b"]
        );
    }

    #[test]
    fn capital_holes_are_invalid_placeholders_that_lower_case_would_fix() {
        let text = "{{Invoice}} {{ Order_2 }} {{name}} {{Año}} {{A b}} {{{Total}}} {{X";
        let found: Vec<(usize, &str)> = capital_holes(text).map(|h| (h.start, h.name)).collect();
        assert_eq!(found, [(2, "Invoice"), (15, "Order_2"), (55, "Total")]);
        for (start, name) in found {
            assert_eq!(&text[start..start + name.len()], name);
        }
        let lower = |name: &str| match name {
            "Invoice" => Some("invoice"),
            "Total" => Some("total"),
            _ => None,
        };
        assert_eq!(
            rename_capital_holes(text, lower).as_deref(),
            Some("{{invoice}} {{ Order_2 }} {{name}} {{Año}} {{A b}} {{{total}}} {{X")
        );
        assert_eq!(rename_capital_holes("{{Order_2}} {{x}}", lower), None);
        // What is renamed is then a placeholder of the same scan.
        let renamed = rename_capital_holes("Hi {{ Invoice }}!", lower).unwrap();
        assert_eq!(
            holes(&renamed).map(|h| h.name).collect::<Vec<_>>(),
            ["invoice"]
        );
    }

    #[test]
    fn variable_names_are_the_documents_pattern() {
        for name in ["a", "_", "a_1", &"x".repeat(64)] {
            assert!(is_variable_name(name), "{name}");
        }
        for name in ["", "A", "1a", "a-b", "a b", "ñ", &"x".repeat(65)] {
            assert!(!is_variable_name(name), "{name}");
        }
    }
}
