//! The PNG writer: the same shapes as the SVG, filled and stroked with tiny-skia; text from
//! the embedded font's outlines, each glyph rasterized once per size into a coverage mask and
//! blended into place; the pixels filtered and compressed in one pass into a PNG written here.

use std::collections::BTreeMap;

use tiny_skia::{
    Color, FillRule, LineCap, LineJoin, Mask, Paint, PathBuilder, Pixmap, Stroke, StrokeDash,
    Transform,
};

use crate::error::Error;
use crate::font::{Font, Glyph};
use crate::layout::{LABEL_FONT, LABEL_LINE, LABEL_PAD, NODE_FONT, NODE_LINE};
use crate::picture::{Picture, Rect, Shape};
use crate::style::{
    Rgb, arrow_head, baselines, corner_radius, dashed, edge_color, family, palette, polygon,
};

/// The most pixels a PNG is shrunk to fit (a larger picture is drawn at a smaller scale, but
/// never with text below [`TEXT_FLOOR`]).
pub const MAX_PIXELS: u64 = 4_000_000;
/// The longest side a PNG is shrunk to fit, in pixels (MCP clients refuse larger images; never
/// below [`TEXT_FLOOR`] either).
pub const MAX_SIDE: u32 = 8000;
/// The most pixels of any PNG drawn, at the text floor (about 400 MB of pixels): a larger
/// picture is refused with [`Error::TooLarge`] (its SVG, or the tool's pages, draw it).
pub const MAX_FLOOR_PIXELS: u64 = 100_000_000;
/// The smallest text of a PNG, in pixels at the size it is delivered: edge labels and cluster
/// titles (12 units) are never drawn smaller, so no picture is shrunk below `10 / 12` pixels
/// per unit.
pub const TEXT_FLOOR: f32 = 10.0;

/// The smallest scale a PNG is drawn at: its smallest text at [`TEXT_FLOOR`] pixels.
pub(crate) fn floor_scale() -> f32 {
    TEXT_FLOOR / crate::layout::LABEL_FONT as f32
}

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

/// A glyph's coverage at the picture's scale, and the offset of its top-left pixel from the
/// pen at the baseline.
struct GlyphMask {
    mask: Mask,
    dx: i32,
    dy: i32,
}

/// Glyphs rasterized once per size at the picture's scale as coverage masks, then blended
/// into place at whole device pixels in the text colour (a flow repeats few glyphs many
/// times, and a tiny-skia draw call per character costs more than the blending).
struct Glyphs {
    scale: f32,
    /// The device pixel of the picture's origin (a page starts inside the picture).
    origin: (i32, i32),
    color: Rgb,
    /// (glyph, text size) → the glyph's mask, `None` for a glyph without an outline.
    cache: BTreeMap<(Glyph, i64), Option<GlyphMask>>,
}

impl Glyphs {
    fn draw(&mut self, font: &Font, glyph: Glyph, size: i64) -> Option<&GlyphMask> {
        let scale = self.scale;
        self.cache
            .entry((glyph, size))
            .or_insert_with(|| {
                let face = font.face(glyph.face);
                let bounds = face.glyph_bounding_box(glyph.id)?;
                let s = size as f32 * scale / f32::from(face.units_per_em());
                let left = (f32::from(bounds.x_min) * s).floor() - 1.0;
                let top = (f32::from(bounds.y_max) * s).ceil() + 1.0;
                let width = (f32::from(bounds.x_max) * s).ceil() + 1.0 - left;
                let height = top - (f32::from(bounds.y_min) * s).floor() + 1.0;
                let mut mask = Mask::new(width.max(1.0) as u32, height.max(1.0) as u32)?;
                let mut path = PathBuilder::new();
                let mut outline = Outline {
                    path: &mut path,
                    x: -left,
                    y: top,
                    scale: s,
                };
                face.outline_glyph(glyph.id, &mut outline)?;
                let path = path.finish()?;
                mask.fill_path(&path, FillRule::Winding, true, Transform::identity());
                Some(GlyphMask {
                    mask,
                    dx: left as i32,
                    dy: -(top as i32),
                })
            })
            .as_ref()
    }

    /// Draws `lines` centred on `center`, spread over the band `(top, height)` as the SVG
    /// spreads them (see [`baselines`]), `line` apart, at `size`.
    fn centred_lines(
        &mut self,
        target: &mut Pixmap,
        font: &Font,
        lines: &[String],
        center: i64,
        (top, height): (i64, i64),
        (line, size): (i64, i64),
    ) {
        let rows = baselines(font, top, height, lines.len(), line, size);
        for (text, baseline) in lines.iter().zip(rows) {
            let start = centred(font, text, center, size);
            self.line(target, font, text, start, baseline, size);
        }
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
        let y = (baseline as f32 * self.scale).round() as i32 - self.origin.1;
        let color = self.color;
        for c in text.chars() {
            let (glyph, advance) = font.glyph(c);
            let x = (pen * self.scale).round() as i32 - self.origin.0;
            if let Some(glyph) = glyph
                && let Some(drawn) = self.draw(font, glyph, size)
            {
                blend(target, &drawn.mask, x + drawn.dx, y + drawn.dy, color);
            }
            pen += advance as f32 * unit;
        }
    }
}

/// `value / 255`, rounded to nearest, for `value` ≤ 255 × 255.
fn div255(value: u32) -> u32 {
    let value = value + 128;
    (value + (value >> 8)) >> 8
}

/// Paints `color` through `mask` (its coverage) onto `target` with the mask's top-left pixel
/// at (`left`, `top`): source-over in integer arithmetic on the premultiplied pixels, clipped
/// to the target.
pub(crate) fn blend(target: &mut Pixmap, mask: &Mask, left: i32, top: i32, color: Rgb) {
    let (target_width, target_height) = (target.width() as i32, target.height() as i32);
    let (mask_width, mask_height) = (mask.width() as i32, mask.height() as i32);
    let (x0, x1) = (left.max(0), (left + mask_width).min(target_width));
    let (y0, y1) = (top.max(0), (top + mask_height).min(target_height));
    if x0 >= x1 || y0 >= y1 {
        return;
    }
    let span = (x1 - x0) as usize;
    let source = [color[0], color[1], color[2], 255].map(u32::from);
    let coverage = mask.data();
    let pixels = target.data_mut();
    for y in y0..y1 {
        let from = ((y - top) * mask_width + (x0 - left)) as usize;
        let to = (y * target_width + x0) as usize * 4;
        let (Some(row), Some(out)) = (
            coverage.get(from..from + span),
            pixels.get_mut(to..to + span * 4),
        ) else {
            return;
        };
        for (&alpha, pixel) in row.iter().zip(out.chunks_exact_mut(4)) {
            if alpha == 0 {
                continue;
            }
            let alpha = u32::from(alpha);
            let keep = 255 - alpha;
            for (channel, source) in pixel.iter_mut().zip(source) {
                *channel = div255(source * alpha + u32::from(*channel) * keep) as u8;
            }
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
/// [`MAX_PIXELS`] pixels or a side longer than [`MAX_SIDE`], but never below the text floor.
pub(crate) fn fit_scale(picture: &Picture, scale: f32) -> f32 {
    let (w, h) = (picture.width.max(1) as f64, picture.height.max(1) as f64);
    let scale = f64::from(scale);
    let by_area = (MAX_PIXELS as f64 / (w * h)).sqrt();
    let by_side = f64::from(MAX_SIDE) / w.max(h);
    (scale.min(by_area).min(by_side) as f32).max(floor_scale().min(scale as f32))
}

/// What a PNG draws: the whole picture, a region of it, and whether text is drawn.
#[derive(Debug, Clone, Copy)]
pub(crate) struct View {
    /// The region of the picture drawn, in picture units.
    pub(crate) region: Rect,
    /// Pixels per unit.
    pub(crate) scale: f32,
    /// False for an overview: shapes and lines only, no text.
    pub(crate) text: bool,
}

/// Draws the whole picture at `scale` (1 = one pixel per unit, shrunk to fit as
/// [`fit_scale`] says) and encodes it as PNG.
pub(crate) fn write_png(font: &Font, picture: &Picture, scale: f32) -> Result<Vec<u8>, Error> {
    let scale = fit_scale(picture, scale);
    let region = Rect {
        x: 0,
        y: 0,
        width: picture.width,
        height: picture.height,
    };
    let pixmap = draw(
        font,
        picture,
        View {
            region,
            scale,
            text: true,
        },
        &Overlay::default(),
    )?;
    encode(&pixmap)
}

/// The size in pixels of a view.
pub(crate) fn view_size(view: &View) -> (u32, u32) {
    (
        (view.region.width as f32 * view.scale).floor().max(1.0) as u32,
        (view.region.height as f32 * view.scale).floor().max(1.0) as u32,
    )
}

/// What an overview draws over the picture, in device pixels.
#[derive(Debug, Clone, Default)]
pub(crate) struct Overlay {
    /// Frames (the pages).
    pub(crate) frames: Vec<Rect>,
    /// Text centred on `x` with its baseline at `y`: (x, y, size, text).
    pub(crate) numbers: Vec<(i64, i64, i64, String)>,
}

/// Draws a view of the picture, then an overlay, into a pixmap.
pub(crate) fn draw(
    font: &Font,
    picture: &Picture,
    view: View,
    overlay: &Overlay,
) -> Result<Pixmap, Error> {
    let scale = view.scale;
    let (width, height) = view_size(&view);
    if u64::from(width) * u64::from(height) > MAX_FLOOR_PIXELS {
        return Err(Error::TooLarge { width, height });
    }
    let origin = (
        (view.region.x as f32 * scale).round() as i32,
        (view.region.y as f32 * scale).round() as i32,
    );
    let colors = palette(picture.theme);
    let [r, g, b] = colors.background;
    // The background written once (not zeroed, then filled).
    let mut pixmap = tiny_skia::IntSize::from_wh(width, height)
        .and_then(|size| {
            let pixels = size.width() as usize * size.height() as usize;
            Pixmap::from_vec([r, g, b, 255].repeat(pixels), size)
        })
        .ok_or(Error::TooLarge { width, height })?;
    let t = Transform::from_row(
        scale,
        0.0,
        0.0,
        scale,
        -(origin.0 as f32),
        -(origin.1 as f32),
    );
    let mut glyphs = Glyphs {
        scale,
        origin,
        color: colors.text,
        cache: BTreeMap::new(),
    };
    let thin = Stroke {
        width: 1.0,
        ..Stroke::default()
    };
    // What lies outside the view is not drawn (a page of a long flow draws a few of its
    // steps), with a margin for strokes and arrow heads.
    let region = view.region;
    let seen = |r: &Rect| {
        r.x - 8 < region.right()
            && region.x < r.right() + 8
            && r.y - 8 < region.bottom()
            && region.y < r.bottom() + 8
    };
    for cluster in &picture.clusters {
        let rect = cluster.rect;
        if !seen(&rect) {
            continue;
        }
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
        if !view.text {
            continue;
        }
        glyphs.line(
            &mut pixmap,
            font,
            &cluster.title,
            (rect.x + 8) as f32,
            baseline,
            LABEL_FONT,
        );
    }
    for edge in &picture.edges {
        let (mut x0, mut y0, mut x1, mut y1) = (i64::MAX, i64::MAX, i64::MIN, i64::MIN);
        for &(x, y) in &edge.points {
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
        let bounds = Rect {
            x: x0,
            y: y0,
            width: x1.saturating_sub(x0),
            height: y1.saturating_sub(y0),
        };
        if edge.points.is_empty() || !seen(&bounds) {
            continue;
        }
        let edge_paint = paint(edge_color(&colors, edge.kind));
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
        if dashed(edge.kind) {
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
        if !seen(&rect) {
            continue;
        }
        if let Some(path) = rounded_rect(
            rect.x as f32,
            rect.y as f32,
            rect.width as f32,
            rect.height as f32,
            2.0,
        ) {
            pixmap.fill_path(&path, &paint(colors.label_fill), FillRule::Winding, t, None);
        }
        let band = (rect.y + LABEL_PAD, rect.height - 2 * LABEL_PAD);
        let center = rect.x + rect.width / 2;
        if !view.text {
            continue;
        }
        glyphs.centred_lines(
            &mut pixmap,
            font,
            &label.lines,
            center,
            band,
            (LABEL_LINE, LABEL_FONT),
        );
    }
    for node in &picture.nodes {
        let rect = node.rect;
        if !seen(&rect) {
            continue;
        }
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
        let center = rect.x + rect.width / 2;
        let band = (rect.y, rect.height);
        if !view.text {
            continue;
        }
        glyphs.centred_lines(
            &mut pixmap,
            font,
            &node.lines,
            center,
            band,
            (NODE_LINE, NODE_FONT),
        );
    }
    // Marks are placed in device pixels: drawn at scale 1 from the origin.
    let mut marker = Glyphs {
        scale: 1.0,
        origin: (0, 0),
        color: colors.text,
        cache: BTreeMap::new(),
    };
    let frame = Stroke {
        width: 2.0,
        ..Stroke::default()
    };
    for r in &overlay.frames {
        if let Some(path) = rounded_rect(
            r.x as f32 + 1.0,
            r.y as f32 + 1.0,
            (r.width - 2).max(1) as f32,
            (r.height - 2).max(1) as f32,
            0.0,
        ) {
            let paint = paint(colors.failure);
            pixmap.stroke_path(&path, &paint, &frame, Transform::identity(), None);
        }
    }
    for (x, baseline, size, text) in &overlay.numbers {
        let start = centred(font, text, *x, *size);
        marker.line(&mut pixmap, font, text, start, *baseline, *size);
    }
    Ok(pixmap)
}

/// PNG bytes of a view (see [`draw`]).
pub(crate) fn write_view(
    font: &Font,
    picture: &Picture,
    view: View,
    overlay: &Overlay,
) -> Result<Vec<u8>, Error> {
    encode(&draw(font, picture, view, overlay)?)
}

/// The length of the IDAT chunks the compressed pixels are split into (PNG allows at most
/// 2³¹ − 1 bytes a chunk).
const IDAT_CHUNK: usize = 1 << 30;

/// PNG bytes of an opaque pixmap: 8-bit RGB (the background is opaque, so premultiplied
/// colours are the plain ones), every row `Sub`-filtered (pictures are mostly flat runs, which
/// become runs of zeros) and compressed with `fdeflate` (the fast zero-run compressor the
/// `png` crate uses for its fastest level), in one pass over the pixels.
pub(crate) fn encode(pixmap: &Pixmap) -> Result<Vec<u8>, Error> {
    let png_error = |error: std::io::Error| Error::Png(error.to_string());
    let (width, height) = (pixmap.width(), pixmap.height());
    let mut filtered = vec![0u8; width as usize * 3 + 1];
    // Filter type 1, `Sub`: each byte minus the same channel of the pixel on its left.
    filtered[0] = 1;
    let mut zlib =
        fdeflate::Compressor::new(Vec::with_capacity(filtered.len() * 8)).map_err(png_error)?;
    for row in pixmap.data().chunks_exact(width as usize * 4) {
        sub_filter(row, &mut filtered[1..]);
        zlib.write_data(&filtered).map_err(png_error)?;
    }
    let data = zlib.finish().map_err(png_error)?;
    let mut header = Vec::with_capacity(13);
    header.extend_from_slice(&width.to_be_bytes());
    header.extend_from_slice(&height.to_be_bytes());
    // 8 bits per channel, colour type 2 (RGB), deflate, adaptive filtering, no interlace.
    header.extend_from_slice(&[8, 2, 0, 0, 0]);
    let mut out = Vec::with_capacity(data.len() + 64);
    out.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    chunk(&mut out, b"IHDR", &header);
    for part in data.chunks(IDAT_CHUNK) {
        chunk(&mut out, b"IDAT", part);
    }
    chunk(&mut out, b"IEND", &[]);
    Ok(out)
}

/// The bytes of `a` minus those of `b`, each wrapping on its own (four lanes in a `u32`).
fn sub_bytes(a: u32, b: u32) -> u32 {
    const HIGH: u32 = 0x8080_8080;
    ((a | HIGH) - (b & !HIGH)) ^ ((a ^ !b) & HIGH)
}

/// One row of RGBA pixels as the RGB bytes of the `Sub` filter: each channel minus the same
/// channel of the pixel on its left (zero left of the first). Four pixels (twelve bytes) at
/// a time as `u32` lanes: this loop runs over every pixel of the picture.
pub(crate) fn sub_filter(row: &[u8], out: &mut [u8]) {
    let pixel = |bytes: &[u8]| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    let mut left = 0u32;
    let mut quads = row.chunks_exact(16);
    let mut outs = out.chunks_exact_mut(12);
    for (quad, out) in (&mut quads).zip(&mut outs) {
        let (p0, p1, p2, p3) = (
            pixel(&quad[0..4]),
            pixel(&quad[4..8]),
            pixel(&quad[8..12]),
            pixel(&quad[12..16]),
        );
        let (d0, d1, d2, d3) = (
            sub_bytes(p0, left),
            sub_bytes(p1, p0),
            sub_bytes(p2, p1),
            sub_bytes(p3, p2),
        );
        left = p3;
        // Drop each alpha byte: RGB of d0, d1, d2, d3 packed into three words.
        out[0..4].copy_from_slice(&(d0 & 0x00FF_FFFF | d1 << 24).to_le_bytes());
        out[4..8].copy_from_slice(&((d1 >> 8) & 0xFFFF | d2 << 16).to_le_bytes());
        out[8..12].copy_from_slice(&((d2 >> 16) & 0xFF | d3 << 8).to_le_bytes());
    }
    for (bytes, out) in quads
        .remainder()
        .chunks_exact(4)
        .zip(outs.into_remainder().chunks_exact_mut(3))
    {
        let p = pixel(bytes);
        out.copy_from_slice(&sub_bytes(p, left).to_le_bytes()[..3]);
        left = p;
    }
}

/// Appends one PNG chunk: length, type, data, CRC-32 of type and data.
fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    // At most IDAT_CHUNK bytes, so the length fits.
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}
