//! The SVG writer: integer coordinates only, attributes in a fixed order, so the same picture
//! gives the same bytes everywhere.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::font::{Face, Font};
use crate::layout::{LABEL_FONT, LABEL_LINE, LABEL_PAD, NODE_FONT, NODE_LINE};
use crate::picture::{Picture, Rect, Shape};
use crate::style::{
    arrow_head, baselines, corner_radius, dashed, edge_color, family, hex, palette, polygon,
};

/// The font stack of the SVG: the embedded fonts' own names (the SVG carries the glyphs it
/// uses of each), then the fonts with FlowSans's metrics.
pub const FONT_FAMILY: &str =
    "FlowSans, FlowEmoji, 'Liberation Sans', Arimo, Arial, Helvetica, sans-serif";

/// Escapes text for XML content and attribute values.
fn escape(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

fn points_attr(out: &mut String, points: &[(i64, i64)]) {
    for (i, (x, y)) in points.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let _ = write!(out, "{x},{y}");
    }
}

/// Writes a `<style>` with one `@font-face` per embedded font the picture's text uses, each
/// the font cut down to the glyphs used (see [`crate::subset`]) as a base64 `data:` URL: the
/// SVG needs no font of the viewer's and refers to nothing outside itself.
fn embed_fonts(out: &mut String, font: &Font, picture: &Picture) {
    let texts = picture
        .clusters
        .iter()
        .map(|c| &c.title)
        .chain(picture.labels.iter().flat_map(|l| &l.lines))
        .chain(picture.nodes.iter().flat_map(|n| &n.lines));
    // The characters drawn from each font, with their glyphs.
    let mut used: BTreeMap<Face, BTreeMap<char, u16>> = BTreeMap::new();
    for text in texts {
        for c in text.chars() {
            if let Some(glyph) = font.glyph(c).0 {
                used.entry(glyph.face).or_default().insert(c, glyph.id.0);
            }
        }
    }
    if used.is_empty() {
        return;
    }
    out.push_str("<style>");
    for (face, chars) in used {
        if let Some(file) = crate::subset::subset(face.data(), &chars) {
            let _ = write!(
                out,
                "@font-face{{font-family:{};src:url(data:font/ttf;base64,{}) format('truetype')}}",
                face.family(),
                crate::subset::base64(&file)
            );
        }
    }
    out.push_str("</style>\n");
}

/// Writes the picture, or the part of it in `region` (its `viewBox`), as a standalone SVG
/// document.
pub(crate) fn write_svg(font: &Font, picture: &Picture, region: Option<Rect>) -> String {
    let colors = palette(picture.theme);
    let mut out = String::with_capacity(512 + 400 * (picture.nodes.len() + picture.edges.len()));
    let region = region.unwrap_or(Rect {
        x: 0,
        y: 0,
        width: picture.width,
        height: picture.height,
    });
    let (x, y, w, h) = (region.x, region.y, region.width, region.height);
    // No kerning: text is measured and the PNG drawn from the advance widths alone, and a
    // browser kerns by default (Liberation Sans has a `kern` feature), which would move glyphs.
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"{x} {y} {w} {h}\" font-family=\"{FONT_FAMILY}\" style=\"font-kerning:none\">"
    );
    embed_fonts(&mut out, font, picture);
    if (x, y) == (0, 0) {
        let _ = writeln!(
            out,
            "<rect width=\"{w}\" height=\"{h}\" fill=\"{}\"/>",
            hex(colors.background)
        );
    } else {
        let _ = writeln!(
            out,
            "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" fill=\"{}\"/>",
            hex(colors.background)
        );
    }
    for cluster in &picture.clusters {
        let r = cluster.rect;
        let _ = writeln!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\" fill=\"{}\" stroke=\"{}\"/>",
            r.x,
            r.y,
            r.width,
            r.height,
            hex(colors.cluster_fill),
            hex(colors.cluster_stroke)
        );
        let baseline = baselines(font, r.y + 3, LABEL_LINE, 1, LABEL_LINE, LABEL_FONT)[0];
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{baseline}\" font-size=\"{LABEL_FONT}\" fill=\"{}\">",
            r.x + 8,
            hex(colors.text)
        );
        escape(&mut out, &cluster.title);
        out.push_str("</text>\n");
    }
    for edge in &picture.edges {
        let color = hex(edge_color(&colors, edge.kind));
        out.push_str("<polyline points=\"");
        points_attr(&mut out, &edge.points);
        let _ = write!(
            out,
            "\" fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\""
        );
        if dashed(edge.kind) {
            out.push_str(" stroke-dasharray=\"5 4\"");
        }
        out.push_str("/>\n");
        if let Some(head) = arrow_head(&edge.points) {
            out.push_str("<polygon points=\"");
            points_attr(&mut out, &head);
            let _ = writeln!(out, "\" fill=\"{color}\"/>");
        }
    }
    for label in &picture.labels {
        let r = label.rect;
        let _ = writeln!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"2\" fill=\"{}\"/>",
            r.x,
            r.y,
            r.width,
            r.height,
            hex(colors.label_fill)
        );
        let lines = baselines(
            font,
            r.y + LABEL_PAD,
            r.height - 2 * LABEL_PAD,
            label.lines.len(),
            LABEL_LINE,
            LABEL_FONT,
        );
        for (line, baseline) in label.lines.iter().zip(lines) {
            let _ = write!(
                out,
                "<text x=\"{}\" y=\"{baseline}\" font-size=\"{LABEL_FONT}\" text-anchor=\"middle\" fill=\"{}\">",
                r.x + r.width / 2,
                hex(colors.text)
            );
            escape(&mut out, line);
            out.push_str("</text>\n");
        }
    }
    for node in &picture.nodes {
        let r = node.rect;
        let (fill, stroke) = colors.node[family(node.shape)];
        let paint = format!("fill=\"{}\" stroke=\"{}\"", hex(fill), hex(stroke));
        match polygon(node.shape, r.x, r.y, r.width, r.height) {
            Some(points) => {
                out.push_str("<polygon points=\"");
                points_attr(&mut out, &points);
                let _ = writeln!(out, "\" {paint}/>");
            }
            None => {
                let radius = corner_radius(node.shape, r.height);
                let _ = writeln!(
                    out,
                    "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"{radius}\" {paint}/>",
                    r.x, r.y, r.width, r.height
                );
                if node.shape == Shape::Subroutine {
                    for x in [r.x + 8, r.right() - 8] {
                        let _ = writeln!(
                            out,
                            "<line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\" stroke=\"{}\"/>",
                            r.y,
                            r.bottom(),
                            hex(stroke)
                        );
                    }
                }
            }
        }
        let lines = baselines(font, r.y, r.height, node.lines.len(), NODE_LINE, NODE_FONT);
        for (line, baseline) in node.lines.iter().zip(lines) {
            let _ = write!(
                out,
                "<text x=\"{}\" y=\"{baseline}\" font-size=\"{NODE_FONT}\" text-anchor=\"middle\" fill=\"{}\">",
                r.x + r.width / 2,
                hex(colors.text),
            );
            escape(&mut out, line);
            out.push_str("</text>\n");
        }
    }
    out.push_str("</svg>\n");
    out
}
