//! Edge routing: the bands of the layers and every box and polyline in layout space.

use super::*;

/// Every box and polyline in layout space.
pub(super) struct Routed {
    /// Extent along the layers.
    pub(super) height: i64,
    pub(super) node_rects: Vec<Rect>,
    pub(super) label_rects: Vec<Rect>,
    /// One per flow when there are several, else none.
    pub(super) cluster_rects: Vec<Rect>,
    pub(super) edges: Vec<DrawnEdge>,
}

/// Sizes the bands, then routes the chains and self-loops and frames the `clusters` flows
/// (0 when the picture has one).
#[allow(
    clippy::too_many_arguments,
    reason = "the phase reads the earlier phases' results, each one argument"
)]
pub(super) fn route(
    nodes: &[NodeBox],
    labels: &[LabelBox],
    items: &[Item],
    chains: &[Chain],
    self_loops: &[(usize, EdgeKind, Option<usize>)],
    layers: usize,
    clusters: usize,
    horizontal: bool,
) -> Routed {
    let layout_size = |w: i64, h: i64| if horizontal { (h, w) } else { (w, h) };
    // Along the layers: each layer's band is as tall as its tallest item.
    let mut band_top = vec![0i64; layers];
    let mut band_height = vec![0i64; layers];
    for item in items {
        band_height[item.layer] = band_height[item.layer].max(item.height);
    }
    let mut y = 0;
    for l in 0..layers {
        band_top[l] = y;
        y += band_height[l] + RANK_GAP;
    }
    let item_top = |item: &Item| band_top[item.layer] + (band_height[item.layer] - item.height) / 2;

    // 6. Geometry in layout space.
    let node_rect = |n: usize| {
        let item = &items[n];
        let (w, h) = layout_size(nodes[n].width, nodes[n].height);
        Rect {
            x: item.x - item.left,
            y: item_top(item),
            width: w,
            height: h,
        }
    };
    // Ports: the edges leaving a node's bottom (or entering its top) spread by where they go.
    let mut bottom_ports: Vec<Vec<(i64, usize)>> = vec![Vec::new(); nodes.len()];
    let mut top_ports: Vec<Vec<(i64, usize)>> = vec![Vec::new(); nodes.len()];
    for (c, chain) in chains.iter().enumerate() {
        let (first, second) = (chain.items[0], chain.items[1]);
        let n = chain.items.len();
        let (last, before) = (chain.items[n - 1], chain.items[n - 2]);
        bottom_ports[first].push((items[second].x, c));
        top_ports[last].push((items[before].x, c));
    }
    // Each chain's end offsets: [leaving its source, entering its target].
    let mut port_offset: Vec<[i64; 2]> = vec![[0, 0]; chains.len()];
    // How far from the middle of a side an edge end may lie: on the flat part of the outline
    // (a stadium's, a hexagon's or a parallelogram's bottom is narrower than its box), or a
    // quarter of a side across the layers.
    let reach = |n: usize, width: i64| {
        if horizontal {
            width / 4
        } else {
            (width / 2 - nodes[n].shape.extra_width(nodes[n].height) - PORT_MARGIN).max(0)
        }
    };
    for (end, sides) in [&mut bottom_ports, &mut top_ports].into_iter().enumerate() {
        for (n, ports) in sides.iter_mut().enumerate() {
            ports.sort_unstable();
            let wanted: Vec<i64> = ports.iter().map(|&(x, _)| x - items[n].x).collect();
            let width = node_rect(n).width;
            for (&(_, c), offset) in ports.iter().zip(snap(&wanted, width, reach(n, width))) {
                port_offset[c][end] = offset;
            }
        }
    }
    let mut drawn_edges: Vec<DrawnEdge> = Vec::with_capacity(chains.len() + self_loops.len());
    let mut label_rects: Vec<Rect> = vec![Rect::default(); labels.len()];
    for (c, chain) in chains.iter().enumerate() {
        let n = chain.items.len();
        let source = chain.items[0];
        let target = chain.items[n - 1];
        let source_rect = node_rect(source);
        let target_rect = node_rect(target);
        let mut points: Vec<(i64, i64)> = Vec::with_capacity(2 * n);
        // The ends leave and enter their node straight for at least an arrow's length (into
        // the empty gap when the node fills its band), so the arrow head is axis-aligned.
        let sx = items[source].x + port_offset[c][0];
        let band_bottom = band_top[items[source].layer] + band_height[items[source].layer];
        points.push((sx, source_rect.bottom()));
        points.push((sx, band_bottom.max(source_rect.bottom() + ARROW)));
        for &d in &chain.items[1..n - 1] {
            let item = &items[d];
            points.push((item.x, band_top[item.layer]));
            points.push((item.x, band_top[item.layer] + band_height[item.layer]));
        }
        let tx = items[target].x + port_offset[c][1];
        points.push((tx, band_top[items[target].layer].min(target_rect.y - ARROW)));
        points.push((tx, target_rect.y));
        points.dedup();
        if chain.reversed {
            points.reverse();
        }
        let label = chain.label.map(|(label, item)| {
            let item = &items[item];
            let (w, h) = layout_size(labels[label].width, labels[label].height);
            label_rects[label] = Rect {
                x: item.x + LABEL_GAP,
                y: item_top(item),
                width: w,
                height: h,
            };
            label
        });
        drawn_edges.push(DrawnEdge {
            kind: chain.kind,
            from: chain.from,
            to: chain.to,
            points,
            label,
            back: chain.reversed,
        });
    }
    for &(n, kind, label) in self_loops {
        let rect = node_rect(n);
        let right = rect.right();
        let middle = rect.y + rect.height / 2;
        let quarter = (rect.height / 4).max(4);
        let out = right + LOOP_WIDTH - 4;
        drawn_edges.push(DrawnEdge {
            kind,
            from: n,
            to: n,
            points: vec![
                (right, middle - quarter),
                (out, middle - quarter),
                (out, middle + quarter),
                (right, middle + quarter),
            ],
            label,
            back: true,
        });
        if let Some(label) = label {
            let (w, h) = layout_size(labels[label].width, labels[label].height);
            label_rects[label] = Rect {
                x: right + LOOP_WIDTH + LABEL_GAP,
                y: middle - h / 2,
                width: w,
                height: h,
            };
        }
    }
    let mut cluster_rects: Vec<Rect> = Vec::new();
    if clusters > 0 {
        for g in 0..clusters {
            let mut bounds: Option<(i64, i64, i64, i64)> = None;
            for item in items.iter().filter(|item| item.flow == g) {
                let top = band_top[item.layer];
                let bottom = top + band_height[item.layer];
                let (x0, x1) = (item.x - item.left, item.x + item.right);
                bounds = Some(match bounds {
                    None => (x0, top, x1, bottom),
                    Some((a, b, c, d)) => (a.min(x0), b.min(top), c.max(x1), d.max(bottom)),
                });
            }
            let (x0, y0, x1, y1) = bounds.unwrap_or((0, 0, 0, 0));
            cluster_rects.push(Rect {
                x: x0 - CLUSTER_PAD,
                y: y0 - CLUSTER_PAD,
                width: x1 - x0 + 2 * CLUSTER_PAD,
                height: y1 - y0 + 2 * CLUSTER_PAD,
            });
        }
    }

    let node_rects: Vec<Rect> = (0..nodes.len()).map(node_rect).collect();
    Routed {
        height: y,
        node_rects,
        label_rects,
        cluster_rects,
        edges: drawn_edges,
    }
}

/// The space between neighbouring ends of `count` edges on a side `width` long.
fn port_gap(count: usize, width: i64) -> i64 {
    if count <= 1 {
        return 0;
    }
    PORT_SPACING.min((width / 2) / (count as i64 - 1))
}

/// Offsets of `count` edge ends spread over the middle of a side `width` long.
fn spread(count: usize, width: i64) -> Vec<i64> {
    if count <= 1 {
        return vec![0; count];
    }
    let slots = count as i64 - 1;
    let spacing = port_gap(count, width);
    (0..count as i64)
        .map(|i| (2 * i - slots) * spacing / 2)
        .collect()
}

/// Offsets of edge ends on one side of a node, in the order of `wanted` (the offsets of the
/// points they head for, sorted): each straight above or below its point where the side
/// allows (within `reach` of its middle, keeping the ends in order and as far apart as
/// [`spread`] puts them), else pushed along towards it; [`spread`] when they do not fit.
fn snap(wanted: &[i64], width: i64, reach: i64) -> Vec<i64> {
    let count = wanted.len();
    if count == 0 {
        return Vec::new();
    }
    let gap = port_gap(count, width);
    let mut out: Vec<i64> = wanted.iter().map(|&w| w.clamp(-reach, reach)).collect();
    for i in 1..count {
        out[i] = out[i].max(out[i - 1] + gap);
    }
    for i in (0..count).rev() {
        let high = if i + 1 == count {
            reach
        } else {
            out[i + 1] - gap
        };
        out[i] = out[i].min(high);
    }
    if out[0] < -reach {
        return spread(count, width);
    }
    out
}

#[cfg(test)]
mod route_tests {
    use super::*;

    #[test]
    fn edge_ends_lie_straight_above_their_points_where_the_side_allows() {
        // Three ends heading left, just right of the middle, and far right of a 200 px side
        // whose ends may lie 80 px from its middle.
        assert_eq!(snap(&[-30, 4, 300], 200, 80), vec![-30, 4, 80]);
        // Two heading for the same place stay in order, as far apart as spread puts them.
        assert_eq!(snap(&[0, 0], 200, 80), vec![0, 10]);
        assert_eq!(snap(&[80, 90], 200, 80), vec![70, 80]);
        // No room on the side: spread over its middle, as before.
        assert_eq!(snap(&[0, 0, 0], 200, 0), spread(3, 200));
        assert_eq!(snap(&[], 200, 80), Vec::<i64>::new());
    }
}
