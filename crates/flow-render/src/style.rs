//! Colours and text placement shared by the SVG and PNG writers.

use botmesh_flow_analyzer::EdgeKind;

use crate::font::Font;
use crate::picture::{Shape, Theme};

/// An sRGB colour.
pub(crate) type Rgb = [u8; 3];

/// The colours of a theme.
pub(crate) struct Palette {
    pub(crate) background: Rgb,
    pub(crate) text: Rgb,
    pub(crate) edge: Rgb,
    pub(crate) label_fill: Rgb,
    pub(crate) cluster_fill: Rgb,
    pub(crate) cluster_stroke: Rgb,
    /// Lines of a failure path (`retry-exhausted` edges).
    pub(crate) failure: Rgb,
    /// Fill and stroke of a node, by shape family.
    pub(crate) node: [(Rgb, Rgb); 5],
}

/// The palette of a theme.
pub(crate) fn palette(theme: Theme) -> Palette {
    match theme {
        Theme::Light => Palette {
            background: [0xff, 0xff, 0xff],
            text: [0x22, 0x22, 0x22],
            edge: [0x44, 0x44, 0x44],
            label_fill: [0xf2, 0xf2, 0xf2],
            cluster_fill: [0xfb, 0xfb, 0xec],
            cluster_stroke: [0xaa, 0xaa, 0x33],
            failure: [0xc6, 0x28, 0x28],
            node: [
                ([0xec, 0xec, 0xff], [0x93, 0x70, 0xdb]),
                ([0xff, 0xf4, 0xd6], [0xc9, 0x96, 0x00]),
                ([0xe3, 0xf4, 0xe8], [0x3f, 0x8f, 0x55]),
                ([0xe6, 0xf0, 0xfb], [0x3f, 0x76, 0xbf]),
                ([0xfd, 0xe4, 0xe4], [0xc6, 0x28, 0x28]),
            ],
        },
        Theme::Dark => Palette {
            background: [0x1e, 0x1e, 0x24],
            text: [0xe8, 0xe8, 0xe8],
            edge: [0xc4, 0xc4, 0xc4],
            label_fill: [0x33, 0x33, 0x3d],
            cluster_fill: [0x26, 0x26, 0x2e],
            cluster_stroke: [0x8a, 0x8a, 0x55],
            failure: [0xf0, 0x70, 0x70],
            node: [
                ([0x2c, 0x2a, 0x40], [0xa4, 0x90, 0xf0]),
                ([0x3a, 0x32, 0x1c], [0xe0, 0xb0, 0x30]),
                ([0x1e, 0x38, 0x28], [0x60, 0xc0, 0x7c]),
                ([0x1e, 0x2e, 0x44], [0x70, 0xa4, 0xe4]),
                ([0x44, 0x1e, 0x1e], [0xf0, 0x70, 0x70]),
            ],
        },
    }
}

/// The colour family of a shape: plain, decision, end, question, failure (handoff).
pub(crate) fn family(shape: Shape) -> usize {
    match shape {
        Shape::Hexagon => 1,
        Shape::Stadium => 2,
        Shape::Parallelogram => 3,
        Shape::Octagon => 4,
        Shape::Rect | Shape::Subroutine | Shape::Choice => 0,
    }
}

/// The colour of an edge: the failure colour for `retry-exhausted`, else the edge colour.
pub(crate) fn edge_color(palette: &Palette, kind: EdgeKind) -> Rgb {
    if kind == EdgeKind::RetryExhausted {
        palette.failure
    } else {
        palette.edge
    }
}

/// Whether an edge is dashed: a `call` into a subflow and the `return` from it.
pub(crate) fn dashed(kind: EdgeKind) -> bool {
    matches!(kind, EdgeKind::Call | EdgeKind::Return)
}

/// `#rrggbb`.
pub(crate) fn hex(rgb: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2])
}

/// The baseline of each of `count` lines `line` pixels apart, centred in a box from `top`
/// `height` high, for text of `size` pixels.
pub(crate) fn baselines(
    font: &Font,
    top: i64,
    height: i64,
    count: usize,
    line: i64,
    size: i64,
) -> Vec<i64> {
    let ascent = font.ascent(size);
    let descent = (-font.descender * size + font.units_per_em / 2) / font.units_per_em;
    let first = top + (height - line * count as i64) / 2 + (line + ascent - descent) / 2;
    (0..count as i64).map(|i| first + i * line).collect()
}

/// The outline of a shape inscribed in a box, as a closed polygon (for the shapes that are
/// polygons).
pub(crate) fn polygon(shape: Shape, x: i64, y: i64, w: i64, h: i64) -> Option<Vec<(i64, i64)>> {
    match shape {
        Shape::Hexagon => {
            let i = h / 4;
            Some(vec![
                (x + i, y),
                (x + w - i, y),
                (x + w, y + h / 2),
                (x + w - i, y + h),
                (x + i, y + h),
                (x, y + h / 2),
            ])
        }
        Shape::Octagon => {
            let i = h / 4;
            Some(vec![
                (x + i, y),
                (x + w - i, y),
                (x + w, y + i),
                (x + w, y + h - i),
                (x + w - i, y + h),
                (x + i, y + h),
                (x, y + h - i),
                (x, y + i),
            ])
        }
        Shape::Parallelogram => {
            let k = h / 4;
            Some(vec![(x + k, y), (x + w, y), (x + w - k, y + h), (x, y + h)])
        }
        _ => None,
    }
}

/// The corner radius of a box-shaped node.
pub(crate) fn corner_radius(shape: Shape, h: i64) -> i64 {
    match shape {
        Shape::Stadium => h / 2,
        Shape::Choice => 10,
        _ => 3,
    }
}

/// The arrow head at the end of a polyline: the tip and the two base corners.
pub(crate) fn arrow_head(points: &[(i64, i64)]) -> Option<[(i64, i64); 3]> {
    let n = points.len();
    if n < 2 {
        return None;
    }
    let (tip, from) = (points[n - 1], points[n - 2]);
    let (dx, dy) = ((tip.0 - from.0).signum(), (tip.1 - from.1).signum());
    let length = crate::layout::ARROW;
    let half = 4;
    let base = (tip.0 - dx * length, tip.1 - dy * length);
    Some([
        tip,
        (base.0 - dy * half, base.1 + dx * half),
        (base.0 + dy * half, base.1 - dx * half),
    ])
}
