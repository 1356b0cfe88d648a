//! A laid-out picture: every box, line and text in whole pixels, ready to be drawn.

use botmesh_flow_analyzer::EdgeKind;

/// The colours a picture is drawn with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Theme {
    /// Dark lines on white (the default).
    #[default]
    Light,
    /// Light lines on a dark background.
    Dark,
}

impl Theme {
    /// `light` or `dark`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Light => "light",
            Self::Dark => "dark",
        }
    }

    /// Parses `light` or `dark`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "light" => Some(Self::Light),
            "dark" => Some(Self::Dark),
            _ => None,
        }
    }
}

/// An axis-aligned rectangle in pixels (`x`, `y` its top-left corner).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rect {
    /// Left edge.
    pub x: i64,
    /// Top edge.
    pub y: i64,
    /// Width (never negative).
    pub width: i64,
    /// Height (never negative).
    pub height: i64,
}

impl Rect {
    /// The right edge.
    pub fn right(&self) -> i64 {
        self.x + self.width
    }

    /// The bottom edge.
    pub fn bottom(&self) -> i64 {
        self.y + self.height
    }

    /// True when the two rectangles share interior points (touching edges do not count).
    pub fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.right()
            && other.x < self.right()
            && self.y < other.bottom()
            && other.y < self.bottom()
    }
}

/// The outline of a node, by step kind (after Mermaid's shapes for the same kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Shape {
    /// A rectangle with slightly rounded corners: sending and other steps.
    Rect,
    /// A hexagon: `branch` (a decision).
    Hexagon,
    /// A stadium (round ends): `end` and the implicit `(end)`.
    Stadium,
    /// An octagon, like a stop sign, in the failure colour: `handoff` (the bot gives up and a
    /// person takes over).
    Octagon,
    /// A rectangle with a double line at each side: `subflow`.
    Subroutine,
    /// A parallelogram: `ask` (a question).
    Parallelogram,
    /// A rectangle with a thick top line: `buttons` and `list` (the user picks).
    Choice,
}

impl Shape {
    /// The shape of a step kind.
    pub fn of_kind(kind: &str) -> Self {
        match kind {
            "branch" => Self::Hexagon,
            "end" | botmesh_flow_analyzer::IMPLICIT_END => Self::Stadium,
            "handoff" => Self::Octagon,
            "subflow" => Self::Subroutine,
            "ask" => Self::Parallelogram,
            "buttons" | "list" => Self::Choice,
            _ => Self::Rect,
        }
    }

    /// Extra width the outline needs beside the text box, for a box `height` high.
    pub(crate) fn extra_width(self, height: i64) -> i64 {
        match self {
            Self::Hexagon | Self::Parallelogram | Self::Octagon => height / 2,
            Self::Stadium => height / 2,
            Self::Subroutine => 16,
            Self::Rect | Self::Choice => 0,
        }
    }
}

/// One drawn node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrawnNode {
    /// The flow (index in the set) the node belongs to.
    pub flow: usize,
    /// The step id (or `(end)`).
    pub id: String,
    /// The step kind (or `(end)`).
    pub kind: &'static str,
    /// The node's box; the outline is inscribed in it.
    pub rect: Rect,
    /// The outline.
    pub shape: Shape,
    /// The text lines, centred: the id, then `kind: text` wrapped.
    pub lines: Vec<String>,
}

/// One drawn edge: a polyline from its source's outline to its target's, arrow at the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrawnEdge {
    /// The edge kind (`call` and `return` edges are dashed, `retry-exhausted` edges drawn in
    /// the failure colour).
    pub kind: EdgeKind,
    /// The source node (index in [`Picture::nodes`]).
    pub from: usize,
    /// The target node (index in [`Picture::nodes`]).
    pub to: usize,
    /// The points, source end first; the last point is the arrow's tip.
    pub points: Vec<(i64, i64)>,
    /// The index of its label in [`Picture::labels`], if it has one.
    pub label: Option<usize>,
    /// True when the edge goes against the layout direction (a loop drawn back).
    pub back: bool,
}

/// One edge label: a box beside its edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrawnLabel {
    /// The label's box (text plus padding).
    pub rect: Rect,
    /// The text lines, centred.
    pub lines: Vec<String>,
}

/// One flow of a set, drawn as a labelled cluster around its nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrawnCluster {
    /// The flow id, as drawn (shortened with `…` when long).
    pub title: String,
    /// The cluster's box; the title sits at its top-left.
    pub rect: Rect,
}

/// A laid-out flow picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    /// Width in pixels.
    pub width: i64,
    /// Height in pixels.
    pub height: i64,
    /// Colours.
    pub theme: Theme,
    /// Clusters (only when the set has several flows), drawn first.
    pub clusters: Vec<DrawnCluster>,
    /// Nodes.
    pub nodes: Vec<DrawnNode>,
    /// Edges: those between two nodes in document order (by source step, then button, row
    /// or case order), then the self-loops.
    pub edges: Vec<DrawnEdge>,
    /// Edge labels.
    pub labels: Vec<DrawnLabel>,
    /// Edge crossings between adjacent layers of the layout (dummy nodes included).
    pub crossings: usize,
    /// The characters of the picture's text that neither embedded font draws (FlowSans for
    /// text, FlowEmoji for the common emoji), in code point order: each is written as its code
    /// point, `‹U+4F60›`, in the PNG and the SVG alike.
    pub missing_glyphs: Vec<char>,
}
