//! Mermaid `flowchart` rendering of a [`Graph`].
//!
//! Follows what Mermaid's own parser accepts (12.x and 11.x): generated node ids (`n0`, `n1`,
//! …), quoted labels only, entity codes for the characters a quoted label cannot hold, no empty
//! labels, spaces around every arrow.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::str::FromStr;

use crate::error::Error;
use crate::graph::{EdgeKind, Graph, IMPLICIT_END};
use crate::text::shorten;

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
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '#' => out.push_str("#35;"),
            '"' => out.push_str("#quot;"),
            '&' => out.push_str("#amp;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '`' => out.push_str("#96;"),
            // `%%{…}%%` is a directive anywhere in the text, even inside quotes.
            '%' => out.push_str("#37;"),
            '\n' => out.push_str("<br>"),
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push_str("<br>");
                }
            }
            '\u{2028}' | '\u{2029}' => out.push(' '),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Renders a graph as Mermaid `flowchart` text (one `subgraph` per flow when there are
/// several), ending with a newline.
pub fn render_mermaid(graph: &Graph, direction: Direction) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "flowchart {}", direction.as_str());
    let several = graph.flows.len() > 1;
    let mut first_flow_with_id: HashMap<&str, usize> = HashMap::new();
    for (index, flow) in graph.flows.iter().enumerate() {
        first_flow_with_id.entry(flow.id.as_str()).or_insert(index);
    }
    // Generated ids: one counter over every node of every flow.
    let mut ids: Vec<HashMap<&str, String>> = Vec::with_capacity(graph.flows.len());
    let mut counter = 0usize;
    for flow in &graph.flows {
        let mut map = HashMap::with_capacity(flow.nodes.len());
        for node in &flow.nodes {
            map.entry(node.id.as_str()).or_insert_with(|| {
                let id = format!("n{counter}");
                counter += 1;
                id
            });
        }
        ids.push(map);
    }
    let mut calls = Vec::new();
    for (index, flow) in graph.flows.iter().enumerate() {
        let indent = if several { "    " } else { "  " };
        if several {
            let _ = writeln!(out, "  subgraph s{index}[\"{}\"]", escape_label(&flow.id));
        }
        for node in &flow.nodes {
            let Some(id) = ids[index].get(node.id.as_str()) else {
                continue;
            };
            let _ = writeln!(
                out,
                "{indent}{id}{}",
                node_shape(&node.kind, &node_text(node))
            );
        }
        for edge in &flow.edges {
            let Some(from) = ids[index].get(edge.from.as_str()) else {
                continue;
            };
            if edge.kind == EdgeKind::Call {
                let target = edge
                    .to_flow
                    .as_deref()
                    .and_then(|f| first_flow_with_id.get(f))
                    .and_then(|&f| ids[f].get(edge.to.as_str()));
                if let Some(to) = target {
                    calls.push(format!("  {from} -.-> {to}"));
                }
                continue;
            }
            let Some(to) = ids[index].get(edge.to.as_str()) else {
                continue;
            };
            let label = edge
                .label
                .as_deref()
                .map(|l| escape_label(&shorten(l.trim(), MAX_EDGE_LABEL_CHARS)))
                .filter(|l| !l.is_empty());
            match label {
                Some(label) => {
                    let _ = writeln!(out, "{indent}{from} -->|\"{label}\"| {to}");
                }
                None => {
                    let _ = writeln!(out, "{indent}{from} --> {to}");
                }
            }
        }
        if several {
            let _ = writeln!(out, "  end");
        }
    }
    for call in calls {
        out.push_str(&call);
        out.push('\n');
    }
    out
}

fn node_text(node: &crate::graph::Node) -> String {
    if node.id == IMPLICIT_END {
        return escape_label(IMPLICIT_END);
    }
    let id = escape_label(&shorten(&node.id, MAX_ID_CHARS));
    let text = node.label.trim();
    if text.is_empty() {
        format!("{id}<br>{}", node.kind)
    } else {
        let text = escape_label(&shorten(text, MAX_TEXT_CHARS));
        format!("{id}<br>{}: {text}", node.kind)
    }
}

fn node_shape(kind: &str, text: &str) -> String {
    match kind {
        "branch" => format!("{{\"{text}\"}}"),
        "end" | "handoff" | IMPLICIT_END => format!("([\"{text}\"])"),
        "subflow" => format!("[[\"{text}\"]]"),
        "ask" => format!("[/\"{text}\"/]"),
        _ => format!("[\"{text}\"]"),
    }
}
