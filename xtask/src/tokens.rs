//! A small Rust tokenizer for the tidy rules that must tell code from comments and find lists:
//! string literals with their contents, identifiers and punctuation, each with its line;
//! comments, character literals, lifetimes and whitespace are skipped.
//!
//! It is not a Rust lexer (no numbers, no multi-character operators, no escapes decoded), only
//! enough to see which string literals stand together in one array, one `match` or one
//! or-pattern (`step_kind_problems` in `tidy.rs`).

/// One token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    /// A string literal (`"…"`, `r#"…"#`, `b"…"`), its text between the quotes as written.
    Str(String),
    /// An identifier, keyword or number.
    Ident(String),
    /// One punctuation character.
    Punct(char),
}

/// The tokens of `text`, each with its 1-based line.
pub(crate) fn tokenize(text: &str) -> Vec<(usize, Token)> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let (mut i, mut line) = (0, 1);
    // Advances over `chars[from..to]`, counting lines.
    let lines_in = |from: usize, to: usize| chars[from..to].iter().filter(|c| **c == '\n').count();
    while let Some(&c) = chars.get(i) {
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while chars.get(i).is_some_and(|c| *c != '\n') {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let (start, mut depth) = (i, 0usize);
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            line += lines_in(start, i.min(chars.len()));
        } else if c == '"' {
            let start = i;
            i += 1;
            let from = i;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            let to = i.min(chars.len());
            tokens.push((line, Token::Str(chars[from..to].iter().collect())));
            i = (i + 1).min(chars.len());
            line += lines_in(start, i);
        } else if c == '\'' {
            // A character literal ('a', '\n', '\u{1F600}'), or a lifetime ('a) skipped.
            if next == Some('\\') {
                i += 2;
                while chars.get(i).is_some_and(|c| *c != '\'') {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while chars
                .get(i)
                .is_some_and(|c| c.is_alphanumeric() || *c == '_')
            {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let raw = matches!(word.as_str(), "r" | "br" | "cr");
            if raw && matches!(chars.get(i), Some('"' | '#')) {
                let hashes = chars[i..].iter().take_while(|c| **c == '#').count();
                if chars.get(i + hashes) == Some(&'"') {
                    let from = i + hashes + 1;
                    let closing: Vec<char> = std::iter::once('"')
                        .chain("#".repeat(hashes).chars())
                        .collect();
                    let mut to = from;
                    while to < chars.len() && !chars[to..].starts_with(&closing) {
                        to += 1;
                    }
                    tokens.push((line, Token::Str(chars[from..to].iter().collect())));
                    i = (to + closing.len()).min(chars.len());
                    line += lines_in(start, i);
                    continue;
                }
            }
            if word == "b" && chars.get(i) == Some(&'"') {
                // A byte string: the quote is read next, as a string.
                continue;
            }
            tokens.push((line, Token::Ident(word)));
        } else {
            tokens.push((line, Token::Punct(c)));
            i += 1;
        }
    }
    tokens
}

/// The groups of string literals that stand together as one list, each with the line of its
/// first literal: the direct elements of an array (`[…]`), the patterns of one `match`'s arms,
/// and a chain of or-patterns (`"a" | "b" | "c"`, as in `matches!`).
pub(crate) fn literal_groups(tokens: &[(usize, Token)]) -> Vec<(usize, Vec<String>)> {
    let mut groups = Vec::new();
    let is = |at: usize, c: char| matches!(tokens.get(at), Some((_, Token::Punct(p))) if *p == c);
    let arrow = |at: usize| is(at, '=') && is(at + 1, '>');
    for (at, (_, token)) in tokens.iter().enumerate() {
        match token {
            Token::Punct('[') => {
                groups.push(direct_literals(tokens, at, |_| true));
            }
            Token::Ident(word) if word == "match" => {
                // The body: the first `{` outside the scrutinee's brackets.
                let mut depth = 0i32;
                let mut open = None;
                for (index, (_, token)) in tokens.iter().enumerate().skip(at + 1) {
                    match token {
                        Token::Punct('(' | '[') => depth += 1,
                        Token::Punct(')' | ']') => depth -= 1,
                        Token::Punct('{') if depth == 0 => {
                            open = Some(index);
                            break;
                        }
                        Token::Punct(';') if depth == 0 => break,
                        _ => {}
                    }
                }
                if let Some(open) = open {
                    groups.push(direct_literals(tokens, open, |index| {
                        is(index + 1, '|')
                            || arrow(index + 1)
                            || matches!(&tokens.get(index + 1), Some((_, Token::Ident(w))) if w == "if")
                            || (index > 0 && is(index - 1, '|'))
                    }));
                }
            }
            Token::Str(_) if !(at > 0 && is(at - 1, '|')) && is(at + 1, '|') => {
                // The start of an or-chain.
                let mut chain = Vec::new();
                let mut index = at;
                while let Some((_, Token::Str(text))) = tokens.get(index) {
                    chain.push(text.clone());
                    if !is(index + 1, '|') {
                        break;
                    }
                    index += 2;
                }
                if chain.len() > 1 {
                    groups.push((tokens[at].0, chain));
                }
            }
            _ => {}
        }
    }
    groups.retain(|(_, literals)| !literals.is_empty());
    groups
}

/// The string literals directly inside the bracket opened at `open` (not inside a nested
/// bracket) for which `keep` holds, with the line of the first.
fn direct_literals(
    tokens: &[(usize, Token)],
    open: usize,
    keep: impl Fn(usize) -> bool,
) -> (usize, Vec<String>) {
    let mut depth = 0i32;
    let mut found = Vec::new();
    let mut first_line = tokens[open].0;
    for (index, (line, token)) in tokens.iter().enumerate().skip(open) {
        match token {
            Token::Punct('(' | '[' | '{') => depth += 1,
            Token::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            Token::Str(text) if depth == 1 && keep(index) => {
                if found.is_empty() {
                    first_line = *line;
                }
                found.push(text.clone());
            }
            _ => {}
        }
    }
    (first_line, found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(text: &str) -> Vec<String> {
        tokenize(text)
            .into_iter()
            .filter_map(|(_, token)| match token {
                Token::Str(text) => Some(text),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn comments_characters_and_lifetimes_are_not_strings() {
        let text = "// \"a\"\n/* \"b\" /* \"c\" */ */ let x: &'static str = \"d\"; let q = '\"';\n\
                    let e = '\\''; let r = r#\"e \"f\"\"#; let b = b\"g\"; let s = \"h\\\"i\";";
        assert_eq!(strings(text), ["d", "e \"f\"", "g", "h\\\"i"]);
        let lines: Vec<usize> = tokenize("a\n/*\n*/ \"x\n\" b")
            .into_iter()
            .map(|(line, _)| line)
            .collect();
        assert_eq!(lines, [1, 3, 4]);
    }

    #[test]
    fn groups_are_arrays_match_arms_and_or_chains() {
        let text = "const A: [&str; 2] = [\"a\", \"b\"];\n\
                    let t = [(\"x\", \"y\")];\n\
                    match k { \"c\" | \"d\" => 1, \"e\" if ok => 2, _ => f(\"not\") }\n\
                    matches!(k, \"g\" | \"h\");";
        let groups: Vec<Vec<String>> = literal_groups(&tokenize(text))
            .into_iter()
            .map(|(_, group)| group)
            .collect();
        let expected: Vec<Vec<&str>> = vec![
            vec!["a", "b"],
            vec!["c", "d", "e"],
            vec!["c", "d"],
            vec!["g", "h"],
        ];
        assert_eq!(groups, expected);
    }
}
