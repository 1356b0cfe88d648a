//! The tidy rules on `botmesh_mcp`'s stable API (run by `cargo xtask tidy`):
//! - no stable item (an item named at the crate root) mentions a type that is reachable only
//!   through `botmesh_mcp::internal`, or a type of another workspace crate: its signature, its
//!   public fields, the public methods of its inherent impls and the headers of its trait impls
//!   are read;
//! - `botmesh-mcp-http` depends on `botmesh-mcp` with a caret requirement, so it uses no
//!   `botmesh_mcp::internal` item.
//!
//! A reading of the source text, not of the compiler's: it knows the shapes this crate uses
//! (`pub use` lists, `pub fn`/`struct`/`enum`/`const`/`type`/`mod` items, `impl` blocks), and
//! its own tests hold it to them.

use std::error::Error;
use std::path::Path;

/// The stable crate's sources, relative to the workspace root.
const STABLE_SOURCES: &str = "crates/mcp-server/src";

/// Crates that must use only the stable API (their sources, relative to the workspace root).
const STABLE_ONLY: &[&str] = &["crates/mcp-http/src"];

/// Every broken rule, one sentence each.
pub(crate) fn problems(root: &Path) -> Result<Vec<String>, Box<dyn Error>> {
    let mut sources = Vec::new();
    for file in crate::files_with_extension(&root.join(STABLE_SOURCES), "rs")? {
        let name = file
            .strip_prefix(root.join(STABLE_SOURCES))
            .unwrap_or(&file)
            .display()
            .to_string();
        // Tests are not API.
        if name == "tests.rs" || name.ends_with("/tests.rs") {
            continue;
        }
        sources.push((name, std::fs::read_to_string(&file)?));
    }
    let mut problems = leaks(&sources);
    for folder in STABLE_ONLY {
        for file in crate::files_with_extension(&root.join(folder), "rs")? {
            let shown = file
                .strip_prefix(root)
                .unwrap_or(&file)
                .display()
                .to_string();
            problems.extend(internal_uses(&shown, &std::fs::read_to_string(&file)?));
        }
    }
    Ok(problems)
}

/// Stable items of the crate whose sources (path relative to `src/`, text) are given that
/// mention an internal type.
fn leaks(sources: &[(String, String)]) -> Vec<String> {
    let sources: Vec<(&str, String)> = sources
        .iter()
        .map(|(name, text)| (name.as_str(), code_only(text)))
        .collect();
    let Some((_, lib)) = sources.iter().find(|(name, _)| *name == "lib.rs") else {
        return vec![format!("{STABLE_SOURCES}/lib.rs is missing")];
    };
    let (root, internal_body) = match item_span(lib, "pub mod internal") {
        Some((start, end)) => {
            let open = start + lib[start..].find('{').unwrap_or(0);
            (
                format!("{}{}", &lib[..start], &lib[end..]),
                &lib[open + 1..end - 1],
            )
        }
        None => (lib.clone(), ""),
    };
    let stable = declared_names(&root);
    // Types (capitalised) and the crates `internal` re-exports under a name (`jsonrpc`): a
    // lowercase function name would match parameters of the same name.
    let is_type_or_crate = |name: &String| {
        name.starts_with(|c: char| c.is_uppercase())
            || find_word(internal_body, &format!("as {name}"), 0).is_some()
    };
    let mut internal: Vec<String> = declared_names(internal_body)
        .into_iter()
        .filter(|name| is_type_or_crate(name) && !stable.contains(name))
        .collect();
    for (_, text) in &sources {
        internal.extend(
            foreign_names(text).into_iter().filter(|name| {
                name.starts_with(|c: char| c.is_uppercase()) && !stable.contains(name)
            }),
        );
    }
    internal.sort();
    internal.dedup();
    let mut problems = Vec::new();
    for name in &stable {
        let mut surface = String::new();
        for (_, text) in &sources {
            surface.push_str(&public_surface(text, name));
            surface.push('\n');
        }
        let mut mentioned: Vec<&str> = identifiers(&surface)
            .filter(|word| internal.iter().any(|name| name == word) || is_foreign_crate(word))
            .collect();
        mentioned.sort_unstable();
        mentioned.dedup();
        for word in mentioned {
            problems.push(format!(
                "{STABLE_SOURCES}: the stable item `{name}` mentions `{word}`, which is reachable \
                 only through `botmesh_mcp::internal`: promise `{word}` at the crate root or move \
                 `{name}`'s use of it behind `internal` (see ARCHITECTURE.md, API Boundary)"
            ));
        }
    }
    problems
}

/// Uses of `botmesh_mcp::internal` in a crate that must use only stable items.
fn internal_uses(path: &str, text: &str) -> Vec<String> {
    code_only(text)
        .lines()
        .enumerate()
        .filter(|(_, line)| line.contains("botmesh_mcp::internal"))
        .map(|(index, _)| {
            format!(
                "{path}:{}: botmesh-mcp-http uses `botmesh_mcp::internal`, which has no semver \
                 promise, under a caret requirement: use the stable root API",
                index + 1
            )
        })
        .collect()
}

/// A workspace crate other than the stable one (`botmesh_jsonrpc`, …): never stable.
fn is_foreign_crate(word: &str) -> bool {
    word.starts_with("botmesh_") && word != "botmesh_mcp"
}

/// The text with comments removed and string and character literals emptied (kept as `""`),
/// so that words in them are not read as code; line breaks are kept.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                if chars[i] == '\n' {
                    out.push('\n');
                }
                i += 1;
            }
            i += 2;
        } else if c == 'r'
            && matches!(next, Some('"' | '#'))
            && !is_word(chars.get(i.wrapping_sub(1)))
        {
            // A raw string: r"…", r#"…"#.
            let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            i += 2 + hashes;
            let closing: String = std::iter::once('"')
                .chain("#".repeat(hashes).chars())
                .collect();
            while i < chars.len() && !chars[i..].iter().collect::<String>().starts_with(&closing) {
                if chars[i] == '\n' {
                    out.push('\n');
                }
                i += 1;
            }
            i += closing.len();
            out.push_str("\"\"");
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                if chars.get(i) == Some(&'\n') {
                    out.push('\n');
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && (chars.get(i + 2) == Some(&'\'') || next == Some('\\')) {
            // A character literal ('x', '\n', '\''); a lifetime ('a) has no closing quote.
            i += if next == Some('\\') { 2 } else { 1 };
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_word(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

/// The identifiers of a text, in order.
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|word| word.starts_with(|c: char| c.is_alphabetic() || c == '_'))
}

/// The byte span of the item starting with `head` (up to its closing brace), if any.
fn item_span(text: &str, head: &str) -> Option<(usize, usize)> {
    let start = find_word(text, head, 0)?;
    let open = start + text[start..].find('{')?;
    Some((start, matching_brace(text, open)?))
}

/// The first occurrence of `needle` from `from` that is not part of a longer word.
fn find_word(text: &str, needle: &str, from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(found) = text[at..].find(needle) {
        let start = at + found;
        let end = start + needle.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        if !is_word(before.as_ref()) && !is_word(after.as_ref()) {
            return Some(start);
        }
        at = end;
    }
    None
}

/// The index just past the `}` matching the `{` at `open`.
fn matching_brace(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (offset, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(open + offset + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The names a module body makes public: the leaves of its `pub use` lists (or their `as`
/// names) and its `pub` items, nested modules' bodies left out.
fn declared_names(body: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = body;
    while let Some(at) = rest.find("pub ") {
        let after = &rest[at + 4..];
        if let Some(tree) = after.strip_prefix("use ") {
            let end = tree.find(';').unwrap_or(tree.len());
            names.extend(use_leaves(&tree[..end]));
            rest = &tree[end..];
            continue;
        }
        let mut words = identifiers(after);
        let kind = words.next().unwrap_or_default();
        let kind = if kind == "const" && after.starts_with("const fn") {
            "fn"
        } else {
            kind
        };
        if matches!(
            kind,
            "fn" | "struct" | "enum" | "const" | "static" | "type" | "trait" | "mod"
        ) {
            let name = if kind == "fn" && after.starts_with("const fn") {
                words.nth(1)
            } else {
                words.next()
            };
            if let Some(name) = name {
                names.push(name.to_owned());
            }
            // A `pub mod` or a function body: its insides are not this module's names.
            if let Some((_, end)) = (kind == "mod" || kind == "fn")
                .then(|| item_span(after, kind))
                .flatten()
            {
                rest = &after[end..];
                continue;
            }
        }
        rest = after;
    }
    names
}

/// The names a `use` tree brings in: `a::{b, c::d as e}` gives `b`, `e`.
fn use_leaves(tree: &str) -> Vec<String> {
    let mut leaves = Vec::new();
    for part in tree.split([',', '{', '}']) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let leaf = match part.split_once(" as ") {
            Some((_, alias)) => alias.trim(),
            None => part.rsplit("::").next().unwrap_or(part).trim(),
        };
        if !leaf.is_empty() && leaf != "self" && leaf != "*" {
            leaves.push(leaf.to_owned());
        }
    }
    leaves
}

/// The names a file imports from other workspace crates (`use botmesh_jsonrpc::{Message, …}`).
fn foreign_names(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut at = 0;
    while let Some(found) = find_word(text, "use", at) {
        let tree = &text[found + 3..];
        let end = tree.find(';').unwrap_or(tree.len());
        let tree = tree[..end].trim();
        if tree.starts_with("botmesh_") && !tree.starts_with("botmesh_mcp") {
            names.extend(use_leaves(tree));
        }
        at = found + 3 + end;
    }
    names
}

/// What the stable item `name` shows of itself in `text`: its signature (a function's up to
/// its body, a constant's type, a struct's public fields, an enum or a module whole), the
/// public methods of its inherent impls, and the headers of its trait impls.
fn public_surface(text: &str, name: &str) -> String {
    let mut surface = String::new();
    for kind in [
        "fn", "const fn", "const", "static", "type", "struct", "enum", "trait", "mod",
    ] {
        let head = format!("pub {kind} {name}");
        let Some(start) = find_word(text, &head, 0) else {
            continue;
        };
        let item = &text[start..];
        let end = match kind {
            "fn" | "const fn" => item.find('{'),
            "const" | "static" => item.find('='),
            "type" => item.find(';'),
            _ => match (item.find('{'), item.find(';')) {
                (Some(open), Some(semi)) if semi < open => Some(semi),
                (Some(open), _) => matching_brace(item, open),
                (None, semi) => semi,
            },
        }
        .unwrap_or(item.len());
        let item = &item[..end];
        match (kind, item.find(['{', '('])) {
            ("struct", Some(open)) => {
                // The header and the public fields: private fields are not API.
                surface.push_str(&item[..open]);
                for field in split_top_level(&item[open + 1..]) {
                    if find_word(field, "pub", 0).is_some_and(|at| field[at + 3..].starts_with(' '))
                    {
                        surface.push_str(field);
                        surface.push('\n');
                    }
                }
            }
            _ => surface.push_str(item),
        }
        surface.push('\n');
    }
    let mut at = 0;
    while let Some(found) = find_word(text, "impl", at) {
        let Some(open) = text[found..].find('{').map(|offset| found + offset) else {
            break;
        };
        at = found + 4;
        // An item starts its line; `impl Trait` in a signature does not.
        let line_start = text[..found].rfind('\n').map_or(0, |newline| newline + 1);
        if !text[line_start..found].trim().is_empty() {
            continue;
        }
        let header = &text[found..open];
        let end = matching_brace(text, open).unwrap_or(text.len());
        let own = self_type(header) == name;
        if own && header.contains(" for ") {
            surface.push_str(header);
            surface.push('\n');
        } else if own {
            surface.push_str(header);
            surface.push('\n');
            let body = &text[open + 1..end.saturating_sub(1)];
            let mut from = 0;
            while let Some(method) = find_word(body, "pub fn", from) {
                let signature_end = body[method..]
                    .find('{')
                    .map_or(body.len(), |offset| method + offset);
                surface.push_str(&body[method..signature_end]);
                surface.push('\n');
                from = signature_end;
            }
        }
    }
    surface
}

/// The type an `impl` header is for: `impl<W: Fn() -> X> Options<W>` gives `Options`,
/// `impl fmt::Debug for Tool` gives `Tool`.
fn self_type(header: &str) -> &str {
    let mut rest = header.trim_start_matches("impl");
    if rest.starts_with('<') {
        // Skip the generic parameters (`->` inside them is not a closing `>`).
        let mut depth = 0usize;
        let mut previous = ' ';
        for (offset, c) in rest.char_indices() {
            match c {
                '<' => depth += 1,
                '>' if previous != '-' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        rest = &rest[offset + 1..];
                        break;
                    }
                }
                _ => {}
            }
            previous = c;
        }
    }
    let rest = rest.rsplit(" for ").next().unwrap_or(rest);
    let rest = rest.split(" where").next().unwrap_or(rest);
    let rest = rest.split('<').next().unwrap_or(rest).trim();
    rest.rsplit("::").next().unwrap_or(rest)
}

/// The parts of a list at depth 0 (commas inside `<>`, `()`, `[]` or `{}` do not split),
/// up to the list's closing bracket.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start, mut previous) = (0usize, 0, ' ');
    for (offset, c) in text.char_indices() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' if previous == '-' => {}
            '>' | ')' | ']' | '}' if depth == 0 => {
                parts.push(&text[start..offset]);
                return parts;
            }
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..offset]);
                start = offset + 1;
            }
            _ => {}
        }
        previous = c;
    }
    parts.push(&text[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(name, text)| ((*name).to_owned(), (*text).to_owned()))
            .collect()
    }

    const LIB: &str = "//! A crate.\n\
        pub use server::{McpServer, Session, create};\n\
        pub use options::Options;\n\
        /// No promise.\n\
        pub mod internal {\n    pub use crate::catalogue::{Catalogue, Tool as Entry};\n    \
        pub use botmesh_jsonrpc as jsonrpc;\n    \
        pub fn handle(server: &crate::McpServer, message: jsonrpc::Message) {}\n}\n";

    #[test]
    fn a_stable_item_that_names_an_internal_type_is_a_problem() {
        let server = "//! Server.\n\
            use crate::catalogue::Catalogue;\n\
            use botmesh_jsonrpc::{Message, Response};\n\
            pub struct McpServer {\n    catalogue: Catalogue,\n    pub size: usize,\n}\n\
            pub struct Session;\n\
            impl McpServer {\n    \
                pub fn catalogue(&self) -> &Catalogue { &self.catalogue }\n    \
                pub(crate) fn quiet(&self) -> Message { todo() }\n    \
                /// Takes a `Response` (a comment is not API).\n    \
                pub fn text(&self, _: &str) -> Option<String> { let r: Response; None }\n}\n\
            impl From<Entry> for Session { fn from(_: Entry) -> Self { Session } }\n\
            impl std::fmt::Debug for Catalogue {}\n\
            pub fn create(error: &'static str) -> Result<McpServer, botmesh_docs_search::Error> {\n    \
                let _ = \"Catalogue\"; let _ = '{'; todo()\n}\n";
        let options = "//! Options.\n\
            #[derive(Debug)]\npub enum Options {\n    #[error(\"a Catalogue word in a message\")]\n    \
            Strict(Message),\n}\n";
        let problems = leaks(&files(&[
            ("lib.rs", LIB),
            ("server.rs", server),
            ("options.rs", options),
        ]));
        let short: Vec<String> = problems
            .iter()
            .map(|problem| {
                problem
                    .split(", which")
                    .next()
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect();
        expect_test::expect![[r#"
            crates/mcp-server/src: the stable item `McpServer` mentions `Catalogue`
            crates/mcp-server/src: the stable item `Session` mentions `Entry`
            crates/mcp-server/src: the stable item `create` mentions `botmesh_docs_search`
            crates/mcp-server/src: the stable item `Options` mentions `Message`"#]]
        .assert_eq(&short.join("\n"));
    }

    #[test]
    fn stable_items_that_name_stable_types_pass() {
        let server = "//! Server.\n\
            use botmesh_jsonrpc::Message;\n\
            pub struct McpServer { inner: std::sync::Arc<Message> }\n\
            #[derive(Default)]\npub struct Session { scopes: Vec<String> }\n\
            impl McpServer {\n    pub fn handle(&self, session: &mut Session, text: &str) -> Option<String> { None }\n    \
            pub(crate) fn message(&self, m: Message) {}\n}\n\
            pub fn create(options: crate::Options) -> McpServer { todo() }\n";
        let options = "//! Options.\npub struct Options { pub tools: Option<Vec<String>> }\n";
        assert_eq!(
            leaks(&files(&[
                ("lib.rs", LIB),
                ("server.rs", server),
                ("options.rs", options),
            ])),
            Vec::<String>::new()
        );
    }

    #[test]
    fn the_http_crate_may_not_use_internal() {
        let text = "//! Service.\n// botmesh_mcp::internal in a comment is fine\n\
                    use botmesh_mcp::internal::Session;\n";
        expect_test::expect![[r#"
            crates/mcp-http/src/service.rs:3: botmesh-mcp-http uses `botmesh_mcp::internal`, which has no semver promise, under a caret requirement: use the stable root API"#]]
        .assert_eq(&internal_uses("crates/mcp-http/src/service.rs", text).join("\n"));
    }

    #[test]
    fn literals_and_comments_are_not_code() {
        assert_eq!(
            code_only("a // Catalogue\nb \"Cat\\\"x\" c '\"' d 'a e r#\"Tool\"# f /* g */"),
            "a \nb \"\" c ' ' d 'a e \"\" f "
        );
    }
}
