//! Pictures too large for one readable image: readable pages, an overview of where they lie,
//! and the neighbourhood of one step.
//!
//! A picture fits when its long side, at the scale that puts its smallest text at
//! [`TEXT_FLOOR`](crate::TEXT_FLOOR) pixels, is within the caller's `maxSize`. Otherwise it is cut into a grid of
//! pages drawn at one pixel per unit (node text 14 px, labels 12 px), each within `maxSize`:
//! bands across the long side, each band's window following its steps, numbered from 1 band
//! by band (top to bottom for a tall picture, left to right for a wide one).

use crate::error::Error;
use crate::font;
use crate::picture::{Picture, Rect};
use crate::png::{self, View, floor_scale};

/// The long side of a `flow_render` image unless the caller says otherwise: what Claude reads
/// an image at (larger images are scaled down before the model sees them).
pub const DEFAULT_MAX_SIZE: u32 = 1568;
/// The smallest `maxSize` a caller may ask for (a page must hold a few steps).
pub const MIN_MAX_SIZE: u32 = 400;
/// The largest `maxSize` a caller may ask for (MCP clients refuse larger images).
pub const MAX_MAX_SIZE: u32 = 8000;
/// The scale pages and neighbourhoods are drawn at, at most: 2 pixels per unit.
const SHARP: f32 = 2.0;
/// Size of the page numbers of an overview, in pixels.
const NUMBER_SIZE: i64 = 22;

/// One page of a picture cut into pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The page number, from 1.
    pub number: usize,
    /// The part of the picture it shows, in picture units.
    pub region: Rect,
    /// The nodes (indices in [`Picture::nodes`]) it shows, whole or in part, in node order.
    pub nodes: Vec<usize>,
    /// The pages above, below, left and right of it, when there are.
    pub above: Option<usize>,
    /// The page below.
    pub below: Option<usize>,
    /// The page on the left.
    pub left: Option<usize>,
    /// The page on the right.
    pub right: Option<usize>,
}

/// A picture cut into pages.
#[derive(Debug, Clone, PartialEq)]
pub struct Paging {
    /// Pixels per unit of every page.
    pub scale: f32,
    /// Bands across the picture's long side (rows of pages for a tall picture, columns for
    /// a wide one).
    pub bands: usize,
    /// The pages, by number.
    pub pages: Vec<Page>,
}

/// A view of a picture ready to draw: what part, at what scale, and what it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Framed {
    /// The part of the picture, in picture units.
    pub region: Rect,
    /// Pixels per unit.
    pub scale: f32,
    /// Its size in pixels.
    pub size: (u32, u32),
    /// The nodes it shows (indices in [`Picture::nodes`]), whole or in part.
    pub nodes: Vec<usize>,
}

impl Picture {
    /// The scale the whole picture is drawn at within `max_size` pixels on its long side (at
    /// most 2), or `None` when that would put its smallest text below [`TEXT_FLOOR`](crate::TEXT_FLOOR): then
    /// it needs pages.
    pub fn fit_within(&self, max_size: u32) -> Option<f32> {
        let long = self.width.max(self.height).max(1) as f32;
        let scale = (max_size as f32 / long).min(SHARP);
        (scale >= floor_scale()).then_some(scale)
    }

    /// The picture cut into pages within `max_size` pixels each, at one pixel per unit: bands
    /// across its long side (rows for a tall picture, columns for a wide one), each band's
    /// window following the steps in it (a long flow drifts sideways), cut again when those
    /// steps are wider than a page.
    pub fn paging(&self, max_size: u32) -> Paging {
        let scale = 1.0f32.max(floor_scale());
        let tile = (max_size as f32 / scale).floor().max(1.0) as i64;
        let tall = self.height >= self.width;
        // (along, across) of a rectangle: along the long side, and across it.
        let split = |r: &Rect| {
            if tall {
                ((r.y, r.bottom()), (r.x, r.right()))
            } else {
                ((r.x, r.right()), (r.y, r.bottom()))
            }
        };
        let (length, breadth) = if tall {
            (self.height, self.width)
        } else {
            (self.width, self.height)
        };
        let bands = ((length.max(1) + tile - 1) / tile).max(1);
        let band = (length + bands - 1) / bands;
        let margin = 16;
        // Per band, its pages' regions, in order across.
        let mut cells: Vec<Vec<Rect>> = Vec::new();
        for b in 0..bands {
            let (start, end) = (b * band, ((b + 1) * band).min(length));
            let mut across: Option<(i64, i64)> = None;
            for node in &self.nodes {
                let ((n0, n1), (a0, a1)) = split(&node.rect);
                if n0 < end && start < n1 {
                    across = Some(across.map_or((a0, a1), |(x, y)| (x.min(a0), y.max(a1))));
                }
            }
            let Some((a0, a1)) = across else {
                continue;
            };
            let (a0, a1) = ((a0 - margin).max(0), (a1 + margin).min(breadth));
            let windows = ((a1 - a0) + tile - 1) / tile;
            let width = (a1 - a0 + windows - 1) / windows.max(1);
            let mut row = Vec::new();
            for w in 0..windows {
                let (c0, c1) = (a0 + w * width, (a0 + (w + 1) * width).min(a1));
                let region = if tall {
                    Rect {
                        x: c0,
                        y: start,
                        width: c1 - c0,
                        height: end - start,
                    }
                } else {
                    Rect {
                        x: start,
                        y: c0,
                        width: end - start,
                        height: c1 - c0,
                    }
                };
                if !self.nodes_in(&region).is_empty() {
                    row.push(region);
                }
            }
            if !row.is_empty() {
                cells.push(row);
            }
        }
        // Numbers, row by row; neighbours: the next page in the band, and the page of the
        // band before or after that overlaps this one most across.
        let mut first = Vec::with_capacity(cells.len());
        let mut count = 0;
        for row in &cells {
            first.push(count + 1);
            count += row.len();
        }
        let across_of = |r: &Rect| split(r).1;
        let overlap = |a: (i64, i64), b: (i64, i64)| a.1.min(b.1) - a.0.max(b.0);
        let facing = |band: usize, region: &Rect| -> Option<usize> {
            let here = across_of(region);
            cells[band]
                .iter()
                .enumerate()
                .max_by_key(|(i, r)| (overlap(here, across_of(r)), std::cmp::Reverse(*i)))
                .map(|(i, _)| first[band] + i)
        };
        let mut pages = Vec::with_capacity(count);
        for (b, row) in cells.iter().enumerate() {
            for (i, region) in row.iter().enumerate() {
                let before = (b > 0).then(|| facing(b - 1, region)).flatten();
                let after = (b + 1 < cells.len())
                    .then(|| facing(b + 1, region))
                    .flatten();
                let previous = (i > 0).then(|| first[b] + i - 1);
                let next = (i + 1 < row.len()).then(|| first[b] + i + 1);
                let (above, below, left, right) = if tall {
                    (before, after, previous, next)
                } else {
                    (previous, next, before, after)
                };
                pages.push(Page {
                    number: first[b] + i,
                    region: *region,
                    nodes: self.nodes_in(region),
                    above,
                    below,
                    left,
                    right,
                });
            }
        }
        Paging {
            scale,
            bands: cells.len(),
            pages,
        }
    }

    /// The nodes whose boxes share points with `region`, in node order.
    fn nodes_in(&self, region: &Rect) -> Vec<usize> {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, node)| node.rect.overlaps(region))
            .map(|(i, _)| i)
            .collect()
    }

    /// The neighbourhood of node `focus`: the nodes at most `depth` edges away (either way),
    /// framed within `max_size` pixels at up to 2 pixels per unit and never below the text
    /// floor; when they need more room, the frame is centred on the focus node.
    pub fn focus(&self, focus: usize, depth: usize, max_size: u32) -> Framed {
        let mut reached = vec![false; self.nodes.len()];
        let mut frontier = vec![focus];
        if let Some(r) = reached.get_mut(focus) {
            *r = true;
        }
        for _ in 0..depth {
            if frontier.is_empty() {
                break;
            }
            let mut next = Vec::new();
            for edge in &self.edges {
                for (a, b) in [(edge.from, edge.to), (edge.to, edge.from)] {
                    if frontier.contains(&a) && !reached[b] {
                        reached[b] = true;
                        next.push(b);
                    }
                }
            }
            frontier = next;
        }
        let margin = 16;
        let mut bounds: Option<(i64, i64, i64, i64)> = None;
        for (node, _) in self.nodes.iter().zip(&reached).filter(|(_, r)| **r) {
            let r = node.rect;
            bounds = Some(match bounds {
                None => (r.x, r.y, r.right(), r.bottom()),
                Some((a, b, c, d)) => (a.min(r.x), b.min(r.y), c.max(r.right()), d.max(r.bottom())),
            });
        }
        let (x0, y0, x1, y1) = bounds.unwrap_or((0, 0, self.width, self.height));
        let mut region = Rect {
            x: (x0 - margin).max(0),
            y: (y0 - margin).max(0),
            width: 0,
            height: 0,
        };
        region.width = (x1 + margin).min(self.width) - region.x;
        region.height = (y1 + margin).min(self.height) - region.y;
        let floor = 1.0f32.max(floor_scale());
        let most = (max_size as f32 / floor).floor() as i64;
        if let Some(node) = self.nodes.get(focus) {
            let (cx, cy) = (
                node.rect.x + node.rect.width / 2,
                node.rect.y + node.rect.height / 2,
            );
            if region.width > most {
                region.x = (cx - most / 2).clamp(0, (self.width - most).max(0));
                region.width = most.min(self.width);
            }
            if region.height > most {
                region.y = (cy - most / 2).clamp(0, (self.height - most).max(0));
                region.height = most.min(self.height);
            }
        }
        // The frame starts on a multiple of 8 units and the scale is a whole number of
        // eighths, so the frame's corner falls on a whole pixel (the PNG is then the SVG's
        // viewBox at that scale, pixel for pixel).
        let (x0, y0) = (
            region.x - region.x.rem_euclid(8),
            region.y - region.y.rem_euclid(8),
        );
        region.width += region.x - x0;
        region.height += region.y - y0;
        (region.x, region.y) = (x0, y0);
        let long = region.width.max(region.height).max(1) as f32;
        let eighths = (max_size as f32 / long * 8.0).floor() / 8.0;
        let scale = eighths.min(SHARP).max((floor_scale() * 8.0).ceil() / 8.0);
        let view = View {
            region,
            scale,
            text: true,
        };
        Framed {
            region,
            scale,
            size: png::view_size(&view),
            nodes: self.nodes_in(&region),
        }
    }

    /// The whole picture framed at `scale` (what [`Picture::fit_within`] gives).
    pub fn whole(&self, scale: f32) -> Framed {
        let region = Rect {
            x: 0,
            y: 0,
            width: self.width,
            height: self.height,
        };
        let view = View {
            region,
            scale,
            text: true,
        };
        Framed {
            region,
            scale,
            size: png::view_size(&view),
            nodes: (0..self.nodes.len()).collect(),
        }
    }

    /// A framed part of the picture as SVG: the whole picture's markup with the frame as its
    /// `viewBox` and size (in units; a browser draws it at the frame's scale with a device
    /// scale factor of [`Framed::scale`]).
    pub fn framed_svg(&self, framed: &Framed) -> Result<String, Error> {
        Ok(crate::svg::write_svg(
            font::font()?,
            self,
            Some(framed.region),
        ))
    }

    /// A framed part of the picture as PNG (a page, a neighbourhood).
    pub fn framed_png(&self, framed: &Framed) -> Result<Vec<u8>, Error> {
        let view = View {
            region: framed.region,
            scale: framed.scale,
            text: true,
        };
        png::write_view(font::font()?, self, view, &png::Overlay::default())
    }

    /// Page `number` (from 1) of a paging, framed; `None` when there is no such page.
    pub fn page(&self, paging: &Paging, number: usize) -> Option<Framed> {
        let page = paging.pages.get(number.checked_sub(1)?)?;
        let view = View {
            region: page.region,
            scale: paging.scale,
            text: true,
        };
        Some(Framed {
            region: page.region,
            scale: paging.scale,
            size: png::view_size(&view),
            nodes: page.nodes.clone(),
        })
    }

    /// The overview of a paging as PNG within `max_size` pixels: every box and line without
    /// text (too small to read at this size), the pages' frames and their numbers at
    /// 22 pixels; and its size.
    pub fn overview_png(
        &self,
        paging: &Paging,
        max_size: u32,
    ) -> Result<(Vec<u8>, (u32, u32)), Error> {
        let long = self.width.max(self.height).max(1) as f32;
        let scale = (max_size as f32 / long).min(SHARP);
        let region = Rect {
            x: 0,
            y: 0,
            width: self.width,
            height: self.height,
        };
        let view = View {
            region,
            scale,
            text: false,
        };
        let device = |v: i64| (v as f32 * scale).round() as i64;
        let mut overlay = png::Overlay::default();
        for page in &paging.pages {
            let r = page.region;
            overlay.frames.push(Rect {
                x: device(r.x),
                y: device(r.y),
                width: device(r.width),
                height: device(r.height),
            });
            overlay.numbers.push((
                device(r.x + r.width / 2),
                device(r.y + r.height / 2) + NUMBER_SIZE / 3,
                NUMBER_SIZE,
                page.number.to_string(),
            ));
        }
        let bytes = png::write_view(font::font()?, self, view, &overlay)?;
        Ok((bytes, png::view_size(&view)))
    }
}
