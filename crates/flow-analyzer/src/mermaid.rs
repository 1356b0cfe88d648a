//! Mermaid `flowchart` rendering of a [`Graph`].
//!
//! Follows what Mermaid's own parser accepts (12.x and 11.x): generated node ids (`n0`, `n1`,
//! …), quoted labels only, entity codes for the characters a quoted label cannot hold, no empty
//! labels, spaces around every arrow.

use std::collections::hash_map::Entry;
use std::str::FromStr;

use rustc_hash::FxHashMap;

use crate::error::Error;
use crate::graph::{EdgeKind, Graph, IMPLICIT_END, Node};

/// The longest step id shown in a node, in chars (longer ones end with `…`).
pub const MAX_ID_CHARS: usize = 40;
/// The longest step text shown in a node, in chars (longer ones end with `…`).
pub const MAX_TEXT_CHARS: usize = 60;
/// The longest edge label, in chars (longer ones end with `…`).
pub const MAX_EDGE_LABEL_CHARS: usize = 40;

/// The direction of a Mermaid flowchart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    /// Top to bottom (the default).
    #[default]
    TD,
    /// Left to right.
    LR,
    /// Bottom to top.
    BT,
    /// Right to left.
    RL,
}

impl Direction {
    /// Every direction, in the order of the tool's enum.
    pub const ALL: [Self; 4] = [Self::TD, Self::LR, Self::BT, Self::RL];

    /// The spelling Mermaid and the tool arguments use.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::TD => "TD",
            Self::LR => "LR",
            Self::BT => "BT",
            Self::RL => "RL",
        }
    }
}

impl FromStr for Direction {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|d| d.as_str() == text)
            .ok_or_else(|| Error::UnknownDirection(text.to_owned()))
    }
}

/// Escapes `text` for use between the double quotes of a Mermaid label.
///
/// `#` becomes `#35;` first, then `"` → `#quot;`, `&` → `#amp;`, `<` → `#lt;`, `>` → `#gt;`,
/// a backtick → `#96;`, `%` → `#37;` (Mermaid strips `%%{…}%%` directives before parsing, even
/// inside quotes and across lines), a line break → `<br>`; other control characters and the
/// Unicode line and paragraph separators become a space. Everything else (brackets, pipes, `;`,
/// emoji…) parses as is inside quotes.
pub fn escape_label(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    push_label(&mut out, text, usize::MAX);
    out
}

/// Appends `text`, shortened to `max` chars (ending with `…` when cut), escaped as
/// [`escape_label`] does.
pub(crate) fn push_label(out: &mut String, text: &str, max: usize) {
    // A text of at most `max` bytes has at most `max` chars: no need to count them.
    let cut = if max == usize::MAX || text.len() <= max {
        None
    } else {
        // The byte offset of the char that would be the `max`-th: keep `max - 1` chars then `…`.
        let mut indices = text.char_indices().map(|(i, _)| i);
        match indices.nth(max) {
            None => None,
            Some(_) => text
                .char_indices()
                .nth(max.saturating_sub(1))
                .map(|(i, _)| i),
        }
    };
    let kept = cut.map_or(text, |end| &text[..end]);
    // Copy runs of ordinary text in one go; only the characters below need a replacement.
    let mut run_start = 0;
    let mut chars = kept.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let replacement = match c {
            '#' => "#35;",
            '"' => "#quot;",
            '&' => "#amp;",
            '<' => "#lt;",
            '>' => "#gt;",
            '`' => "#96;",
            // `%%{…}%%` is a directive anywhere in the text, even inside quotes.
            '%' => "#37;",
            '\n' => "<br>",
            '\r' if chars.peek().is_some_and(|&(_, next)| next == '\n') => "",
            '\r' => "<br>",
            '\u{2028}' | '\u{2029}' => " ",
            c if c.is_control() => " ",
            _ => continue,
        };
        out.push_str(&kept[run_start..at]);
        out.push_str(replacement);
        run_start = at + c.len_utf8();
    }
    out.push_str(&kept[run_start..]);
    if cut.is_some() {
        out.push('…');
    }
}

/// Renders a graph as Mermaid `flowchart` text (one `subgraph` per flow when there are
/// several), ending with a newline.
pub fn render_mermaid(graph: &Graph<'_>, direction: Direction) -> String {
    let mut out = String::with_capacity(
        64 * graph
            .flows
            .iter()
            .map(|f| f.nodes.len() + f.edges.len())
            .sum::<usize>()
            + 32,
    );
    out.push_str("flowchart ");
    out.push_str(direction.as_str());
    out.push('\n');
    let several = graph.flows.len() > 1;
    let mut first_flow_with_id: FxHashMap<&str, usize> = FxHashMap::default();
    for (index, flow) in graph.flows.iter().enumerate() {
        first_flow_with_id.entry(flow.id).or_insert(index);
    }
    // Generated ids are numbered flow by flow, each flow's just before it is drawn (while its
    // ids are in cache); `call` edges, drawn last, look up the called flow's ids.
    let mut all_ids: Vec<NodeIds<'_>> = Vec::with_capacity(graph.flows.len());
    let mut counter = 0usize;
    let mut calls = Vec::new();
    // What failure paths are drawn in (a class on handoff nodes, a style on retry-exhausted
    // links): node numbers, and link indices in the order Mermaid numbers links (as written).
    let mut handoffs: Vec<usize> = Vec::new();
    let mut failure_links: Vec<usize> = Vec::new();
    let mut links = 0usize;
    for (index, flow) in graph.flows.iter().enumerate() {
        let indent = if several { "    " } else { "  " };
        all_ids.push(NodeIds::new(&flow.nodes, &mut counter));
        let ids = &all_ids[index];
        if several {
            out.push_str("  subgraph s");
            push_number(&mut out, index);
            out.push_str("[\"");
            push_label(&mut out, flow.id, usize::MAX);
            out.push_str("\"]\n");
        }
        for (position, node) in flow.nodes.iter().enumerate() {
            let (open, close) = match node.kind {
                "branch" => ("{\"", "\"}"),
                "end" | "handoff" | IMPLICIT_END => ("([\"", "\"])"),
                "subflow" => ("[[\"", "\"]]"),
                "ask" => ("[/\"", "\"/]"),
                _ => ("[\"", "\"]"),
            };
            if node.kind == "handoff" && !handoffs.contains(&ids.numbers[position]) {
                handoffs.push(ids.numbers[position]);
            }
            push_node_id(&mut out, indent, ids.numbers[position]);
            out.push_str(open);
            push_node_text(&mut out, node);
            out.push_str(close);
            out.push('\n');
        }
        // Edges are ordered by their source: the previous edge's source is the best guess.
        let mut source = 0;
        for edge in &flow.edges {
            let Some(from) = ids.find(edge.from, source) else {
                continue;
            };
            source = from;
            if edge.kind == EdgeKind::Call {
                if let Some(&callee) = edge.to_flow.and_then(|f| first_flow_with_id.get(f)) {
                    calls.push((ids.numbers[from], callee, edge.to));
                }
                continue;
            }
            // Most edges lead to the following node.
            let Some(to) = ids.find(edge.to, from + 1) else {
                continue;
            };
            let (from, to) = (ids.numbers[from], ids.numbers[to]);
            if edge.kind == EdgeKind::RetryExhausted {
                failure_links.push(links);
            }
            links += 1;
            match edge.label.as_deref().map(trim).filter(|l| !l.is_empty()) {
                Some(label) => {
                    push_node_id(&mut out, indent, from);
                    out.push_str(" -->|\"");
                    push_label(&mut out, label, MAX_EDGE_LABEL_CHARS);
                    out.push_str("\"| n");
                    push_number(&mut out, to);
                    out.push('\n');
                }
                None => {
                    push_node_id(&mut out, indent, from);
                    out.push_str(" --> n");
                    push_number(&mut out, to);
                    out.push('\n');
                }
            }
        }
        if several {
            out.push_str("  end\n");
        }
    }
    for (from, callee, entry) in calls {
        // A call leads to the called flow's entry, its first node.
        let Some(to) = all_ids
            .get(callee)
            .and_then(|ids| ids.find(entry, 0).map(|to| ids.numbers[to]))
        else {
            continue;
        };
        push_node_id(&mut out, "  ", from);
        out.push_str(" -.-> n");
        push_number(&mut out, to);
        out.push('\n');
    }
    push_failure_styles(&mut out, &handoffs, &failure_links);
    out
}

/// The colours of failure paths, as the pictures draw them: handoff nodes (the bot gives up)
/// filled red, `retry-exhausted` links red. Nothing is written when a diagram has neither.
fn push_failure_styles(out: &mut String, handoffs: &[usize], failure_links: &[usize]) {
    if !handoffs.is_empty() {
        out.push_str("  classDef handoff fill:#fdecea,stroke:#c62828,color:#7f1d1d\n  class ");
        for (i, &number) in handoffs.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push('n');
            push_number(out, number);
        }
        out.push_str(" handoff\n");
    }
    if !failure_links.is_empty() {
        out.push_str("  linkStyle ");
        for (i, &link) in failure_links.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_number(out, link);
        }
        out.push_str(" stroke:#c62828,color:#c62828\n");
    }
}

/// The generated ids of one flow's nodes: `n` and one counter over every node of every flow;
/// a node whose id repeats an earlier node's of the same flow shares its number.
struct NodeIds<'g> {
    nodes: &'g [Node<'g>],
    /// The position of the first node with each id.
    first: FxHashMap<&'g str, usize>,
    /// The number of each node, by position.
    numbers: Vec<usize>,
}

impl<'g> NodeIds<'g> {
    fn new(nodes: &'g [Node<'g>], counter: &mut usize) -> Self {
        let mut first = FxHashMap::with_capacity_and_hasher(nodes.len(), Default::default());
        let mut numbers = Vec::with_capacity(nodes.len());
        for (position, node) in nodes.iter().enumerate() {
            let number = match first.entry(node.id) {
                Entry::Occupied(entry) => numbers[*entry.get()],
                Entry::Vacant(entry) => {
                    entry.insert(position);
                    *counter += 1;
                    *counter - 1
                }
            };
            numbers.push(number);
        }
        Self {
            nodes,
            first,
            numbers,
        }
    }

    /// The position of a node named `id`, trying `hint` first: one string comparison instead
    /// of a hash lookup for most edges. Any node with the id has the right number.
    fn find(&self, id: &str, hint: usize) -> Option<usize> {
        match self.nodes.get(hint) {
            // A graph from `describe` borrows both from the document: the same slice.
            Some(node) if std::ptr::eq(node.id, id) || node.id == id => Some(hint),
            _ => self.first.get(id).copied(),
        }
    }
}

/// Appends `indent`, `n` and the number: a generated node id.
fn push_node_id(out: &mut String, indent: &str, id: usize) {
    out.push_str(indent);
    out.push('n');
    push_number(out, id);
}

/// Appends a number in decimal without going through `fmt` (the renderer's hot path).
fn push_number(out: &mut String, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // One byte per digit: pushing chars avoids a `memcpy` call for a few bytes.
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

/// `str::trim`, with a shortcut for the usual text that starts and ends with a visible ASCII
/// character (Unicode white space at either end is not ASCII, or is ASCII white space).
fn trim(text: &str) -> &str {
    match (text.as_bytes().first(), text.as_bytes().last()) {
        (Some(first), Some(last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => text,
        _ => text.trim(),
    }
}

fn push_node_text(out: &mut String, node: &Node<'_>) {
    if node.id == IMPLICIT_END {
        push_label(out, IMPLICIT_END, usize::MAX);
        return;
    }
    push_label(out, node.id, MAX_ID_CHARS);
    out.push_str("<br>");
    out.push_str(node.kind);
    let text = trim(&node.label);
    if !text.is_empty() {
        out.push_str(": ");
        push_label(out, text, MAX_TEXT_CHARS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_and_shortening_agree_with_the_plain_versions() {
        for text in [
            "a",
            " a ",
            "\u{3000}ab\u{2028}",
            "\ta",
            "a\n",
            "",
            " ",
            "é",
            "x…y",
        ] {
            assert_eq!(trim(text), text.trim(), "{text:?}");
        }
        let mut out = String::new();
        push_label(&mut out, "abcdé", 5);
        assert_eq!(out, "abcdé");
        out.clear();
        push_label(&mut out, "abcdéf", 5);
        assert_eq!(out, "abcd…");
        out.clear();
        push_number(&mut out, 0);
        push_number(&mut out, 1_234_567);
        assert_eq!(out, "01234567");
    }
}
