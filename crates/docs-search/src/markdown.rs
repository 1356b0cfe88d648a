//! Splitting one Markdown page into a title and heading-delimited sections of plain text.

use pulldown_cmark::{CodeBlockKind, Event, MetadataBlockKind, Options, Parser, Tag, TagEnd};

/// How deep admonitions inside admonitions are read as Markdown; deeper
/// ones stay code (each level is parsed again, so this bounds the work and
/// the stack on hostile input).
const MAX_ADMONITION_DEPTH: usize = 4;

/// One heading-delimited part of a page, as plain text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawSection {
    /// The heading's plain text; empty for text before the first heading.
    pub(crate) heading: String,
    /// The body's plain text outside code blocks, whitespace collapsed to single spaces.
    pub(crate) text: String,
    /// The text of the body's code blocks, whitespace collapsed.
    pub(crate) code: String,
    /// The headings this section sits under (H2 above an H3, ...), joined by spaces.
    pub(crate) parents: String,
    /// The heading's level (1 to 6; 0 for text before the first heading).
    pub(crate) level: u8,
    /// Where the section starts in the page's Markdown, in bytes: its heading
    /// line (for text before the first heading, the end of the front matter).
    pub(crate) start: usize,
    /// The section's anchor, unique in the page: the heading's own (`{ #id }`,
    /// `{/*id*/}`), else a slug of its text (`Query parameters` →
    /// `query-parameters`); a repeated one gets `-1`, `-2`, ... as GitHub
    /// does. Empty for text before the first heading.
    pub(crate) anchor: String,
    /// Whether the anchor is the heading's own (written in the Markdown).
    pub(crate) explicit: bool,
    /// Whether the section is a part of the entry above it (see [`mark_parts`]):
    /// searched and read with that entry, not alone.
    pub(crate) part: bool,
}

impl RawSection {
    /// A section of `text` alone, without heading.
    fn untitled(start: usize) -> RawSection {
        RawSection {
            heading: String::new(),
            text: String::new(),
            code: String::new(),
            parents: String::new(),
            level: 0,
            start,
            anchor: String::new(),
            explicit: false,
            part: false,
        }
    }
}

/// The anchor a heading line writes itself: `## Title { #the-id }` (also
/// with classes or attributes beside the id) or the MDX comment form of
/// react.dev, `## Title {/*the-id*/}`.
fn explicit_anchor(line: &str) -> Option<&str> {
    let line = line.trim_end().trim_end_matches('#').trim_end();
    let inner = line.strip_suffix('}')?;
    let inner = &inner[inner.rfind('{')? + 1..];
    let inner = inner.trim();
    if let Some(comment) = inner.strip_prefix("/*").and_then(|c| c.strip_suffix("*/")) {
        let id = comment.trim();
        return (!id.is_empty() && !id.contains(char::is_whitespace)).then_some(id);
    }
    inner
        .split_whitespace()
        .find_map(|attr| attr.strip_prefix('#'))
        .filter(|id| !id.is_empty())
}

/// The anchors a page has given so far, and for each base the next suffix to try.
type Anchors = rustc_hash::FxHashMap<String, usize>;

/// `base`, or the first of `base-1`, `base-2`, ... the page has not given yet.
fn unique_anchor(anchors: &mut Anchors, base: String) -> String {
    let mut n = anchors.get(&base).copied().unwrap_or(0);
    let anchor = loop {
        let candidate = if n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        };
        if !anchors.contains_key(&candidate) {
            break candidate;
        }
        n += 1;
    };
    anchors.insert(base, n + 1);
    anchors.entry(anchor.clone()).or_insert(1);
    anchor
}

/// GitHub's anchor for a heading's text: lowercased, spaces to `-`, and
/// every character but letters, digits, `-` and `_` dropped.
pub(crate) fn slug(heading: &str) -> String {
    heading
        .chars()
        .flat_map(char::to_lowercase)
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// A parsed page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParsedPage {
    /// The front-matter `title:`, else the first H1, else `None`.
    pub(crate) title: Option<String>,
    /// The sections in document order; a leading section without heading is
    /// kept only when it has text.
    pub(crate) sections: Vec<RawSection>,
}

/// Whether each byte value is ASCII whitespace (`u8::is_ascii_whitespace`), as a table.
const WHITESPACE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_whitespace();
        b += 1;
    }
    table
};

/// Collapses runs of ASCII whitespace to one space and trims the ends (an exact-size string).
fn collapse(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        while i < bytes.len() && WHITESPACE[usize::from(bytes[i])] {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && !WHITESPACE[usize::from(bytes[i])] {
            i += 1;
        }
        if start < i {
            if !out.is_empty() {
                out.push(' ');
            }
            // Both ends are next to ASCII bytes or the text's ends: character boundaries.
            out.push_str(&text[start..i]);
        }
    }
    if out.capacity() > out.len() + out.len() / 8 {
        out.shrink_to_fit();
    }
    out
}

/// The `title:` of a YAML front-matter block, if it has a plain one-line value.
fn front_matter_title(yaml: &str) -> Option<String> {
    for line in yaml.lines() {
        let Some(value) = line.strip_prefix("title:") else {
            continue;
        };
        let value = value.trim();
        let unquoted = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
            .unwrap_or(value);
        // Block scalars (`|`, `>`) and empty values are not a usable title.
        if unquoted.is_empty() || value.starts_with('|') || value.starts_with('>') {
            return None;
        }
        return Some(collapse(unquoted));
    }
    None
}

/// Whether a paragraph's text only includes code from another file, in one
/// of the include syntaxes of the common documentation generators: VitePress
/// (`<<< @/snippets/flow.json`), mdBook (`{{#include file.rs}}`,
/// `{{#rustdoc_include ...}}`, `{{#playground ...}}`), PyMdown snippets
/// (`--8<-- "file.py"`), markdown-include (`{!file.py!}`) and MkDocs macros as
/// FastAPI writes them (`{* ../docs_src/app.py hl[3] *}`). Such a paragraph is
/// the section's code example, not its prose.
fn is_code_include(text: &str) -> bool {
    let t = text.trim();
    let wrapped = |open: &str, close: &str| t.starts_with(open) && t.ends_with(close);
    t.starts_with("<<< ")
        || t.starts_with("--8<--")
        || wrapped("{{#include ", "}}")
        || wrapped("{{#rustdoc_include ", "}}")
        || wrapped("{{#playground ", "}}")
        || wrapped("{!", "!}")
        || wrapped("{*", "*}")
}

/// The title of a PyMdown block's opening line (`/// note | Technical
/// Details`: `Technical Details`; `/// tip`: empty; nested blocks have more
/// slashes: `//// tab | Python 3.10+`) or of its closing line (`///`: empty);
/// `None` when the line is no such fence. The block's kind is markup, like a
/// VitePress container's.
fn block_title(line: &str) -> Option<&str> {
    let line = line.trim();
    let rest = line.trim_start_matches('/');
    if line.len() - rest.len() < 3 {
        return None;
    }
    if rest.is_empty() {
        return Some("");
    }
    let rest = rest.strip_prefix(' ')?;
    let (kind, title) = rest.split_once('|').unwrap_or((rest, ""));
    let kind = kind.trim();
    let markup = !kind.is_empty() && kind.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    markup.then_some(title.trim())
}

/// The marker of a Python-Markdown admonition or content tab, as MkDocs
/// Material writes them, at the start of a paragraph: `!!! note "Title"`,
/// `??? tip`, `???+ warning inline end "Title"`, `=== "Tab title"`. Returns
/// the text after the marker, with the kind and modifiers left out (a
/// quoted title and any text after it on the paragraph stay: an admonition
/// without a blank line after its first line continues as a paragraph).
fn admonition_rest(paragraph: &str) -> Option<&str> {
    let t = paragraph.trim_start();
    let (marker, rest) = if let Some(rest) = t.strip_prefix("===") {
        ("===", rest)
    } else if let Some(rest) = t.strip_prefix("???+") {
        ("???+", rest)
    } else if let Some(rest) = t.strip_prefix("???") {
        ("???", rest)
    } else {
        ("!!!", t.strip_prefix("!!!")?)
    };
    let rest = rest.strip_prefix(' ')?.trim_start();
    if marker == "===" {
        // A tab has only a title, always quoted.
        return rest.starts_with('"').then_some(rest);
    }
    // The kind (`note`), then optional modifiers (`inline end`), then an optional title.
    let title_at = rest.find('"').unwrap_or(rest.len());
    let words = &rest[..title_at];
    let kind_ok = words.split_whitespace().next().is_some_and(|k| {
        k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    });
    kind_ok.then_some(&rest[title_at..])
}

/// The documented object of a mkdocstrings directive line (`::: fastapi.WebSocket`,
/// its colons included or not): a dotted path of identifiers. A VitePress
/// container (`::: tip Title`, `::: warning`) has no dot in its name, so it is
/// not one.
fn autodoc_path(line: &str) -> Option<&str> {
    let rest = line.trim().trim_start_matches(':').trim();
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !s.starts_with(|c: char| c.is_ascii_digit())
    };
    (rest.contains('.') && rest.split('.').all(ident)).then_some(rest)
}

/// How a page was parsed, when not as Markdown with every extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fallback {
    /// The parser failed, and succeeded without definition lists.
    NoDefinitionLists,
    /// The parser failed both ways: the page is one section of plain text.
    PlainText,
}

/// The Markdown extensions a page is parsed with.
const OPTIONS: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS)
    .union(Options::ENABLE_HEADING_ATTRIBUTES)
    .union(Options::ENABLE_YAML_STYLE_METADATA_BLOCKS)
    .union(Options::ENABLE_FOOTNOTES)
    .union(Options::ENABLE_DEFINITION_LIST)
    .union(Options::ENABLE_GFM);

/// Parses `source` (one page's Markdown) into its title and sections.
///
/// Headings are ATX or setext (a `#` inside fenced or indented code is code);
/// inline code, link texts and image descriptions are body text; a paragraph
/// that only includes a code file ([`is_code_include`]) or is a mkdocstrings
/// directive (`::: fastapi.WebSocket` and its options) is code; the content
/// of a MkDocs Material admonition or tab (`!!! note "Title"`, `??? tip`,
/// `=== "Tab"`, then an indented block) is Markdown, not code; HTML,
/// VitePress container fences (`::: tip`), PyMdown block fences (`/// tip`,
/// `///`; a `| title` stays text) and GitHub alert markers (`> [!NOTE]`) are
/// neither.
///
/// Also says how it had to fall back. pulldown-cmark (0.13.6, the
/// newest) panics on some rare inputs: a setext underline in a definition
/// with heading attributes on, for example `a\n: b\n    {c}\n    ===`.
/// One odd page must not make every search of the tree fail, so the page is
/// parsed again without definition lists (the extension involved), and as
/// plain text if that fails too.
pub(crate) fn parse_safely(source: &str) -> (ParsedPage, Option<Fallback>) {
    let attempt = |options| {
        std::panic::catch_unwind(|| {
            let mut page = parse_at(source, 0, options);
            mark_parts(&mut page.sections);
            page
        })
    };
    if let Ok(page) = attempt(OPTIONS) {
        return (page, None);
    }
    if let Ok(page) = attempt(OPTIONS.difference(Options::ENABLE_DEFINITION_LIST)) {
        return (page, Some(Fallback::NoDefinitionLists));
    }
    let page = ParsedPage {
        title: None,
        sections: vec![RawSection {
            text: collapse(source),
            ..RawSection::untitled(0)
        }],
    };
    (page, Some(Fallback::PlainText))
}

/// Marks the sections that are parts of the entry above them: a section whose
/// heading repeats on its page (case and spaces aside), directly under a
/// heading of a lower level or under such parts of it. Reference pages give
/// every entry the same sub-headings (`Usage` under each component of a
/// component list, `Parameters`, `Returns` and `Caveats` under each function,
/// `Fixes` under each release): such a heading names a part of the entry,
/// not a topic, and a result named `Usage` would not say which entry it is.
/// So a part is searched as the entry's text, and read with it
/// ([`crate::DocsIndex::section`]).
fn mark_parts(sections: &mut [RawSection]) {
    let keys: Vec<String> = sections.iter().map(|s| heading_key(&s.heading)).collect();
    let mut count: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    for (section, key) in sections.iter().zip(&keys) {
        if section.level > 0 {
            *count.entry(key).or_default() += 1;
        }
    }
    // The level of the last section that is no part (0: none yet, or the text
    // before the first heading).
    let mut entry = 0;
    for (section, key) in sections.iter_mut().zip(&keys) {
        let repeated = section.level > 0 && count.get(key.as_str()).is_some_and(|&n| n > 1);
        section.part = repeated && (1..section.level).contains(&entry);
        if !section.part {
            entry = section.level;
        }
    }
}

/// A heading's text as headings are compared: runs of whitespace as one
/// space, lowercase (`Usage` and ` usage` are one heading).
pub(crate) fn heading_key(heading: &str) -> String {
    heading
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// [`parse_safely`] with `options`, for a page (`depth` 0) or an admonition's
/// content (`depth` its nesting).
fn parse_at(source: &str, depth: usize, options: Options) -> ParsedPage {
    let mut front_title = None;
    let mut first_h1: Option<String> = None;
    let mut sections = vec![RawSection::untitled(0)];
    let mut anchors = Anchors::default();
    // Where the open heading starts in `source`, and the anchor it writes.
    let mut heading_at = (0, None);
    // The open headings above the current one: (level, text).
    let mut open: Vec<(usize, String)> = Vec::new();
    let mut heading: Option<(bool, String)> = None;
    let mut in_metadata = false;
    let mut in_code = false;
    let mut body = String::new();
    let mut code = String::new();
    let mut line_start = true;
    // Where the open paragraph's text starts in `body`.
    let mut paragraph_at = None;
    // Whether the current paragraph is a mkdocstrings directive.
    let mut autodoc = false;
    // Whether the next text starts a definition-list definition, whose `:`
    // marker the parser took: a `::: tip` line after a paragraph is parsed
    // as a definition and reaches us as `:: tip`.
    let mut definition_start = false;
    // Whether the paragraph just ended was an admonition's first line: an
    // indented block right after it is the admonition's Markdown content.
    let mut admonition_next = false;
    // That content, while it is read.
    let mut admonition: Option<String> = None;

    for (event, range) in Parser::new_ext(source, options).into_offset_iter() {
        let after_admonition = std::mem::take(&mut admonition_next);
        if let Some(content) = admonition.as_mut() {
            match event {
                Event::Text(text) => content.push_str(&text),
                Event::End(TagEnd::CodeBlock) => {
                    let inner = parse_at(content, depth + 1, options);
                    admonition = None;
                    for section in inner.sections {
                        body.push(' ');
                        body.push_str(&section.heading);
                        body.push(' ');
                        body.push_str(&section.text);
                        code.push(' ');
                        code.push_str(&section.code);
                    }
                    body.push(' ');
                    line_start = true;
                }
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(Tag::MetadataBlock(MetadataBlockKind::YamlStyle)) => in_metadata = true,
            Event::End(TagEnd::MetadataBlock(_)) => {
                in_metadata = false;
                if let [only] = sections.as_mut_slice() {
                    let rest = &source[range.end..];
                    only.start = source.len() - rest.trim_start_matches(['\r', '\n']).len();
                }
            }
            Event::Start(Tag::Heading { level, .. }) => {
                heading = Some((level == pulldown_cmark::HeadingLevel::H1, String::new()));
                let line = source[range.clone()].lines().next().unwrap_or_default();
                heading_at = (range.start, explicit_anchor(line).map(str::to_owned));
            }
            Event::End(TagEnd::Heading(level)) => {
                if let Some((is_h1, text)) = heading.take() {
                    let text = collapse(&text);
                    let level = level as usize;
                    while open.last().is_some_and(|(l, _)| *l >= level) {
                        open.pop();
                    }
                    // The page's H1 is its title, already context of every section.
                    let parents: Vec<&str> = open
                        .iter()
                        .filter(|(l, _)| *l > 1)
                        .map(|(_, t)| t.as_str())
                        .collect();
                    let parents = parents.join(" ");
                    open.push((level, text.clone()));
                    if let Some(last) = sections.last_mut() {
                        last.text = collapse(&body);
                        last.code = collapse(&code);
                    }
                    body.clear();
                    code.clear();
                    if is_h1 && first_h1.is_none() && !text.is_empty() {
                        first_h1 = Some(text.clone());
                    }
                    let (start, explicit) = std::mem::take(&mut heading_at);
                    let is_explicit = explicit.is_some();
                    let base = explicit.unwrap_or_else(|| slug(&text));
                    let anchor = unique_anchor(&mut anchors, base);
                    sections.push(RawSection {
                        heading: text,
                        parents,
                        level: u8::try_from(level).unwrap_or(6),
                        start,
                        anchor,
                        explicit: is_explicit,
                        ..RawSection::untitled(0)
                    });
                }
                line_start = true;
            }
            Event::Start(Tag::CodeBlock(CodeBlockKind::Indented))
                if after_admonition && depth < MAX_ADMONITION_DEPTH =>
            {
                admonition = Some(String::new());
            }
            Event::Start(Tag::CodeBlock(_)) => {
                in_code = true;
                code.push(' ');
                body.push(' ');
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code = false;
                code.push(' ');
                body.push(' ');
                line_start = true;
            }
            Event::Start(Tag::HtmlBlock) | Event::Html(_) | Event::InlineHtml(_) => {}
            Event::Text(text)
            | Event::Code(text)
            | Event::InlineMath(text)
            | Event::DisplayMath(text) => {
                if in_metadata {
                    if front_title.is_none() {
                        front_title = front_matter_title(&text);
                    }
                    continue;
                }
                let target = match heading.as_mut() {
                    Some((_, h)) => h,
                    None if in_code => &mut code,
                    None => &mut body,
                };
                if in_code {
                    target.push_str(&text);
                } else {
                    // VitePress containers: a line `::: tip Title` or `:::` is
                    // markup; `::: package.Name` is a mkdocstrings directive.
                    let colon_taken = std::mem::take(&mut definition_start);
                    for (i, line) in text.split('\n').enumerate() {
                        let at_start = line_start || i > 0;
                        let marker = if colon_taken && i == 0 { "::" } else { ":::" };
                        if at_start && line.trim_start().starts_with(marker) {
                            if let Some(path) = autodoc_path(line) {
                                autodoc = true;
                                target.push(' ');
                                target.push_str(path);
                            }
                            target.push(' ');
                            continue;
                        }
                        if at_start && let Some(title) = block_title(line) {
                            target.push(' ');
                            target.push_str(title);
                            target.push(' ');
                            continue;
                        }
                        if i > 0 {
                            target.push(' ');
                        }
                        target.push_str(line);
                    }
                    line_start = false;
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                line_start = true;
                match heading.as_mut() {
                    Some((_, h)) => h.push(' '),
                    None => body.push(' '),
                }
            }
            Event::End(TagEnd::Paragraph) => {
                let at = paragraph_at.take();
                if let Some(at) = at
                    && let Some(rest) = admonition_rest(&body[at..])
                {
                    admonition_next = rest.trim().starts_with('"') || rest.trim().is_empty();
                    let rest = rest.replace('"', " ");
                    body.truncate(at);
                    body.push_str(&rest);
                } else if let Some(at) = at
                    && (std::mem::take(&mut autodoc) || is_code_include(&body[at..]))
                {
                    code.push(' ');
                    code.push_str(&body[at..]);
                    code.push(' ');
                    body.truncate(at);
                }
                body.push(' ');
                line_start = true;
            }
            Event::Start(Tag::Paragraph) => {
                body.push(' ');
                line_start = true;
                autodoc = false;
                paragraph_at = heading.is_none().then_some(body.len());
            }
            // A block's text must not glue to the text before or after it (a
            // nested list's first item to its parent item's text, a quote in
            // an item, one table cell to the next).
            Event::Start(
                Tag::Item
                | Tag::List(_)
                | Tag::BlockQuote(_)
                | Tag::DefinitionList
                | Tag::DefinitionListTitle
                | Tag::Table(_)
                | Tag::TableHead
                | Tag::TableRow
                | Tag::TableCell
                | Tag::FootnoteDefinition(_),
            )
            | Event::End(
                TagEnd::Item
                | TagEnd::TableCell
                | TagEnd::BlockQuote(_)
                | TagEnd::DefinitionListTitle
                | TagEnd::DefinitionListDefinition,
            ) => {
                body.push(' ');
                line_start = true;
            }
            Event::Start(Tag::DefinitionListDefinition) => {
                body.push(' ');
                line_start = true;
                definition_start = true;
            }
            _ => {}
        }
    }
    if let Some(last) = sections.last_mut() {
        last.text = collapse(&body);
        last.code = collapse(&code);
    }
    if sections
        .first()
        .is_some_and(|s| s.text.is_empty() && s.code.is_empty())
    {
        sections.remove(0);
    }
    ParsedPage {
        title: front_title.or(first_h1),
        sections,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    #[test]
    fn anchors_are_the_headings_own_else_unique_slugs() {
        assert_eq!(
            explicit_anchor("## Order matters { #order-matters }"),
            Some("order-matters")
        );
        assert_eq!(explicit_anchor("## Title {#x .cls key=v} ##"), Some("x"));
        assert_eq!(
            explicit_anchor("## Adding state {/*adding-state*/}"),
            Some("adding-state")
        );
        assert_eq!(explicit_anchor("## Set {a, b}"), None);
        assert_eq!(explicit_anchor("## Plain"), None);
        assert_eq!(
            slug("Query parameters: `q` & more!"),
            "query-parameters-q--more"
        );
        assert_eq!(slug("Configuración Rápida"), "configuración-rápida");
        let page = parse_safely(
            "# A

## A

## A-1

## A

## B {#a}
",
        )
        .0;
        let anchors: Vec<&str> = page.sections.iter().map(|s| s.anchor.as_str()).collect();
        // Every anchor is unique in the page, whatever the headings write.
        assert_eq!(anchors, ["a", "a-1", "a-1-1", "a-2", "a-3"]);
        let starts: Vec<usize> = page.sections.iter().map(|s| s.start).collect();
        assert_eq!(starts, [0, 5, 11, 19, 25]);
    }

    fn parse(source: &str) -> ParsedPage {
        parse_safely(source).0
    }

    fn show(source: &str) -> String {
        let page = parse(source);
        let mut out = format!("title: {:?}\n", page.title);
        for s in page.sections {
            out.push_str(&format!("## {:?}\n{:?}\n", s.heading, s.text));
            if !s.parents.is_empty() {
                out.push_str(&format!("under: {:?}\n", s.parents));
            }
            if !s.code.is_empty() {
                out.push_str(&format!("code: {:?}\n", s.code));
            }
        }
        out
    }

    #[test]
    fn atx_setext_and_code_fences() {
        let source = "Intro *text* with [a link](https://x.invalid).\n\n\
            # Title\n\nBody `code` here.\n\n\
            Setext heading\n--------------\n\n\
            ```sh\n# not a heading\necho hi\n```\n\n    # indented code\n\n\
            ## Last {#custom-id}\n<div>html</div>\n\n![alt text](img.png)\n";
        expect![[r##"
            title: Some("Title")
            ## ""
            "Intro text with a link."
            ## "Title"
            "Body code here."
            ## "Setext heading"
            ""
            code: "# not a heading echo hi # indented code"
            ## "Last"
            "alt text"
        "##]]
        .assert_eq(&show(source));
    }

    #[test]
    fn paragraphs_that_include_a_code_file_are_code() {
        let source = "# Includes\n\nRun the app:\n\n\
            {* ../../docs_src/cors/tutorial001_py39.py hl[2,6:11] *}\n\n\
            <<< @/snippets/support.flow.json\n\n\
            {{#include ../examples/main.rs:serve}}\n\n\
            --8<-- \"docs_src/app.py\"\n\n\
            {!../../docs_src/app.py!}\n\n\
            Text that mentions {* in passing *} and <<< as prose stays text.\n";
        expect![[r#"
            title: Some("Includes")
            ## "Includes"
            "Run the app: Text that mentions {* in passing *} and <<< as prose stays text."
            code: "{* ../../docs_src/cors/tutorial001_py39.py hl[2,6:11] *} <<< @/snippets/support.flow.json {{#include ../examples/main.rs:serve}} --8<-- \"docs_src/app.py\" {!../../docs_src/app.py!}"
        "#]]
        .assert_eq(&show(source));
    }

    #[test]
    fn front_matter_is_not_body_and_gives_the_title() {
        let source = "---\ntitle: \"Configuración del servidor\"\nlayout: doc\n---\n\n# Otro título\n\nTexto.\n";
        expect![[r#"
            title: Some("Configuración del servidor")
            ## "Otro título"
            "Texto."
        "#]]
        .assert_eq(&show(source));
    }

    #[test]
    fn mkdocstrings_directives_are_code_and_pymdown_fences_markup() {
        // As FastAPI writes its reference pages: PyMdown blocks (`/// tip`,
        // `/// note | Title`: the kind is markup, the title text) and a
        // mkdocstrings directive with its options, after which a `::: tip`
        // line is parsed as a definition (`:` taken) yet is still markup.
        let source = "# WebSockets\n\nRead data from the client.\n\n/// tip\n\nUse it.\n\n///\n\n\
            /// note | Technical Details\n\nFrom Starlette.\n\n\
            //// tab | Python 3.10+\n\nNested.\n\n////\n\n///\n\n\
            ::: fastapi.WebSocket\n    options:\n        members:\n            - receive_json\n            - send_json\n\n\
            ::: tip\nA container.\n:::\n\n/// is a comment in Rust, ///not a fence.\n";
        expect![[r#"
            title: Some("WebSockets")
            ## "WebSockets"
            "Read data from the client. Use it. Technical Details From Starlette. Python 3.10+ Nested. A container. /// is a comment in Rust, ///not a fence."
            code: "fastapi.WebSocket options: members: - receive_json - send_json"
        "#]]
        .assert_eq(&show(source));
    }

    #[test]
    fn mkdocs_material_admonitions_and_tabs_are_prose() {
        // The content of `!!! note`, `??? tip` and `=== "Tab"` is indented by
        // four spaces: CommonMark makes it an indented code block, but it is
        // Markdown prose (with its own code blocks, and nested admonitions).
        let source = "# Page\n\nIntro.\n\n\
            !!! note \"Heads up\"\n\n    The **admonition** body is prose.\n\n    \
            ```python\n    print(\"code inside\")\n    ```\n\n\
            ??? tip\n\n    Collapsible body.\n\n\
            === \"Python\"\n\n    Tab body.\n\n    !!! warning\n\n        Nested warning.\n\n    \
            A paragraph, then code:\n\n        real indented code\n\n\
            !!! danger inline end \"Side\"\n    Lazy continuation.\n\n\
            > [!NOTE]\n> An alert.\n\n\
            Text.\n\n    plain indented code\n\n!!!not an admonition\n";
        expect![[r#"
            title: Some("Page")
            ## "Page"
            "Intro. Heads up The admonition body is prose. Collapsible body. Python Tab body. Nested warning. A paragraph, then code: Side Lazy continuation. An alert. Text. !!!not an admonition"
            code: "print(\"code inside\") real indented code plain indented code"
        "#]]
        .assert_eq(&show(source));
    }

    #[test]
    fn admonitions_nested_past_the_depth_limit_stay_code() {
        let mut source = String::from("# Deep\n\n");
        for level in 0..=MAX_ADMONITION_DEPTH {
            let indent = "    ".repeat(level);
            source.push_str(&format!("{indent}!!! note\n\n"));
        }
        source.push_str(&"    ".repeat(MAX_ADMONITION_DEPTH + 1));
        source.push_str("innermost\n");
        let page = parse(&source);
        assert_eq!(page.sections[0].code, "innermost", "{page:?}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 2048,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0xad40),
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// Documents made of the markers this parser treats specially, at
        /// any indentation and in any order: parsing never panics, and every
        /// word it keeps (heading, text, code, title) is a word of the source.
        #[test]
        fn markup_is_dropped_or_moved_never_invented(
            lines in proptest::collection::vec(
                (0usize..4, proptest::sample::select(vec![
                    "!!! note \"Heads up\"", "??? tip", "???+ warning inline", "=== \"Tab\"",
                    "!!!", "::: tip Title", ":::", "::: fastapi.WebSocket", "/// note | Title",
                    "///", "//// tab | Python 3.10+", "> [!NOTE]", "# Heading", "## Sub",
                    "```python", "```", "prose words here", "{* ../src/app.py *}", "", "",
                    "- item", ": definition", "Term", "    options:", "<<< @/snippets/x.json",
                    "1. first", "| a | b |", "|---|---|", "*emphasis* and `code`", "[link](x.md)",
                    "<div>html</div>", "---", "title: Front", "Setext", "===", "~~~", "[^1]: note",
                ])),
                0..40,
            ),
        ) {
            let source: String = lines
                .iter()
                .map(|(indent, line)| format!("{}{line}\n", "    ".repeat(*indent)))
                .collect();
            let page = parse(&source);
            let kept = page.sections.iter().flat_map(|s| {
                [s.heading.as_str(), s.text.as_str(), s.code.as_str(), s.parents.as_str()]
            });
            for word in kept.chain(page.title.as_deref()).flat_map(str::split_whitespace) {
                proptest::prop_assert!(source.contains(word), "{word:?} from {source:?}");
            }
            proptest::prop_assert_eq!(parse(&source), page);
        }
    }

    #[test]
    fn a_page_the_parser_fails_on_is_parsed_a_simpler_way() {
        // pulldown-cmark 0.13.6 panics on these (found by the proptest above).
        let source = "prose words here\n::: tip Title\n    {* ../src/app.py *}\n    ===\n";
        let (page, fallback) = parse_safely(source);
        assert_eq!(fallback, Some(Fallback::NoDefinitionLists));
        assert!(
            page.sections[0].text.contains("prose words here"),
            "{page:?}"
        );
        let (_, fallback) = parse_safely("a\n: b\n    {c}\n    ===\n");
        assert_eq!(fallback, Some(Fallback::NoDefinitionLists));
        assert_eq!(parse_safely("# Fine\n\nText.\n").1, None);
    }

    #[test]
    fn vitepress_containers_are_markup() {
        let source =
            "# Page\n\n::: tip Remember\nKeep it short.\n:::\n\n::: warning\nCareful.\n:::\n";
        expect![[r#"
            title: Some("Page")
            ## "Page"
            "Keep it short. Careful."
        "#]]
        .assert_eq(&show(source));
    }

    #[test]
    fn sections_know_the_headings_above_them() {
        let source = "# Page\n\n## Register\n\nintro\n\n### Cursor\n\na\n\n#### Windows\n\nb\n\n## Next\n\nc\n";
        expect![[r#"
            title: Some("Page")
            ## "Page"
            ""
            ## "Register"
            "intro"
            ## "Cursor"
            "a"
            under: "Register"
            ## "Windows"
            "b"
            under: "Register Cursor"
            ## "Next"
            "c"
        "#]]
        .assert_eq(&show(source));
    }

    /// A page saved with Windows line ends (CRLF) parses as with `\n`: same title, headings,
    /// text and code, and no stray `\r` anywhere.
    #[test]
    fn crlf_line_ends_parse_as_lf() {
        let source = "---\ntitle: 'Front title'\nlayout: doc\n---\n\n# Page\n\nIntro line\nwrapped.\n\n\
            Setext\n------\n\n```sh\n# not a heading\necho hi\n```\n\n## Last\n\n- item\n";
        let crlf = source.replace('\n', "\r\n");
        let shown = show(&crlf);
        assert_eq!(shown, show(source));
        assert!(!shown.contains("\\r"), "{shown}");
        expect![[r##"
            title: Some("Front title")
            ## "Page"
            "Intro line wrapped."
            ## "Setext"
            ""
            code: "# not a heading echo hi"
            ## "Last"
            "item"
        "##]]
        .assert_eq(&shown);
    }

    #[test]
    fn a_heading_repeated_under_each_entry_is_a_part_of_it() {
        let parts = |source: &str| -> Vec<(String, bool)> {
            parse(source)
                .sections
                .into_iter()
                .map(|s| (s.heading, s.part))
                .collect()
        };
        let shown = |source: &str| {
            parts(source)
                .iter()
                .map(|(h, part)| if *part { format!("+{h}") } else { h.clone() })
                .collect::<Vec<_>>()
                .join(" | ")
        };
        // A component list: each `Usage` (any case) belongs to the component above it.
        assert_eq!(
            shown(
                "# Components\n\n## `Arrow`\n\nDraws.\n\n### Usage\n\nx\n\n## `Link`\n\nLinks.\n\n### usage\n\ny\n"
            ),
            "Components | Arrow | +Usage | Link | +usage"
        );
        // Several repeated sub-headings in a row belong to the same entry; a
        // heading said once (`Example`) is an entry of its own, and so are
        // the sections under it.
        assert_eq!(
            shown(
                "## `f()`\n\n#### Parameters\n\n#### Returns\n\n## `g()`\n\n#### Parameters\n\n#### Returns\n\n### Example\n\n#### Parameters\n"
            ),
            "f() | +Parameters | +Returns | g() | +Parameters | +Returns | Example | +Parameters"
        );
        // Repeated siblings are no parts (nor is anything before the first heading).
        assert_eq!(
            shown("Intro.\n\n## Usage\n\n## Other\n\n## Usage\n"),
            " | Usage | Other | Usage"
        );
        // A heading said once is never a part.
        assert!(
            parts("# A\n\n## B\n\n### C\n")
                .iter()
                .all(|(_, part)| !part)
        );
    }

    #[test]
    fn a_page_without_headings_is_one_section() {
        expect![[r#"
            title: None
            ## ""
            "Just text."
        "#]]
        .assert_eq(&show("Just text.\n"));
    }
}
