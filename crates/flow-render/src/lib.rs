//! Pictures of botmesh flows, drawn in-process: a layered layout of the graph that
//! `botmesh-flow-analyzer` describes, written as SVG or PNG with an embedded font. No browser,
//! no network, no external program. It is the engine of the `flow_render` tool and of
//! `botmesh-mcp render`.
//!
//! ```
//! use botmesh_flow_render::{Options, Theme, render_set};
//! use botmesh_flow_analyzer::{Direction, Value};
//!
//! let document: Value = serde_json::from_str(r#"{
//!     "version": 2, "id": "hello",
//!     "steps": [
//!         { "id": "ask_name", "kind": "ask", "text": "Your name?", "save": "name" },
//!         { "id": "greet", "kind": "message", "text": "Hi {{name}}!" },
//!         { "id": "bye", "kind": "end" }
//!     ]
//! }"#)?;
//! let options = Options { direction: Direction::LR, theme: Theme::Dark };
//! let rendering = render_set(&document, &[], &options)?;
//! assert!(rendering.valid);
//! let picture = rendering.picture.ok_or("no picture")?;
//! assert_eq!(picture.nodes.len(), 3);
//! assert!(picture.to_svg()?.starts_with("<svg "));
//! assert!(picture.to_png(1.0)?.starts_with(b"\x89PNG"));
//! Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The layout
//!
//! A layered (Sugiyama) layout, computed top to bottom and turned for `LR`, `BT` and `RL`:
//!
//! 1. **Cycles.** A depth-first search from the nodes in document order (the entry first)
//!    reverses each edge that goes back to a node on its stack; such an edge (a retry, a `goto`
//!    back) is drawn back, its arrow pointing against the direction.
//! 2. **Layers.** Network simplex (the least total edge length), every edge two layers
//!    long. Nodes sit on even layers; odd layers hold only the points an edge
//!    passes through and the edge labels, so a label is laid out like a box of its own.
//!    The items this makes (a box per node, a point for each layer an edge crosses) are
//!    counted first: a set that needs more than [`MAX_LAYOUT_ITEMS`] is refused with
//!    [`Error::TooManyItems`], so one picture stays within about 100 MB.
//! 3. **Order.** A rule first: the points of a step's out-edges (buttons, rows, cases with
//!    `default` last, in document order) keep that order in every layer they cross, in every
//!    order tried (after each barycenter sort they are put back in order among the places
//!    they hold; transposition never swaps two of them, sifting never moves one past
//!    another). So out-edges leave their step left to right (top to bottom for `LR` and `RL`)
//!    in the order the customer sees them, never cross each other, and labels side by side
//!    read in that order; crossings are reduced under the rule (Graphviz's `ordering=out`).
//!    Several starts: document order and the orders in which depth-first searches reach the
//!    items (from the top and from the bottom, in document order or in reverse, mirrored or
//!    not): ten for a graph of up to 1000 items (nodes, edge points, labels), five above.
//!    From each, barycenter sweeps down and up (ties broken one way, then the other), each
//!    followed by adjacent transpositions and sifting, until four rounds bring no
//!    improvement. The order with the fewest crossings, counted exactly, wins; among those,
//!    the one whose edges run least sideways (the sum of the differences of their ends'
//!    places); on a tie, the first found.
//! 4. **Coordinates.** Brandes and Köpf: four alignments (each item lined up with the median
//!    of its neighbours above or below, from the left or from the right, long edges first),
//!    each packed as tight as it allows; each item at the mean of its places in the narrowest
//!    and in the narrowest of the other side (when at most 10 % wider), so long edges run
//!    straight and a long flow does not drift sideways. Everything is whole pixels (`i64`): no float is ever formatted.
//! 5. **Edges.** An edge runs vertically through each layer's band at its own point (no other
//!    box shares that `x`) and slants only in the empty gaps between bands, so it never passes
//!    through a node; the ends of edges on one side of a node are spread along it, and a
//!    step's out-edges that leave by both sides (a button looping back beside one going on)
//!    leave in document order across the two.
//!    Self-loops are drawn beside their node, in room reserved for them.
//! 6. **Clusters.** With several flows, each flow is a cluster: its items stay together in
//!    every layer, in one left-to-right order of the clusters (with three or four clusters,
//!    every order up to mirroring is tried from the first start, and the other starts run in
//!    the best one), and whole clusters are moved apart so their boxes (titles included) never
//!    overlap. `call` edges are dashed.
//!
//! Node shapes follow the Mermaid renderer of `botmesh-flow-analyzer`: a hexagon for
//! `branch`, a stadium for `end` and `(end)`, a parallelogram for `ask`, a rectangle with
//! double sides for `subflow`, a round-cornered box for `buttons` and `list`, a rectangle
//! otherwise; `handoff` (the bot gives up) is a red octagon, and `retry-exhausted` edges are
//! drawn in the same red, so failure paths stand out. `call` and `return` edges are dashed.
//!
//! # Readable at any size
//!
//! A PNG's smallest text is never below [`TEXT_FLOOR`] (10) pixels at the size it is drawn:
//! [`Picture::to_png`] shrinks a large picture to fit [`MAX_PIXELS`] and [`MAX_SIDE`] only
//! down to that floor. For a client that shows images at a bounded size
//! ([`DEFAULT_MAX_SIZE`], 1568 pixels on the long side), [`Picture::fit_within`] says whether
//! the whole picture fits readable; if not, [`Picture::paging`] cuts it into pages (bands
//! across its long side following the steps in them) drawn by [`Picture::framed_png`],
//! [`Picture::overview_png`] shows where they lie, and [`Picture::focus`] frames the steps
//! around one step. A node shows the step id, then `kind: text` wrapped to 220 pixels
//! and at most 3 lines (the last one ends with `…` when text is left); an edge label wraps to
//! 150 pixels and 2 lines; a cluster title is one line of at most 300 pixels.
//!
//! # Text
//!
//! Text is measured and drawn with two embedded fonts. `fonts/FlowSans-Regular.ttf`: a 38 KB
//! subset of Liberation Sans 2.1.5 (SIL Open Font License 1.1, `fonts/OFL.txt`; renamed, as
//! the licence asks of a modified font with reserved names) made by `fonts/make-subset.sh`,
//! covering Latin (with Latin-1 and Extended-A), Greek, basic Cyrillic and common
//! punctuation. For a character it lacks, `fonts/FlowEmoji-Regular.ttf`: a 294 KB subset of
//! the monochrome Noto Emoji 3.006 (SIL Open Font License 1.1, `fonts/OFL-FlowEmoji.txt`;
//! renamed, "Noto" being a trademark) made by `fonts/make-emoji-subset.sh`, with the 603 emoji
//! of `fonts/emoji-set.txt` (faces, hands, hearts and the symbols business flows use), drawn
//! in the text colour. A character neither has (CJK, Arabic, a rare emoji…) is written as its
//! code point, `‹U+4F60›`, and listed in [`Picture::missing_glyphs`]; joiners, variation
//! selectors, skin-tone modifiers, keycaps and tags are dropped (so 👍🏽 is 👍), control
//! characters are dropped and white space collapses to one space. The SVG carries the same
//! text, so both formats show the same thing.
//!
//! The SVG embeds its fonts: one `@font-face` per font its text uses, cut down to the
//! characters drawn (`subset.rs`: glyphs renumbered, `glyf`, `loca`, `hmtx` and `cmap`
//! written anew) as a base64 `data:` URL, so a browser draws the PNG's glyphs whatever fonts
//! it has and the SVG refers to nothing outside itself; its font stack then names `Liberation
//! Sans`, `Arimo` and `Arial` (Arial's advance widths) for a viewer that blocks `data:` fonts.
//! Text is placed by advance widths alone, so the SVG turns kerning off (`font-kerning:
//! none`) and the PNG centres each line on its exact advance, as `text-anchor="middle"` does
//! (CI compares the SVG in headless Chromium with the PNG, and checks every text inside its
//! box in a Chromium with DejaVu fonts only, `.ci/parts/render-browser.sh`).
//!
//! # Determinism
//!
//! The layout uses integers only, visits nodes and edges in document order and keeps no
//! hash map; the SVG writes integer coordinates in a fixed attribute order. The same graph
//! gives the same SVG bytes on every platform. The PNG is drawn with floats (tiny-skia) and
//! may differ in antialiasing by a few levels between processors.
//!
//! # Dependencies
//!
//! - `ttf-parser` (no default features: no layout tables, no variable fonts): reads the
//!   font's metrics and glyph outlines with no allocation and no `unsafe` in its parser; the
//!   smallest maintained font reader (the `fontdue`/`ab_glyph` rasterizers bring their own,
//!   and we already rasterize paths). Cutting the fonts down for the SVG is ours
//!   (`subset.rs`, under 300 lines): the subsetting crates bring shaping tables we drop.
//! - `tiny-skia` (feature `std` only): antialiased path filling and stroking, the core of
//!   `resvg`. `resvg` itself would parse the SVG we just wrote and bring a font database;
//!   drawing the same shapes directly is smaller and faster.
//! - `fdeflate`: the zero-run deflate compressor the `png` crate uses for its fastest level,
//!   and `crc32fast` for the chunk checksums; the few lines of PNG container are ours
//!   (`png.rs`), so the `png` crate is only a test dependency (it decodes our PNGs in tests).

mod error;
mod font;
mod layout;
mod pages;
mod picture;
mod png;
mod style;
mod subset;
mod svg;
mod text;

#[cfg(test)]
mod bench_flow;
#[cfg(test)]
mod harness_flows;
#[cfg(test)]
mod hostile_flow;
#[cfg(test)]
mod tests;

use botmesh_flow_analyzer::{Diagnostic, Graph, SourcedIssue, Value, analyze_set};

pub use botmesh_flow_analyzer::Direction;
pub use error::Error;
pub use layout::{MAX_LAYOUT_ITEMS, Options};
pub use pages::{DEFAULT_MAX_SIZE, Framed, MAX_MAX_SIZE, MIN_MAX_SIZE, Page, Paging};
pub use picture::{DrawnCluster, DrawnEdge, DrawnLabel, DrawnNode, Picture, Rect, Shape, Theme};
pub use png::{MAX_FLOOR_PIXELS, MAX_PIXELS, MAX_SIDE, TEXT_FLOOR};
pub use subset::base64;
pub use svg::FONT_FAMILY;

/// Lays out a graph (from [`botmesh_flow_analyzer::describe`]).
///
/// Fails with [`Error::TooManyItems`] when the graph needs more than [`MAX_LAYOUT_ITEMS`]
/// layout items (long edges across many layers in a large set), before the costly part.
pub fn layout(graph: &Graph<'_>, options: &Options) -> Result<Picture, Error> {
    layout::layout(font::font()?, graph, options)
}

impl Picture {
    /// The picture as a standalone SVG document.
    pub fn to_svg(&self) -> Result<String, Error> {
        Ok(svg::write_svg(font::font()?, self, None))
    }

    /// The picture as a PNG, `scale` pixels per unit (drawn smaller when it would have more
    /// than [`MAX_PIXELS`] pixels or a side longer than [`MAX_SIDE`]).
    pub fn to_png(&self, scale: f32) -> Result<Vec<u8>, Error> {
        png::write_png(font::font()?, self, scale)
    }

    /// The scale the tool and the CLI draw PNGs at: 2 pixels per unit (sharp on high-density
    /// screens), reduced by [`Picture::to_png`] to fit [`MAX_PIXELS`] and [`MAX_SIDE`].
    pub fn default_png_scale(&self) -> f32 {
        2.0
    }

    /// The characters of [`Picture::missing_glyphs`], each as its code point and itself
    /// (`U+4F60 你`).
    pub fn missing_glyph_names(&self) -> Vec<String> {
        self.missing_glyphs
            .iter()
            .map(|&c| format!("U+{:04X} {c}", c as u32))
            .collect()
    }

    /// One sentence naming the characters of [`Picture::missing_glyphs`] (none: `None`), for
    /// the warnings of the tool and the CLI: `2 characters no embedded font draws are written
    /// as code points: U+4F60 你, U+1F9A9 🦩.`
    pub fn missing_glyphs_note(&self) -> Option<String> {
        let list = self.missing_glyph_names();
        match list.len() {
            0 => None,
            1 => Some(format!(
                "1 character no embedded font draws is written as its code point: {}.",
                list[0]
            )),
            n => Some(format!(
                "{n} characters no embedded font draws are written as code points: {}.",
                list.join(", ")
            )),
        }
    }

    /// The size in pixels of [`Picture::to_png`] at `scale`.
    pub fn png_size(&self, scale: f32) -> (u32, u32) {
        let scale = png::fit_scale(self, scale);
        (
            (self.width as f32 * scale).floor().max(1.0) as u32,
            (self.height as f32 * scale).floor().max(1.0) as u32,
        )
    }
}

/// A set validated and, when valid, laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendering {
    /// True when every document of the set is valid (as `flow_analyze` says).
    pub valid: bool,
    /// Validation issues, the document's first, then each subflow's.
    pub issues: Vec<SourcedIssue>,
    /// Lint diagnostics of the set (as `flow_analyze` reports them; empty when not valid):
    /// the validation already ran the lint, so a caller that shows both pays for it once.
    pub diagnostics: Vec<Diagnostic>,
    /// The picture, only when valid.
    pub picture: Option<Picture>,
}

/// Validates a document and its subflows and, when all are valid, lays the set out.
///
/// An invalid set is data (`valid: false`, no picture). `Err` is a valid set that cannot be
/// drawn: [`Error::TooManyItems`] when it needs more than [`MAX_LAYOUT_ITEMS`] layout items
/// (the message says what to do), or [`Error::Font`] (impossible in practice: the embedded
/// font is tested).
pub fn render_set(
    document: &Value,
    subflows: &[Value],
    options: &Options,
) -> Result<Rendering, Error> {
    let analysis = analyze_set(document, subflows);
    let picture = match (&analysis.graph, analysis.valid) {
        (Some(graph), true) => Some(layout(graph, options)?),
        _ => None,
    };
    Ok(Rendering {
        valid: analysis.valid,
        issues: analysis.issues,
        diagnostics: analysis.diagnostics,
        picture,
    })
}
