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
    // Each node's out-edges (not calls) in document order: chains are made in edge order.
    let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (c, chain) in chains.iter().enumerate() {
        if chain.kind != EdgeKind::Call {
            out_edges[chain.from].push(c);
        }
    }
    for n in 0..nodes.len() {
        let width = node_rect(n).width;
        // Both sides in order of the points their edges head for: [bottom, top].
        let mut sides = [
            std::mem::take(&mut bottom_ports[n]),
            std::mem::take(&mut top_ports[n]),
        ];
        for ports in &mut sides {
            ports.sort_unstable();
        }
        let wanted = sides.each_ref().map(|ports| {
            ports
                .iter()
                .map(|&(x, _)| x - items[n].x)
                .collect::<Vec<i64>>()
        });
        // The out-edges as (side, place on it), in document order: those on one side are in
        // order already (crossing reduction keeps them so); out-edges on both sides (a button
        // that loops back beside one that goes on) must also leave in order across the sides.
        let place = |c: usize| {
            (0..2).find_map(|side| {
                sides[side]
                    .iter()
                    .position(|&(_, d)| d == c)
                    .map(|p| (side, p))
            })
        };
        let outs: Vec<(usize, usize)> = out_edges[n].iter().filter_map(|&c| place(c)).collect();
        let offsets = snap_sides(&wanted, &outs, width, reach(n, width));
        for (end, (ports, offsets)) in sides.iter().zip(offsets).enumerate() {
            for (&(_, c), offset) in ports.iter().zip(offsets) {
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

/// Offsets of the edge ends on a node's two sides (`wanted`: [bottom, top], see [`snap`]),
/// with the node's out-edges (`outs`: (side, place on it) in document order) leaving in that
/// order across both sides, at least [`port_gap`] of all the ends apart where they change
/// side. Each side as [`snap`] puts it when the out-edges leave by one side only; else each
/// end as near its point as the order and `reach` allow, or, when they do not fit, all the
/// ends spread in one order over the middle of the side.
fn snap_sides(
    wanted: &[Vec<i64>; 2],
    outs: &[(usize, usize)],
    width: i64,
    reach: i64,
) -> [Vec<i64>; 2] {
    let one_side = outs.windows(2).all(|w| w[0].0 == w[1].0);
    if one_side {
        return [
            snap(&wanted[0], width, reach),
            snap(&wanted[1], width, reach),
        ];
    }
    // One list of ends, bottom then top, and the least distance between ends that follow
    // each other: along each side, and from each out-edge to the next when it changes side.
    let count = wanted[0].len() + wanted[1].len();
    let index = |(side, p): (usize, usize)| if side == 0 { p } else { wanted[0].len() + p };
    let mut after: Vec<(usize, usize, i64)> = Vec::new();
    for (side, ends) in wanted.iter().enumerate() {
        let gap = port_gap(ends.len(), width);
        for p in 1..ends.len() {
            after.push((index((side, p - 1)), index((side, p)), gap));
        }
    }
    let cross = port_gap(count, width).max(1);
    for w in outs.windows(2) {
        if w[0].0 != w[1].0 {
            after.push((index(w[0]), index(w[1]), cross));
        }
    }
    let mut out: Vec<i64> = wanted
        .iter()
        .flatten()
        .map(|&w| w.clamp(-reach, reach))
        .collect();
    // The constraints form no cycle (each side's order and document order agree), so pushing
    // right, then back left, settles within `count` passes each.
    for _ in 0..count {
        let mut moved = false;
        for &(a, b, gap) in &after {
            if out[b] < out[a] + gap {
                out[b] = out[a] + gap;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    for x in &mut out {
        *x = (*x).min(reach);
    }
    for _ in 0..count {
        let mut moved = false;
        for &(a, b, gap) in &after {
            if out[a] > out[b] - gap {
                out[a] = out[b] - gap;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    if out.iter().any(|&x| x < -reach) {
        // No room: every end its own place in one order that keeps all the constraints
        // (a topological order of them), spread over the middle of the side.
        let mut before = vec![0usize; count];
        for &(_, b, _) in &after {
            before[b] += 1;
        }
        let mut ready: Vec<usize> = (0..count).rev().filter(|&i| before[i] == 0).collect();
        let slots = spread(count, width);
        let mut k = 0;
        while let Some(i) = ready.pop() {
            out[i] = slots[k];
            k += 1;
            for &(a, b, _) in &after {
                if a == i {
                    before[b] -= 1;
                    if before[b] == 0 {
                        ready.push(b);
                    }
                }
            }
        }
    }
    let top = out.split_off(wanted[0].len());
    [out, top]
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

    #[test]
    fn out_edges_leave_in_document_order_across_both_sides() {
        // The first out-edge leaves the bottom heading straight down, the second the top
        // heading left of it (a button that loops back), beside an edge coming in: the second
        // is pushed right of the first, the one coming in keeps its place.
        let wanted = [vec![0], vec![-30, 40]];
        let outs = [(0, 0), (1, 0)];
        assert_eq!(snap_sides(&wanted, &outs, 200, 80), [vec![0], vec![10, 40]]);
        // Out-edges on one side are snapped as before.
        assert_eq!(
            snap_sides(&wanted, &[(1, 0), (1, 1)], 200, 80),
            [vec![0], vec![-30, 40]]
        );
        // No room on the side: one order over its middle, still in document order.
        assert_eq!(snap_sides(&wanted, &outs, 200, 0), [vec![-10], vec![0, 10]]);
    }
}
