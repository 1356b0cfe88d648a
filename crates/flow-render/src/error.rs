//! The errors of this crate: a set too large to lay out, or a PNG that cannot be drawn.

use crate::layout::MAX_LAYOUT_ITEMS;

/// Why a picture could not be produced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The embedded font could not be read (a build problem, tested).
    #[error("the embedded font could not be read")]
    Font,
    /// The set needs more layout items (a box per node, a point per layer each edge crosses)
    /// than [`MAX_LAYOUT_ITEMS`]: checked before the costly part of the layout, it keeps one
    /// picture within about 100 MB.
    #[error(
        "the picture of {flows} {noun} is too large to draw: it needs {items} layout items (a box per step and a point for each layer an edge crosses), more than the limit of {limit}; render fewer flows at once, or split a long flow into subflows drawn one at a time",
        noun = flows_noun(*.flows),
        limit = MAX_LAYOUT_ITEMS
    )]
    TooManyItems {
        /// Layout items the set needs.
        items: usize,
        /// Flows in the set (the document and its subflows).
        flows: usize,
    },
    /// The picture is larger than a PNG this crate will allocate.
    #[error(
        "the picture is too large for a PNG with readable text ({width}x{height} pixels): draw it as SVG, or as pages with flow_render"
    )]
    TooLarge {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
    },
    /// The PNG encoder failed.
    #[error("the PNG could not be encoded: {0}")]
    Png(String),
}

/// `flow` or `flows`.
fn flows_noun(flows: usize) -> &'static str {
    if flows == 1 { "flow" } else { "flows" }
}
