//! The PNG writer: the same shapes as the SVG, filled and stroked with tiny-skia, text drawn
//! from the embedded font's outlines.

use botmesh_flow_analyzer::EdgeKind;
use tiny_skia::{
    Color, FillRule, LineCap, LineJoin, Paint, PathBuilder, Pixmap, Stroke, StrokeDash, Transform,
};

use crate::error::Error;
use crate::font::Font;
use crate::layout::{LABEL_FONT, LABEL_LINE, LABEL_PAD, NODE_FONT, NODE_LINE};
use crate::picture::{Picture, Shape};
use crate::style::{Rgb, arrow_head, baselines, corner_radius, family, palette, polygon};

/// The most pixels a PNG may have (a larger picture is drawn at a smaller scale).
pub const MAX_PIXELS: u64 = 4_000_000;
/// The longest side of a PNG, in pixels (MCP clients refuse larger images).
pub const MAX_SIDE: u32 = 8000;

fn paint(rgb: Rgb) -> Paint<'static> {
    let mut paint = Paint::default();
    paint.set_color(Color::from_rgba8(rgb[0], rgb[1], rgb[2], 255));
    paint.anti_alias = true;
    paint
}

/// Collects a glyph outline into a path, scaled and placed.
struct Outline<'a> {
    path: &'a mut PathBuilder,
    x: f32,
    y: f32,
    scale: f32,
}

impl Outline<'_> {
    fn at(&self, x: f32, y: f32) -> (f32, f32) {
        (self.x + x * self.scale, self.y - y * self.scale)
    }
}

impl ttf_parser::OutlineBuilder for Outline<'_> {
    fn move_to(&mut self, x: f32, y: f32) {
        let (x, y) = self.at(x, y);
        self.path.move_to(x, y);
    }
    fn line_to(&mut self, x: f32, y: f32) {
        let (x, y) = self.at(x, y);
        self.path.line_to(x, y);
    }
    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        let (x1, y1) = self.at(x1, y1);
        let (x, y) = self.at(x, y);
        self.path.quad_to(x1, y1, x, y);
    }
    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        let (x1, y1) = self.at(x1, y1);
        let (x2, y2) = self.at(x2, y2);
        let (x, y) = self.at(x, y);
        self.path.cubic_to(x1, y1, x2, y2, x, y);
    }
    fn close(&mut self) {
        self.path.close();
    }
}

/// A glyph drawn at the picture's scale, and its offset from the pen at the baseline.
type DrawnGlyph = (Pixmap, i32, i32);

/// Glyphs drawn once per size and colour at the picture's scale, then copied into place at
/// whole device pixels (a flow repeats few glyphs many times).
struct Glyphs {
    scale: f32,
    paint: Paint<'static>,
    /// (glyph, text size) → the glyph's pixmap and its offset from the pen at the baseline.
    cache: std::collections::BTreeMap<(u16, i64), Option<DrawnGlyph>>,
}

impl Glyphs {
    fn draw(&mut self, font: &Font, glyph: ttf_parser::GlyphId, size: i64) -> Option<&DrawnGlyph> {
        let scale = self.scale;
        let paint = &self.paint;
        self.cache
            .entry((glyph.0, size))
            .or_insert_with(|| {
                let bounds = font.face.glyph_bounding_box(glyph)?;
                let s = size as f32 * scale / font.units_per_em as f32;
                let left = (f32::from(bounds.x_min) * s).floor() - 1.0;
                let top = (f32::from(bounds.y_max) * s).ceil() + 1.0;
                let width = (f32::from(bounds.x_max) * s).ceil() + 1.0 - left;
                let height = top - (f32::from(bounds.y_min) * s).floor() + 1.0;
                let mut pixmap = Pixmap::new(width.max(1.0) as u32, height.max(1.0) as u32)?;
                let mut path = PathBuilder::new();
                let mut outline = Outline {
                    path: &mut path,
                    x: -left,
                    y: top,
                    scale: s,
                };
                font.face.outline_glyph(glyph, &mut outline)?;
                let path = path.finish()?;
                pixmap.fill_path(&path, paint, FillRule::Winding, Transform::identity(), None);
                Some((pixmap, left as i32, -(top as i32)))
            })
            .as_ref()
    }

    /// Draws one line of text from `start` (picture units).
    fn line(
        &mut self,
        target: &mut Pixmap,
        font: &Font,
        text: &str,
        start: f32,
        baseline: i64,
        size: i64,
    ) {
        let unit = size as f32 / font.units_per_em as f32;
        let mut pen = start;
        let y = (baseline as f32 * self.scale).round() as i32;
        for c in text.chars() {
            let glyph = font
                .face
                .glyph_index(c)
                .or_else(|| font.face.glyph_index(crate::font::FALLBACK_CHAR));
            let x = (pen * self.scale).round() as i32;
            if let Some(glyph) = glyph
                && let Some((pixmap, dx, dy)) = self.draw(font, glyph, size)
            {
                target.draw_pixmap(
                    x + dx,
                    y + dy,
                    pixmap.as_ref(),
                    &tiny_skia::PixmapPaint::default(),
                    Transform::identity(),
                    None,
                );
            }
            pen += font.advance(c) as f32 * unit;
        }
    }
}

/// Where a line of text centred on `center` starts: half its exact advance to the left, as
/// the SVG's `text-anchor="middle"` puts it (not half its width rounded up to whole pixels).
fn centred(font: &Font, text: &str, center: i64, size: i64) -> f32 {
    let units: i64 = text.chars().map(|c| font.advance(c)).sum();
    center as f32 - (units * size) as f32 / (2 * font.units_per_em) as f32
}

fn polygon_path(points: &[(i64, i64)]) -> Option<tiny_skia::Path> {
    let mut path = PathBuilder::new();
    for (i, &(x, y)) in points.iter().enumerate() {
        if i == 0 {
            path.move_to(x as f32, y as f32);
        } else {
            path.line_to(x as f32, y as f32);
        }
    }
    path.close();
    path.finish()
}

fn rounded_rect(x: f32, y: f32, w: f32, h: f32, r: f32) -> Option<tiny_skia::Path> {
    let r = r.min(w / 2.0).min(h / 2.0);
    // A quarter circle as a cubic: control points at 0.5523 of the radius.
    let k = r * 0.447_715;
    let mut p = PathBuilder::new();
    p.move_to(x + r, y);
    p.line_to(x + w - r, y);
    p.cubic_to(x + w - k, y, x + w, y + k, x + w, y + r);
    p.line_to(x + w, y + h - r);
    p.cubic_to(x + w, y + h - k, x + w - k, y + h, x + w - r, y + h);
    p.line_to(x + r, y + h);
    p.cubic_to(x + k, y + h, x, y + h - k, x, y + h - r);
    p.line_to(x, y + r);
    p.cubic_to(x, y + k, x + k, y, x + r, y);
    p.close();
    p.finish()
}

/// The scale a picture is drawn at: `scale`, or less when the PNG would have more than
/// [`MAX_PIXELS`] pixels or a side longer than [`MAX_SIDE`].
pub(crate) fn fit_scale(picture: &Picture, scale: f32) -> f32 {
    let (w, h) = (picture.width.max(1) as f64, picture.height.max(1) as f64);
    let scale = f64::from(scale);
    let by_area = (MAX_PIXELS as f64 / (w * h)).sqrt();
    let by_side = f64::from(MAX_SIDE) / w.max(h);
    scale.min(by_area).min(by_side) as f32
}

/// Draws the picture at `scale` (1 = one pixel per unit) and encodes it as PNG.
pub(crate) fn write_png(font: &Font, picture: &Picture, scale: f32) -> Result<Vec<u8>, Error> {
    let scale = fit_scale(picture, scale);
    let width = (picture.width as f32 * scale).floor().max(1.0) as u32;
    let height = (picture.height as f32 * scale).floor().max(1.0) as u32;
    let mut pixmap = Pixmap::new(width, height).ok_or(Error::TooLarge { width, height })?;
    let colors = palette(picture.theme);
    let t = Transform::from_scale(scale, scale);
    let mut glyphs = Glyphs {
        scale,
        paint: paint(colors.text),
        cache: std::collections::BTreeMap::new(),
    };
    let [r, g, b] = colors.background;
    pixmap.fill(Color::from_rgba8(r, g, b, 255));
    let thin = Stroke {
        width: 1.0,
        ..Stroke::default()
    };
    for cluster in &picture.clusters {
        let rect = cluster.rect;
        if let Some(path) = rounded_rect(
            rect.x as f32,
            rect.y as f32,
            rect.width as f32,
            rect.height as f32,
            4.0,
        ) {
            pixmap.fill_path(
                &path,
                &paint(colors.cluster_fill),
                FillRule::Winding,
                t,
                None,
            );
            pixmap.stroke_path(&path, &paint(colors.cluster_stroke), &thin, t, None);
        }
        let baseline = baselines(font, rect.y + 3, LABEL_LINE, 1, LABEL_LINE, LABEL_FONT)[0];
        glyphs.line(
            &mut pixmap,
            font,
            &cluster.title,
            (rect.x + 8) as f32,
            baseline,
            LABEL_FONT,
        );
    }
    let edge_paint = paint(colors.edge);
    for edge in &picture.edges {
        let mut path = PathBuilder::new();
        for (i, &(x, y)) in edge.points.iter().enumerate() {
            if i == 0 {
                path.move_to(x as f32, y as f32);
            } else {
                path.line_to(x as f32, y as f32);
            }
        }
        let mut stroke = Stroke {
            width: 1.5,
            line_cap: LineCap::Butt,
            line_join: LineJoin::Miter,
            ..Stroke::default()
        };
        if edge.kind == EdgeKind::Call {
            stroke.dash = StrokeDash::new(vec![5.0, 4.0], 0.0);
        }
        if let Some(path) = path.finish() {
            pixmap.stroke_path(&path, &edge_paint, &stroke, t, None);
        }
        if let Some(path) = arrow_head(&edge.points).and_then(|head| polygon_path(&head)) {
            pixmap.fill_path(&path, &edge_paint, FillRule::Winding, t, None);
        }
    }
    for label in &picture.labels {
        let rect = label.rect;
        if let Some(path) = rounded_rect(
            rect.x as f32,
            rect.y as f32,
            rect.width as f32,
            rect.height as f32,
            2.0,
        ) {
            pixmap.fill_path(&path, &paint(colors.label_fill), FillRule::Winding, t, None);
        }
        let lines = baselines(
            font,
            rect.y + LABEL_PAD,
            rect.height - 2 * LABEL_PAD,
            label.lines.len(),
            LABEL_LINE,
            LABEL_FONT,
        );
        for (line, baseline) in label.lines.iter().zip(lines) {
            glyphs.line(
                &mut pixmap,
                font,
                line,
                centred(font, line, rect.x + rect.width / 2, LABEL_FONT),
                baseline,
                LABEL_FONT,
            );
        }
    }
    for node in &picture.nodes {
        let rect = node.rect;
        let (fill, stroke) = colors.node[family(node.shape)];
        let outline = match polygon(node.shape, rect.x, rect.y, rect.width, rect.height) {
            Some(points) => polygon_path(&points),
            None => rounded_rect(
                rect.x as f32,
                rect.y as f32,
                rect.width as f32,
                rect.height as f32,
                corner_radius(node.shape, rect.height) as f32,
            ),
        };
        if let Some(path) = outline {
            pixmap.fill_path(&path, &paint(fill), FillRule::Winding, t, None);
            pixmap.stroke_path(&path, &paint(stroke), &thin, t, None);
        }
        if node.shape == Shape::Subroutine {
            let mut lines = PathBuilder::new();
            for x in [rect.x + 8, rect.right() - 8] {
                lines.move_to(x as f32, rect.y as f32);
                lines.line_to(x as f32, rect.bottom() as f32);
            }
            if let Some(path) = lines.finish() {
                pixmap.stroke_path(&path, &paint(stroke), &thin, t, None);
            }
        }
        let lines = baselines(
            font,
            rect.y,
            rect.height,
            node.lines.len(),
            NODE_LINE,
            NODE_FONT,
        );
        for (line, baseline) in node.lines.iter().zip(lines) {
            glyphs.line(
                &mut pixmap,
                font,
                line,
                centred(font, line, rect.x + rect.width / 2, NODE_FONT),
                baseline,
                NODE_FONT,
            );
        }
    }
    encode(&pixmap)
}

/// PNG bytes of an opaque pixmap: RGB (the background is opaque, so premultiplied colours
/// are the plain ones), fast deflate, the `Sub` filter (pictures are mostly flat runs).
fn encode(pixmap: &Pixmap) -> Result<Vec<u8>, Error> {
    let rgb: Vec<u8> = pixmap
        .data()
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    let mut out = Vec::with_capacity(rgb.len() / 16);
    {
        let mut encoder = ::png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
        encoder.set_color(::png::ColorType::Rgb);
        encoder.set_depth(::png::BitDepth::Eight);
        encoder.set_compression(::png::Compression::Fast);
        encoder.set_filter(::png::FilterType::Sub);
        encoder.set_adaptive_filter(::png::AdaptiveFilterType::NonAdaptive);
        let mut writer = encoder
            .write_header()
            .map_err(|error| Error::Png(error.to_string()))?;
        writer
            .write_image_data(&rgb)
            .map_err(|error| Error::Png(error.to_string()))?;
    }
    Ok(out)
}
