//! The layered (Sugiyama) layout: cycle breaking, layering, crossing reduction, coordinates
//! and edge routing, all in whole pixels.
//!
//! The layout is computed top to bottom ("layout space": `x` across layers, `y` along them)
//! and turned for the other directions at the end. Every edge spans at least two layers: the
//! odd layers hold only the points edges pass through ("dummies") and the edge labels, so a
//! label is laid out like a node and can neither cover a node nor another label. An edge is
//! drawn vertically through the band of each layer it crosses (at its own dummy's `x`, which
//! no other box shares) and slanted only in the empty gaps between bands, so it never passes
//! through a node.

use std::collections::BTreeMap;

use botmesh_flow_analyzer::{Direction, EdgeKind, Graph, IMPLICIT_END};

use crate::error::Error;
use crate::font::{Font, displayable};
use crate::picture::{DrawnCluster, DrawnEdge, DrawnLabel, DrawnNode, Picture, Rect, Shape, Theme};
use crate::text::{one_line, wrap};

/// Node text size in pixels.
pub(crate) const NODE_FONT: i64 = 14;
/// Node text line height.
pub(crate) const NODE_LINE: i64 = 17;
/// Edge label and cluster title text size.
pub(crate) const LABEL_FONT: i64 = 12;
/// Edge label line height.
pub(crate) const LABEL_LINE: i64 = 15;
/// Widest node text line.
const NODE_TEXT_WIDTH: i64 = 220;
/// Most wrapped lines of a node's `kind: text`.
const NODE_TEXT_LINES: usize = 3;
/// Widest edge label line.
const LABEL_TEXT_WIDTH: i64 = 150;
/// Most lines of an edge label.
const LABEL_TEXT_LINES: usize = 2;
/// Widest cluster title.
const TITLE_WIDTH: i64 = 300;
/// Padding inside a node, across and along.
const NODE_PAD_X: i64 = 12;
const NODE_PAD_Y: i64 = 8;
/// Padding inside a label box.
pub(crate) const LABEL_PAD: i64 = 3;
/// Space between a label and its edge.
const LABEL_GAP: i64 = 4;
/// Space between two boxes of a layer.
const NODE_SEP: i64 = 24;
/// Space between two edge points of a layer.
const DUMMY_SEP: i64 = 10;
/// Half the width reserved around an edge point.
const DUMMY_HALF: i64 = 2;
/// Empty gap between two layer bands (edges turn only here; at least twice [`ARROW`]).
const RANK_GAP: i64 = 24;
/// Padding inside a cluster.
const CLUSTER_PAD: i64 = 12;
/// Height of a cluster's title band.
const TITLE_BAND: i64 = LABEL_LINE + 6;
/// Space between two clusters.
const CLUSTER_GAP: i64 = 2 * CLUSTER_PAD + TITLE_BAND + 12;
/// Width of a self-loop beside its node.
const LOOP_WIDTH: i64 = 18;
/// Length of an arrow head.
pub(crate) const ARROW: i64 = 8;
/// Margin around the picture.
const MARGIN: i64 = 16;
/// Most sweeps of crossing reduction from one start.
const ORDER_ROUNDS: usize = 24;
/// Sweeps of coordinate assignment.
const PLACE_ROUNDS: usize = 8;
/// Widest spacing between edge ends on one side of a node.
const PORT_SPACING: i64 = 10;
/// The most layout items (a box per node, a point for each layer an edge crosses) of one
/// picture; a larger set is refused with [`Error::TooManyItems`], counted once the layers are
/// known and before anything grows with the items. Memory and time grow with the items (about
/// 350 bytes each at the peak, measured): at the limit a picture takes about 100 MB and one
/// or two seconds. The 500-step benchmark needs 1,301 items, the largest graph of the
/// comparison harness 384, the largest flow the documents allow with a button back to its
/// first step on each of its 500 steps 249,003 (drawn, 1.35 s and 87 MB); a 500-step flow
/// that jumps at random every other step needs about 160,000 (drawn), two of them in one set
/// about 317,000 (refused), one with twenty random cases per step about 3.2 million.
pub const MAX_LAYOUT_ITEMS: usize = 300_000;

/// Options of a layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// Which way edges point.
    pub direction: Direction,
    /// Colours.
    pub theme: Theme,
}

/// One box of the layered graph: a node, an edge point or an edge label.
#[derive(Debug, Clone)]
struct Item {
    layer: usize,
    /// Extent left and right of `x` (asymmetric for labels and nodes with a self-loop).
    left: i64,
    right: i64,
    /// Extent along the layers.
    height: i64,
    /// The cluster (flow) it is kept with.
    flow: usize,
    /// The place of its cluster, left to right (the same in every layer).
    group: usize,
    /// A real node (index in `nodes`), else an edge point.
    node: Option<usize>,
    x: i64,
}

impl Item {
    fn is_dummy(&self) -> bool {
        self.node.is_none()
    }
}

/// One edge between two distinct nodes, as a chain of items top to bottom.
struct Chain {
    items: Vec<usize>,
    /// The edge's source and target nodes.
    from: usize,
    to: usize,
    kind: EdgeKind,
    /// True when drawn against the layout direction.
    reversed: bool,
    /// (label index, the item that reserves its place).
    label: Option<(usize, usize)>,
}

/// A node before layout.
struct NodeBox {
    flow: usize,
    id: String,
    kind: &'static str,
    shape: Shape,
    lines: Vec<String>,
    /// Real size.
    width: i64,
    height: i64,
}

/// The label text and real size.
struct LabelBox {
    lines: Vec<String>,
    width: i64,
    height: i64,
}

fn horizontal(direction: Direction) -> bool {
    matches!(direction, Direction::LR | Direction::RL)
}

/// Lays out a graph, or refuses one that needs more than [`MAX_LAYOUT_ITEMS`] items.
pub(crate) fn layout(font: &Font, graph: &Graph<'_>, options: &Options) -> Result<Picture, Error> {
    let horizontal = horizontal(options.direction);
    // Nodes, their lookup by (flow, id), and the first flow with each id.
    let mut nodes: Vec<NodeBox> = Vec::new();
    let mut lookup: BTreeMap<(usize, &str), usize> = BTreeMap::new();
    let mut flow_ids: BTreeMap<&str, usize> = BTreeMap::new();
    for (f, flow) in graph.flows.iter().enumerate() {
        flow_ids.entry(flow.id).or_insert(f);
        for node in &flow.nodes {
            if lookup.contains_key(&(f, node.id)) {
                continue;
            }
            lookup.insert((f, node.id), nodes.len());
            nodes.push(node_box(font, f, node.id, node.kind, &node.label));
        }
    }
    // Edges (source, target, kind, label) and self-loops.
    let mut labels: Vec<LabelBox> = Vec::new();
    let mut edges: Vec<(usize, usize, EdgeKind, Option<usize>)> = Vec::new();
    for (f, flow) in graph.flows.iter().enumerate() {
        for edge in &flow.edges {
            let Some(&from) = lookup.get(&(f, edge.from)) else {
                continue;
            };
            let to_flow = match edge.to_flow {
                Some(name) => match flow_ids.get(name) {
                    Some(&g) => g,
                    None => continue,
                },
                None => f,
            };
            let Some(&to) = lookup.get(&(to_flow, edge.to)) else {
                continue;
            };
            let label = edge
                .label
                .as_deref()
                .map(|text| displayable(font, text))
                .filter(|text| !text.is_empty())
                .map(|text| {
                    let lines = wrap(font, &text, LABEL_FONT, LABEL_TEXT_WIDTH, LABEL_TEXT_LINES);
                    let width = lines
                        .iter()
                        .map(|l| font.width(l, LABEL_FONT))
                        .max()
                        .unwrap_or(0)
                        + 2 * LABEL_PAD;
                    let height = LABEL_LINE * lines.len() as i64 + 2 * LABEL_PAD;
                    labels.push(LabelBox {
                        lines,
                        width,
                        height,
                    });
                    labels.len() - 1
                });
            edges.push((from, to, edge.kind, label));
        }
    }
    let several = graph.flows.len() > 1;

    // 1. Cycle breaking: a depth-first search in node order; an edge to a node on the stack
    // is reversed.
    let reversed = break_cycles(nodes.len(), &edges);

    // 2. Layering: longest path over the reversed graph, every edge two layers long.
    let layer = assign_layers(nodes.len(), &edges, &reversed);
    // Every layer an edge crosses between its ends holds one of its points: count the items
    // before making them (saturating, so no platform can wrap past the limit).
    let needed = edges
        .iter()
        .filter(|&&(from, to, _, _)| from != to)
        .map(|&(from, to, _, _)| layer[from].abs_diff(layer[to]).saturating_sub(1))
        .fold(nodes.len(), usize::saturating_add);
    if needed > MAX_LAYOUT_ITEMS {
        return Err(Error::TooManyItems {
            items: needed,
            flows: graph.flows.len(),
        });
    }

    // 3. Items: one per node, then the points and labels of each chain.
    let layout_size = |w: i64, h: i64| if horizontal { (h, w) } else { (w, h) };
    let mut items: Vec<Item> = Vec::with_capacity(nodes.len() * 3);
    let mut self_loops: Vec<(usize, EdgeKind, Option<usize>)> = Vec::new();
    for (n, node) in nodes.iter().enumerate() {
        let (w, h) = layout_size(node.width, node.height);
        items.push(Item {
            layer: layer[n],
            left: w / 2,
            right: w - w / 2,
            height: h,
            flow: node.flow,
            group: node.flow,
            node: Some(n),
            x: 0,
        });
    }
    let mut chains: Vec<Chain> = Vec::with_capacity(edges.len());
    // Each out-edge's place among its source's out-edges, in document order (buttons, rows and
    // cases as the document lists them).
    let mut out_count = vec![0usize; nodes.len()];
    let mut fan: Vec<Option<(usize, usize)>> = Vec::new();
    for (e, &(from, to, kind, label)) in edges.iter().enumerate() {
        let rank = out_count[from];
        if kind != EdgeKind::Call {
            out_count[from] += 1;
        }
        if from == to {
            // A self-loop widens its node on the right (the label beside the loop).
            let (lw, lh) = label.map_or((0, 0), |l| layout_size(labels[l].width, labels[l].height));
            let item = &mut items[from];
            item.right += LOOP_WIDTH + if label.is_some() { LABEL_GAP + lw } else { 0 };
            item.height = item.height.max(lh);
            self_loops.push((from, kind, label));
            continue;
        }
        let (top, bottom) = if reversed[e] { (to, from) } else { (from, to) };
        let (first, last) = (layer[top], layer[bottom]);
        let group = nodes[from].flow;
        // The label goes on the odd layer nearest the middle (nodes are on even layers).
        let label_layer = label.map(|_| {
            let middle = first + (last - first) / 2;
            if (middle - first) % 2 == 1 {
                middle
            } else {
                middle - 1
            }
        });
        let mut chain = vec![top];
        let mut reserved = None;
        for l in first + 1..last {
            let index = items.len();
            let mut item = Item {
                layer: l,
                left: DUMMY_HALF,
                right: DUMMY_HALF,
                height: 0,
                flow: group,
                group,
                node: None,
                x: 0,
            };
            if label_layer == Some(l)
                && let Some(label) = label
            {
                let (lw, lh) = layout_size(labels[label].width, labels[label].height);
                item.right = LABEL_GAP + lw;
                item.height = lh;
                reserved = Some((label, index));
            }
            items.push(item);
            chain.push(index);
        }
        chain.push(bottom);
        // The item next to the source on this edge (below it, or above it for an edge drawn
        // back) carries the edge's rank, so crossing reduction can keep the source's
        // out-edges in document order where that costs nothing.
        let beside = if reversed[e] {
            chain[chain.len() - 2]
        } else {
            chain[1]
        };
        fan.resize(items.len(), None);
        // A call leaves for another cluster, placed by the cluster order: not ranked.
        if kind != EdgeKind::Call {
            fan[beside] = Some((from, rank));
        }
        chains.push(Chain {
            items: chain,
            from,
            to,
            kind,
            reversed: reversed[e],
            label: reserved,
        });
    }

    debug_assert_eq!(items.len(), needed, "the items, as counted before");
    fan.resize(items.len(), None);

    // 4. Crossing reduction.
    let layers = layer.iter().copied().max().map_or(0, |m| m + 1);
    let mut up: Vec<Vec<(usize, i64)>> = vec![Vec::new(); items.len()];
    let mut down: Vec<Vec<(usize, i64)>> = vec![Vec::new(); items.len()];
    for chain in &chains {
        for pair in chain.items.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let weight = match (items[a].is_dummy(), items[b].is_dummy()) {
                (true, true) => 8,
                (false, false) => 1,
                _ => 2,
            };
            down[a].push((b, weight));
            up[b].push((a, weight));
        }
    }
    let mut order: Vec<Vec<usize>> = vec![Vec::new(); layers];
    let links = Links {
        up: &up,
        down: &down,
        fan: &fan,
    };
    let crossings = reduce_crossings(&mut items, &links, graph.flows.len(), &mut order);

    // 5. Coordinates across the layers.
    place(&mut items, &up, &down, &order);
    let titles: Vec<String> = if several {
        graph
            .flows
            .iter()
            .map(|flow| one_line(font, &displayable(font, flow.id), LABEL_FONT, TITLE_WIDTH))
            .collect()
    } else {
        Vec::new()
    };
    if several {
        separate_clusters(font, &mut items, &titles, graph.flows.len(), horizontal);
    }
    // Along the layers: each layer's band is as tall as its tallest item.
    let mut band_top = vec![0i64; layers];
    let mut band_height = vec![0i64; layers];
    for item in &items {
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
    let mut port_offset: Vec<(i64, i64)> = vec![(0, 0); chains.len()];
    for (n, ports) in bottom_ports.iter_mut().enumerate() {
        ports.sort_unstable();
        let width = node_rect(n).width;
        for (i, offset) in spread(ports.len(), width).into_iter().enumerate() {
            port_offset[ports[i].1].0 = offset;
        }
    }
    for (n, ports) in top_ports.iter_mut().enumerate() {
        ports.sort_unstable();
        let width = node_rect(n).width;
        for (i, offset) in spread(ports.len(), width).into_iter().enumerate() {
            port_offset[ports[i].1].1 = offset;
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
        let sx = items[source].x + port_offset[c].0;
        let band_bottom = band_top[items[source].layer] + band_height[items[source].layer];
        points.push((sx, source_rect.bottom()));
        points.push((sx, band_bottom.max(source_rect.bottom() + ARROW)));
        for &d in &chain.items[1..n - 1] {
            let item = &items[d];
            points.push((item.x, band_top[item.layer]));
            points.push((item.x, band_top[item.layer] + band_height[item.layer]));
        }
        let tx = items[target].x + port_offset[c].1;
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
    for &(n, kind, label) in &self_loops {
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
    if several {
        for g in 0..graph.flows.len() {
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

    // 7. Turn to the direction, add the cluster titles, and move everything into the margin.
    let layout_height = y;
    let turn_point = |(x, y): (i64, i64)| match options.direction {
        Direction::TD => (x, y),
        Direction::BT => (x, layout_height - y),
        Direction::LR => (y, x),
        Direction::RL => (layout_height - y, x),
    };
    let turn = |r: Rect| match options.direction {
        Direction::TD => r,
        Direction::BT => Rect {
            y: layout_height - r.bottom(),
            ..r
        },
        Direction::LR => Rect {
            x: r.y,
            y: r.x,
            width: r.height,
            height: r.width,
        },
        Direction::RL => Rect {
            x: layout_height - r.bottom(),
            y: r.x,
            width: r.height,
            height: r.width,
        },
    };
    let mut clusters: Vec<DrawnCluster> = cluster_rects
        .into_iter()
        .zip(titles)
        .map(|(rect, title)| {
            let mut rect = turn(rect);
            rect.y -= TITLE_BAND;
            rect.height += TITLE_BAND;
            let need = font.width(&title, LABEL_FONT) + 2 * CLUSTER_PAD;
            rect.width = rect.width.max(need);
            DrawnCluster { title, rect }
        })
        .collect();
    let node_rects: Vec<Rect> = (0..nodes.len()).map(node_rect).collect();
    let mut drawn_nodes: Vec<DrawnNode> = nodes
        .into_iter()
        .zip(node_rects)
        .map(|(node, rect)| DrawnNode {
            rect: turn(rect),
            flow: node.flow,
            id: node.id,
            kind: node.kind,
            shape: node.shape,
            lines: node.lines,
        })
        .collect();
    let mut drawn_labels: Vec<DrawnLabel> = labels
        .into_iter()
        .zip(label_rects)
        .map(|(label, rect)| DrawnLabel {
            rect: turn(rect),
            lines: label.lines,
        })
        .collect();
    for edge in &mut drawn_edges {
        for point in &mut edge.points {
            *point = turn_point(*point);
        }
    }
    // Bounds of everything, then a shift into the margin.
    let mut min = (i64::MAX, i64::MAX);
    let mut max = (i64::MIN, i64::MIN);
    let mut grow = |r: &Rect| {
        min = (min.0.min(r.x), min.1.min(r.y));
        max = (max.0.max(r.right()), max.1.max(r.bottom()));
    };
    drawn_nodes.iter().for_each(|n| grow(&n.rect));
    drawn_labels.iter().for_each(|l| grow(&l.rect));
    clusters.iter().for_each(|c| grow(&c.rect));
    for edge in &drawn_edges {
        for &(x, y) in &edge.points {
            grow(&Rect {
                x,
                y,
                width: 0,
                height: 0,
            });
        }
    }
    if min.0 > max.0 {
        min = (0, 0);
        max = (0, 0);
    }
    let (dx, dy) = (MARGIN - min.0, MARGIN - min.1);
    let shift = |r: &mut Rect| {
        r.x += dx;
        r.y += dy;
    };
    drawn_nodes.iter_mut().for_each(|n| shift(&mut n.rect));
    drawn_labels.iter_mut().for_each(|l| shift(&mut l.rect));
    clusters.iter_mut().for_each(|c| shift(&mut c.rect));
    for edge in &mut drawn_edges {
        for point in &mut edge.points {
            point.0 += dx;
            point.1 += dy;
        }
    }
    Ok(Picture {
        width: max.0 - min.0 + 2 * MARGIN,
        height: max.1 - min.1 + 2 * MARGIN,
        theme: options.theme,
        clusters,
        nodes: drawn_nodes,
        edges: drawn_edges,
        labels: drawn_labels,
        crossings,
    })
}

/// The text and size of a node.
fn node_box(font: &Font, flow: usize, id: &str, kind: &'static str, label: &str) -> NodeBox {
    let shape = Shape::of_kind(kind);
    let mut lines = Vec::new();
    if id == IMPLICIT_END {
        lines.push(IMPLICIT_END.to_owned());
    } else {
        lines.push(one_line(
            font,
            &displayable(font, id),
            NODE_FONT,
            NODE_TEXT_WIDTH,
        ));
        let text = displayable(font, label);
        let body = if text.is_empty() {
            kind.to_owned()
        } else {
            format!("{kind}: {text}")
        };
        lines.extend(wrap(
            font,
            &body,
            NODE_FONT,
            NODE_TEXT_WIDTH,
            NODE_TEXT_LINES,
        ));
    }
    let text_width = lines
        .iter()
        .map(|l| font.width(l, NODE_FONT))
        .max()
        .unwrap_or(0);
    let height = NODE_LINE * lines.len() as i64 + 2 * NODE_PAD_Y;
    let width = (text_width + 2 * NODE_PAD_X + shape.extra_width(height)).max(60);
    NodeBox {
        flow,
        id: id.to_owned(),
        kind,
        shape,
        lines,
        width,
        height,
    }
}

/// Offsets of `count` edge ends spread over the middle of a side `width` long.
fn spread(count: usize, width: i64) -> Vec<i64> {
    if count <= 1 {
        return vec![0; count];
    }
    let slots = count as i64 - 1;
    let spacing = PORT_SPACING.min((width / 2) / slots);
    (0..count as i64)
        .map(|i| (2 * i - slots) * spacing / 2)
        .collect()
}

/// Marks the edges a depth-first search finds going back to a node on its stack; reversing
/// them leaves a graph without cycles. Roots are taken in node order, so the entry comes first.
fn break_cycles(count: usize, edges: &[(usize, usize, EdgeKind, Option<usize>)]) -> Vec<bool> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (e, &(from, to, _, _)) in edges.iter().enumerate() {
        if from != to {
            out[from].push(e);
        }
    }
    // 0: unseen, 1: on the stack, 2: done.
    let mut state = vec![0u8; count];
    let mut reversed = vec![false; edges.len()];
    for root in 0..count {
        if state[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&e) = out[node].get(*next) {
                *next += 1;
                let to = edges[e].1;
                match state[to] {
                    0 => {
                        state[to] = 1;
                        stack.push((to, 0));
                    }
                    1 => reversed[e] = true,
                    _ => {}
                }
            } else {
                state[node] = 2;
                stack.pop();
            }
        }
    }
    reversed
}

/// Layers by longest path from the sources (every edge two layers long), then each source
/// pulled down next to its first successor.
fn assign_layers(
    count: usize,
    edges: &[(usize, usize, EdgeKind, Option<usize>)],
    reversed: &[bool],
) -> Vec<usize> {
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); count];
    let mut indegree = vec![0usize; count];
    for (e, &(from, to, _, _)) in edges.iter().enumerate() {
        if from == to {
            continue;
        }
        let (a, b) = if reversed[e] { (to, from) } else { (from, to) };
        succ[a].push(b);
        indegree[b] += 1;
    }
    let sources: Vec<bool> = indegree.iter().map(|&d| d == 0).collect();
    let mut layer = vec![0usize; count];
    let mut ready: Vec<usize> = (0..count).rev().filter(|&n| indegree[n] == 0).collect();
    let mut topological = Vec::with_capacity(count);
    while let Some(n) = ready.pop() {
        topological.push(n);
        for &m in &succ[n] {
            layer[m] = layer[m].max(layer[n] + 2);
            indegree[m] -= 1;
            if indegree[m] == 0 {
                ready.push(m);
            }
        }
    }
    for &n in topological.iter().rev() {
        if sources[n]
            && let Some(lowest) = succ[n].iter().map(|&m| layer[m]).min()
        {
            layer[n] = layer[n].max(lowest.saturating_sub(2));
        }
    }
    // Shorter edges: each node moves, within what its edges allow, to the median layer of its
    // neighbours (a few passes; every move shortens the total edge length or keeps it).
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (a, list) in succ.iter().enumerate() {
        for &b in list {
            pred[b].push(a);
        }
    }
    let mut neighbours = Vec::new();
    for _ in 0..4 {
        let mut moved = false;
        for &n in &topological {
            let low = pred[n].iter().map(|&m| layer[m] + 2).max().unwrap_or(0);
            let high = succ[n]
                .iter()
                .map(|&m| layer[m] - 2)
                .min()
                .unwrap_or(usize::MAX);
            neighbours.clear();
            neighbours.extend(pred[n].iter().chain(&succ[n]).map(|&m| layer[m]));
            if neighbours.is_empty() || low > high {
                continue;
            }
            neighbours.sort_unstable();
            let median = neighbours[(neighbours.len() - 1) / 2];
            let best = median.clamp(low, high);
            let cost = |l: usize| neighbours.iter().map(|&m| l.abs_diff(m)).sum::<usize>();
            if best != layer[n] && cost(best) < cost(layer[n]) {
                layer[n] = best;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    let lowest = layer.iter().copied().min().unwrap_or(0);
    for l in &mut layer {
        *l -= lowest;
    }
    layer
}

/// Crossings between two adjacent layers, from the positions of each edge's ends; `tree` is
/// scratch space.
fn count_between(pairs: &mut [(usize, usize)], tree: &mut Vec<usize>) -> usize {
    pairs.sort_unstable();
    // Inversions of the lower ends, counted with a Fenwick tree.
    let size = pairs.iter().map(|p| p.1).max().map_or(0, |m| m + 1);
    tree.clear();
    tree.resize(size + 1, 0);
    let mut crossings = 0;
    for (seen, &(_, b)) in pairs.iter().enumerate() {
        // Earlier edges whose lower end is at most b do not cross this one.
        let mut at = b + 1;
        let mut not_crossing = 0;
        while at > 0 {
            not_crossing += tree[at];
            at &= at - 1;
        }
        crossings += seen - not_crossing;
        let mut at = b + 1;
        while at <= size {
            tree[at] += 1;
            at += at & at.wrapping_neg();
        }
    }
    crossings
}

/// All crossings of an order.
fn total_crossings(down: &[Vec<(usize, i64)>], order: &[Vec<usize>], position: &[usize]) -> usize {
    let mut total = 0;
    let mut pairs = Vec::new();
    let mut tree = Vec::new();
    for row in order {
        pairs.clear();
        for &a in row {
            for &(b, _) in &down[a] {
                pairs.push((position[a], position[b]));
            }
        }
        total += count_between(&mut pairs, &mut tree);
    }
    total
}

fn positions(order: &[Vec<usize>], position: &mut [usize]) {
    for row in order {
        for (p, &i) in row.iter().enumerate() {
            position[i] = p;
        }
    }
}

/// How an order of the layers begins, before sweeps improve it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    /// Document order (items in the order they were made).
    Document,
    /// The order in which a depth-first search reaches the items: from the top layer down or
    /// from the bottom up, roots and children in document order or in reverse, the result
    /// mirrored or not.
    Search {
        upward: bool,
        roots_backward: bool,
        children_backward: bool,
        mirror: bool,
    },
}

/// Shorthand for a [`Start::Search`].
const fn search(
    upward: bool,
    roots_backward: bool,
    children_backward: bool,
    mirror: bool,
) -> Start {
    Start::Search {
        upward,
        roots_backward,
        children_backward,
        mirror,
    }
}

/// The starts of crossing reduction, in the order they are tried: every graph gets the first
/// [`LARGE_STARTS`], a graph of at most [`SMALL_GRAPH`] items all of them. Chosen by measurement
/// on the comparison harness (`tools/render-compare`): each one, added in this order, lowered
/// the total of crossings.
const STARTS: [Start; 10] = [
    Start::Document,
    search(false, false, false, false),
    search(true, false, false, false),
    search(false, true, true, false),
    search(true, true, true, false),
    search(true, false, false, true),
    search(false, true, false, false),
    search(false, false, false, true),
    search(true, true, true, true),
    search(false, false, true, false),
];
/// Starts tried on a graph of more than [`SMALL_GRAPH`] items.
const LARGE_STARTS: usize = 5;
/// The most items (nodes, edge points, labels) of a graph that gets every start (a few
/// milliseconds at most).
const SMALL_GRAPH: usize = 1000;
/// Rounds without improvement after which a start stops.
const PATIENCE: usize = 4;
/// The most work crossing reduction does on one graph, in neighbour pairs compared (see
/// [`Work`]): once spent, the current round ends and no further start or cluster order is
/// tried, so a hostile flow costs a bounded time, the same on every machine.
const ORDER_WORK: u64 = 100_000_000;

/// Work done by crossing reduction, counted in the neighbour pairs that crossing counts
/// compare: deterministic, unlike a clock.
#[derive(Debug)]
struct Work {
    done: u64,
    limit: u64,
}

impl Work {
    /// Counts `pairs` compared.
    fn add(&mut self, pairs: usize) {
        self.done = self.done.saturating_add(pairs as u64);
    }

    /// Whether the budget is spent.
    fn spent(&self) -> bool {
        self.done >= self.limit
    }
}

/// The first order of a start: items appended to their layer in document order or in the
/// order a depth-first search first reaches them (possibly mirrored), then grouped by
/// cluster (stable, so each cluster keeps that order).
fn initial_order(
    start: Start,
    items: &[Item],
    up: &[Vec<(usize, i64)>],
    down: &[Vec<(usize, i64)>],
    layers: usize,
) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); layers];
    let mirror = match start {
        Start::Document => {
            for (i, item) in items.iter().enumerate() {
                out[item.layer].push(i);
            }
            false
        }
        Start::Search {
            upward,
            roots_backward,
            children_backward,
            mirror,
        } => {
            let mut roots: Vec<usize> = (0..items.len()).collect();
            if roots_backward {
                roots.reverse();
            }
            // Stable: within a layer, roots keep the order chosen above.
            if upward {
                roots.sort_by_key(|&i| std::cmp::Reverse(items[i].layer));
            } else {
                roots.sort_by_key(|&i| items[i].layer);
            }
            let next = if upward { up } else { down };
            let mut seen = vec![false; items.len()];
            let mut stack: Vec<usize> = Vec::new();
            for root in roots {
                stack.push(root);
                while let Some(i) = stack.pop() {
                    if seen[i] {
                        continue;
                    }
                    seen[i] = true;
                    out[items[i].layer].push(i);
                    // Pushed so the first child to visit is popped first.
                    let children = next[i].iter().map(|&(j, _)| j).filter(|&j| !seen[j]);
                    if children_backward {
                        stack.extend(children);
                    } else {
                        let from = stack.len();
                        stack.extend(children);
                        stack[from..].reverse();
                    }
                }
            }
            mirror
        }
    };
    for row in &mut out {
        if mirror {
            row.reverse();
        }
        row.sort_by_key(|&i| items[i].group);
    }
    out
}

/// Orders of the clusters to try, each a list of flows left to right: for three or four
/// clusters every order up to mirroring (a heuristic: the mirrored order keeps each cluster's
/// inner starting order and tie-breaks, so its layout is close to, not exactly, the mirror
/// image), else
/// document order.
fn cluster_orders(clusters: usize) -> Vec<Vec<usize>> {
    let mut current: Vec<usize> = (0..clusters).collect();
    if !(3..=4).contains(&clusters) {
        return vec![current];
    }
    let mut out = Vec::new();
    // Permutations in lexicographic order, document order first.
    loop {
        if current[0] < current[clusters - 1] {
            out.push(current.clone());
        }
        let Some(i) = (0..clusters - 1)
            .rev()
            .find(|&i| current[i] < current[i + 1])
        else {
            break;
        };
        let j = (i + 1..clusters)
            .rev()
            .find(|&j| current[j] > current[i])
            .unwrap_or(i + 1);
        current.swap(i, j);
        current[i + 1..].reverse();
    }
    out
}

/// The edges between layers, both ways, and the out-edge ranks that crossing reduction keeps
/// in document order when that costs no crossing.
pub(crate) struct Links<'a> {
    /// Each item's neighbours in the layer above, with their weight.
    pub(crate) up: &'a [Vec<(usize, i64)>],
    /// Each item's neighbours in the layer below, with their weight.
    pub(crate) down: &'a [Vec<(usize, i64)>],
    /// For the item next to a node on one of its out-edges: (the node, the edge's rank among
    /// the node's out-edges in document order).
    pub(crate) fan: &'a [Option<(usize, usize)>],
}

/// Pairs of out-edges of one node, leaving on the same side, drawn in the opposite of their
/// document order (the second edge's item left of the first's).
fn inversions(fan: &[Option<(usize, usize)>], items: &[Item], position: &[usize]) -> usize {
    // (source, layer) -> [(rank, position)], in item order.
    let mut sides: BTreeMap<(usize, usize), Vec<(usize, usize)>> = BTreeMap::new();
    for (i, f) in fan.iter().enumerate() {
        if let Some((source, rank)) = *f {
            sides
                .entry((source, items[i].layer))
                .or_default()
                .push((rank, position[i]));
        }
    }
    let mut count = 0;
    for list in sides.values() {
        for (k, a) in list.iter().enumerate() {
            count += list[k + 1..]
                .iter()
                .filter(|b| (b.0 > a.0) != (b.1 > a.1))
                .count();
        }
    }
    count
}

/// How good an order is: fewest crossings first, then fewest out-edges out of document order.
type Score = (usize, usize);

fn score(links: &Links<'_>, items: &[Item], order: &[Vec<usize>], position: &[usize]) -> Score {
    (
        total_crossings(links.down, order, position),
        inversions(links.fan, items, position),
    )
}

/// Crossing reduction: sweeps with transposition and sifting from the first start in each
/// cluster order, then from the other starts (see [`STARTS`]) in the best cluster order; keeps
/// the order with the fewest crossings, and among those the fewest out-edges out of document
/// order (the first found on a tie), writes it to `order` (and each item's cluster place to
/// `group`) and returns its crossings. Last, each cluster's mirror image is tried, kept when
/// it is at least as good and has fewer out-edges out of order.
fn reduce_crossings(
    items: &mut [Item],
    links: &Links<'_>,
    clusters: usize,
    order: &mut [Vec<usize>],
) -> usize {
    let (up, down) = (links.up, links.down);
    let starts = if items.len() <= SMALL_GRAPH {
        &STARTS[..]
    } else {
        &STARTS[..LARGE_STARTS]
    };
    let mut position = vec![0usize; items.len()];
    let layers = order.len();
    let mut work = Work {
        done: 0,
        limit: ORDER_WORK,
    };
    // The best score so far, its order and the cluster place of each flow (the first found on
    // a tie).
    let mut best = Best {
        score: (usize::MAX, usize::MAX),
        order: Vec::new(),
        place: vec![0; clusters],
    };
    let mut attempt =
        |items: &mut [Item], (start, ranked): (Start, bool), place: &[usize], best: &mut Best| {
            for item in items.iter_mut() {
                item.group = place[item.flow];
            }
            let mut candidate = initial_order(start, items, up, down, layers);
            let found = improve(
                items,
                links,
                &mut candidate,
                &mut position,
                &mut work,
                ranked,
            );
            if found < best.score {
                *best = Best {
                    score: found,
                    order: candidate,
                    place: place.to_vec(),
                };
            }
            work.spent()
        };
    // The first start in every cluster order, then the other starts in the best one.
    // `attempt` tells whether the work budget is spent.
    let mut place = vec![0usize; clusters];
    let mut spent = false;
    for flows in cluster_orders(clusters) {
        for (g, &f) in flows.iter().enumerate() {
            place[f] = g;
        }
        spent = attempt(items, (starts[0], false), &place, &mut best);
        if best.score == (0, 0) || spent {
            break;
        }
    }
    let best_place = best.place.clone();
    // The other starts, then every start again with out-edges kept in document order where
    // their barycenters tie (orders that read better, and on the harness fewer crossings:
    // 415 against 455 with the first start alone). A graph of more than SMALL_GRAPH items
    // runs only the first start that second way (each start costs about as much as the rest
    // of the layout there).
    let others = starts[1..].iter().map(|&start| (start, false));
    let ranked = if items.len() <= SMALL_GRAPH {
        starts
    } else {
        &starts[..1]
    };
    for start in others.chain(ranked.iter().map(|&s| (s, true))) {
        if best.score == (0, 0) || spent {
            break;
        }
        spent = attempt(items, start, &best_place, &mut best);
    }
    for item in items.iter_mut() {
        item.group = best.place[item.flow];
    }
    order.clone_from_slice(&best.order);
    // A cluster drawn as its mirror image crosses itself as often; keep the mirror when the
    // whole picture is no worse and more out-edges read in document order.
    let mut position = vec![0usize; items.len()];
    positions(order, &mut position);
    for g in 0..clusters {
        if best.score.1 == 0 {
            break;
        }
        let mut mirrored = order.to_vec();
        for row in &mut mirrored {
            let Some(start) = row.iter().position(|&i| items[i].group == g) else {
                continue;
            };
            let end = row
                .iter()
                .rposition(|&i| items[i].group == g)
                .map_or(start, |e| e + 1);
            row[start..end].reverse();
        }
        positions(&mirrored, &mut position);
        let found = score(links, items, &mirrored, &position);
        if found < best.score {
            best.score = found;
            order.clone_from_slice(&mirrored);
        } else {
            positions(order, &mut position);
        }
    }
    if best.score.1 > 0 && !work.spent() {
        best.score = repair_fans(items, links, order, &mut position, best.score);
    }
    best.score.0
}

/// Puts the out-edges of each node back in document order where that costs no crossing: for
/// each node whose out-edges leave one side out of order, their first items are permuted into
/// document order among the places they hold, then also the rest of each edge's points, then
/// also the targets that only this edge reaches; the first of these that scores better is kept.
fn repair_fans(
    items: &[Item],
    links: &Links<'_>,
    order: &mut [Vec<usize>],
    position: &mut [usize],
    mut current: Score,
) -> Score {
    // Fans by (source, layer): their items in rank order.
    let mut fans: BTreeMap<(usize, usize), Vec<(usize, usize)>> = BTreeMap::new();
    for (i, f) in links.fan.iter().enumerate() {
        if let Some((source, rank)) = *f {
            fans.entry((source, items[i].layer))
                .or_default()
                .push((rank, i));
        }
    }
    for ((source, layer), mut fan) in fans {
        if fan.len() < 2 {
            continue;
        }
        fan.sort_unstable();
        if fan.windows(2).all(|w| position[w[0].1] < position[w[1].1]) {
            continue;
        }
        let downward = layer > items[source].layer;
        let next = if downward { links.down } else { links.up };
        for depth in 0..3 {
            // (layer -> [(rank, item)]) of the branches to permute.
            let mut moved: BTreeMap<usize, Vec<(usize, usize)>> = BTreeMap::new();
            for &(rank, first) in &fan {
                let mut at = first;
                loop {
                    moved.entry(items[at].layer).or_default().push((rank, at));
                    if depth == 0 {
                        break;
                    }
                    let Some(&(after, _)) = next[at].first() else {
                        break;
                    };
                    if next[at].len() != 1 {
                        break;
                    }
                    if items[after].is_dummy() {
                        at = after;
                        continue;
                    }
                    // A target reached by this edge alone moves with it.
                    let only = if downward {
                        links.up[after].len() == 1
                    } else {
                        links.down[after].len() == 1
                    };
                    if depth == 2 && only && items[after].group == items[source].group {
                        moved
                            .entry(items[after].layer)
                            .or_default()
                            .push((rank, after));
                    }
                    break;
                }
            }
            let mut trial = order.to_vec();
            for (&l, list) in &moved {
                let mut places: Vec<usize> = list.iter().map(|&(_, i)| position[i]).collect();
                places.sort_unstable();
                let mut ranked = list.clone();
                ranked.sort_unstable();
                for (&place, &(_, i)) in places.iter().zip(&ranked) {
                    trial[l][place] = i;
                }
            }
            let mut trial_position = position.to_vec();
            positions(&trial, &mut trial_position);
            let found = score(links, items, &trial, &trial_position);
            if found < current {
                current = found;
                order.clone_from_slice(&trial);
                position.copy_from_slice(&trial_position);
                break;
            }
        }
    }
    current
}

/// The best order crossing reduction has found so far.
#[derive(Debug)]
struct Best {
    score: Score,
    order: Vec<Vec<usize>>,
    /// Each flow's place among the clusters, left to right.
    place: Vec<usize>,
}

/// Barycenter sweeps, alternately down and up, each followed by transposition and sifting,
/// until [`PATIENCE`] rounds in a row bring no improvement (at most [`ORDER_ROUNDS`]). Ties keep
/// the out-edges of one node in document order, then the current order, or reverse it every
/// other pair of sweeps (so equal items are tried both ways round). Leaves the best order seen
/// in `order` (fewest crossings, then fewest out-edges out of document order) and returns its
/// score.
fn improve(
    items: &[Item],
    links: &Links<'_>,
    order: &mut [Vec<usize>],
    position: &mut [usize],
    work: &mut Work,
    ranked: bool,
) -> Score {
    let (up, down) = (links.up, links.down);
    positions(order, position);
    transpose(items, up, down, order, position, work);
    sift(items, up, down, order, position, work);
    let mut best = score(links, items, order, position);
    let mut best_order = order.to_vec();
    let mut stale = 0;
    let mut keyed: Vec<(usize, i64, usize, usize, usize)> = Vec::new();
    for round in 0..ORDER_ROUNDS {
        if best == (0, 0) || stale >= PATIENCE || work.spent() {
            break;
        }
        let downward = round % 2 == 0;
        let reverse_ties = (round / 2) % 2 == 1;
        let layers: Vec<usize> = if downward {
            (1..order.len()).collect()
        } else {
            (0..order.len().saturating_sub(1)).rev().collect()
        };
        let neighbours = if downward { up } else { down };
        for l in layers {
            keyed.clear();
            keyed.extend(order[l].iter().map(|&i| {
                let list = &neighbours[i];
                // Barycenter in 1/1024 positions; an item without neighbours keeps its place.
                let key = if list.is_empty() {
                    position[i] as i64 * 1024
                } else {
                    list.iter()
                        .map(|&(j, _)| position[j] as i64 * 1024)
                        .sum::<i64>()
                        / list.len() as i64
                };
                let tie = if reverse_ties {
                    usize::MAX - position[i]
                } else {
                    position[i]
                };
                // With `ranked`, out-edges of one node sharing a barycenter keep document order.
                let rank = if ranked {
                    links.fan[i].map_or(0, |(_, rank)| rank)
                } else {
                    0
                };
                (items[i].group, key, rank, tie, i)
            }));
            keyed.sort_unstable();
            for (p, k) in keyed.iter().enumerate() {
                order[l][p] = k.4;
                position[k.4] = p;
            }
        }
        transpose(items, up, down, order, position, work);
        sift(items, up, down, order, position, work);
        let found = score(links, items, order, position);
        if found < best {
            best = found;
            best_order.clone_from_slice(order);
            stale = 0;
        } else {
            stale += 1;
        }
    }
    order.clone_from_slice(&best_order);
    best
}

/// Crossings among the edges of `u` and `v` (with both neighbour layers) when `u` is left of
/// `v`.
fn pair_crossings(
    u: usize,
    v: usize,
    up: &[Vec<(usize, i64)>],
    down: &[Vec<(usize, i64)>],
    position: &[usize],
    work: &mut Work,
) -> usize {
    work.add(up[u].len() * up[v].len() + down[u].len() * down[v].len() + 1);
    let mut count = 0;
    for lists in [up, down] {
        for &(a, _) in &lists[u] {
            for &(b, _) in &lists[v] {
                if position[a] > position[b] {
                    count += 1;
                }
            }
        }
    }
    count
}

/// Swaps neighbours of the same cluster while that lowers crossings (a few passes, while
/// `work` lasts).
fn transpose(
    items: &[Item],
    up: &[Vec<(usize, i64)>],
    down: &[Vec<(usize, i64)>],
    order: &mut [Vec<usize>],
    position: &mut [usize],
    work: &mut Work,
) {
    for _ in 0..4 {
        if work.spent() {
            break;
        }
        let mut improved = false;
        for row in order.iter_mut() {
            for p in 0..row.len().saturating_sub(1) {
                let (u, v) = (row[p], row[p + 1]);
                if items[u].group != items[v].group {
                    continue;
                }
                if pair_crossings(v, u, up, down, position, work)
                    < pair_crossings(u, v, up, down, position, work)
                {
                    row.swap(p, p + 1);
                    position[u] = p + 1;
                    position[v] = p;
                    improved = true;
                }
            }
        }
        if !improved {
            break;
        }
    }
}

/// Sifting: each item in turn moves to the place in its layer (among its cluster) where its
/// edges cross the fewest others; ties keep the item where it is. Layer by layer while `work`
/// lasts.
fn sift(
    items: &[Item],
    up: &[Vec<(usize, i64)>],
    down: &[Vec<(usize, i64)>],
    order: &mut [Vec<usize>],
    position: &mut [usize],
    work: &mut Work,
) {
    for row in order.iter_mut() {
        if work.spent() {
            return;
        }
        // Quadratic in the layer's width: very wide layers keep the sweeps' order.
        if row.len() < 3 || row.len() > 400 {
            continue;
        }
        for &u in row.clone().iter() {
            let from = position[u];
            let group = items[u].group;
            let start = row
                .iter()
                .position(|&v| items[v].group == group)
                .unwrap_or(0);
            let end = row
                .iter()
                .rposition(|&v| items[v].group == group)
                .map_or(row.len(), |e| e + 1);
            // Cost of each insertion place relative to the leftmost one of the cluster.
            let mut cost = 0i64;
            let mut best = (0i64, start);
            let mut at_from = None;
            let mut slot = start;
            for &v in &row[start..end] {
                if v == u {
                    continue;
                }
                if slot == from {
                    at_from = Some(cost);
                }
                cost += pair_crossings(v, u, up, down, position, work) as i64
                    - pair_crossings(u, v, up, down, position, work) as i64;
                slot += 1;
                if cost < best.0 {
                    best = (cost, slot);
                }
            }
            if slot == from {
                at_from = Some(cost);
            }
            let current = at_from.unwrap_or(0);
            if best.0 < current && best.1 != from {
                let item = row.remove(from);
                row.insert(best.1, item);
                for (p, &i) in row.iter().enumerate() {
                    position[i] = p;
                }
            }
        }
    }
}

/// The least space between two neighbours of a layer.
fn separation(a: &Item, b: &Item) -> i64 {
    let gap = if a.group != b.group {
        CLUSTER_GAP
    } else if a.is_dummy() && b.is_dummy() {
        DUMMY_SEP
    } else {
        NODE_SEP
    };
    a.right + gap + b.left
}

/// Coordinates across the layers: each layer in turn is placed as near as its order allows
/// to the weighted mean of its neighbours (a weighted isotonic regression, solved exactly by
/// pooling adjacent violators), sweeping down and up; edge points weigh most, so long edges
/// stay straight.
fn place(
    items: &mut [Item],
    up: &[Vec<(usize, i64)>],
    down: &[Vec<(usize, i64)>],
    order: &[Vec<usize>],
) {
    for row in order {
        let mut x = 0;
        for (p, &i) in row.iter().enumerate() {
            if p > 0 {
                x += separation(&items[row[p - 1]], &items[i]);
            }
            items[i].x = x;
        }
    }
    for round in 0..PLACE_ROUNDS {
        let layers: Vec<usize> = if round % 2 == 0 {
            (0..order.len()).collect()
        } else {
            (0..order.len()).rev().collect()
        };
        for l in layers {
            let row = &order[l];
            let targets: Vec<(i64, i64)> = row
                .iter()
                .map(|&i| {
                    let own = items[i].x;
                    let mut weight = 1i64;
                    let mut sum = own;
                    let lists: &[&Vec<(usize, i64)>] = match round {
                        r if r + 1 == PLACE_ROUNDS => &[&up[i], &down[i]],
                        r if r % 2 == 0 => &[&up[i]],
                        _ => &[&down[i]],
                    };
                    for list in lists {
                        for &(j, w) in list.iter() {
                            weight += 16 * w;
                            sum += 16 * w * items[j].x;
                        }
                    }
                    (sum.div_euclid(weight), weight)
                })
                .collect();
            let placed = pool(
                row.iter()
                    .map(|&i| &items[i])
                    .collect::<Vec<_>>()
                    .as_slice(),
                &targets,
            );
            for (p, &i) in row.iter().enumerate() {
                items[i].x = placed[p];
            }
        }
    }
}

/// Positions for the items of one layer (in order) closest to `targets` (value, weight) in the
/// weighted least-squares sense, keeping each pair at least [`separation`] apart.
fn pool(row: &[&Item], targets: &[(i64, i64)]) -> Vec<i64> {
    let mut offsets = Vec::with_capacity(row.len());
    let mut offset = 0;
    for p in 0..row.len() {
        if p > 0 {
            offset += separation(row[p - 1], row[p]);
        }
        offsets.push(offset);
    }
    // Blocks of (weight sum, weighted target sum, count).
    let mut blocks: Vec<(i128, i128, usize)> = Vec::with_capacity(row.len());
    let value = |b: &(i128, i128, usize)| b.1.div_euclid(b.0);
    for (p, &(target, weight)) in targets.iter().enumerate() {
        let t = i128::from(target - offsets[p]);
        let w = i128::from(weight);
        blocks.push((w, w * t, 1));
        while blocks.len() > 1 {
            let last = blocks[blocks.len() - 1];
            let previous = blocks[blocks.len() - 2];
            if value(&previous) <= value(&last) {
                break;
            }
            blocks.pop();
            let merged = blocks.len() - 1;
            blocks[merged] = (
                previous.0 + last.0,
                previous.1 + last.1,
                previous.2 + last.2,
            );
        }
    }
    let mut out = Vec::with_capacity(row.len());
    for block in &blocks {
        let v = value(block) as i64;
        for _ in 0..block.2 {
            out.push(v + offsets[out.len()]);
        }
    }
    out
}

/// Moves whole clusters apart across the layers, so their boxes (title included) never
/// overlap; clusters keep their left-to-right order (`group`), which every layer shares.
fn separate_clusters(
    font: &Font,
    items: &mut [Item],
    titles: &[String],
    groups: usize,
    horizontal: bool,
) {
    let mut extent: Vec<Option<(i64, i64)>> = vec![None; groups];
    let mut flow_at = vec![0usize; groups];
    for item in items.iter() {
        flow_at[item.group] = item.flow;
        let (a, b) = (item.x - item.left, item.x + item.right);
        let e = &mut extent[item.group];
        *e = Some(e.map_or((a, b), |(x0, x1)| (x0.min(a), x1.max(b))));
    }
    let mut shift = vec![0i64; groups];
    let mut reach: Option<i64> = None;
    for g in 0..groups {
        let Some((x0, mut x1)) = extent[g] else {
            continue;
        };
        if !horizontal {
            // Across the layers is the cluster's width: room for its title.
            x1 = x1.max(x0 + font.width(&titles[flow_at[g]], LABEL_FONT));
        }
        let delta = reach.map_or(0, |r| r + CLUSTER_GAP - x0);
        shift[g] = delta;
        reach = Some(x1 + delta);
    }
    for item in items.iter_mut() {
        item.x += shift[item.group];
    }
}

#[cfg(test)]
mod order_tests {
    use super::*;

    fn item(layer: usize) -> Item {
        Item {
            layer,
            left: 1,
            right: 1,
            height: 1,
            flow: 0,
            group: 0,
            node: None,
            x: 0,
        }
    }

    #[test]
    fn cluster_orders_are_every_order_up_to_mirroring_document_order_first() {
        assert_eq!(cluster_orders(2), vec![vec![0, 1]]);
        assert_eq!(
            cluster_orders(3),
            vec![vec![0, 1, 2], vec![0, 2, 1], vec![1, 0, 2]]
        );
        let four = cluster_orders(4);
        assert_eq!(four.len(), 12);
        assert_eq!(four[0], vec![0, 1, 2, 3]);
        assert_eq!(cluster_orders(5), vec![vec![0, 1, 2, 3, 4]]);
    }

    #[test]
    fn sifting_moves_an_item_past_several_others() {
        // Top: a b c d; bottom: w x y z with a-z, b-w, c-x, d-y: `z` belongs first.
        let items: Vec<Item> = (0..8).map(|i| item(i / 4)).collect();
        let pairs = [(0, 7), (1, 4), (2, 5), (3, 6)];
        let mut up = vec![Vec::new(); 8];
        let mut down = vec![Vec::new(); 8];
        for (a, b) in pairs {
            down[a].push((b, 1));
            up[b].push((a, 1));
        }
        let mut order = vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]];
        let mut position = vec![0; 8];
        positions(&order, &mut position);
        assert_eq!(total_crossings(&down, &order, &position), 3);
        let mut work = Work {
            done: 0,
            limit: u64::MAX,
        };
        sift(&items, &up, &down, &mut order, &mut position, &mut work);
        assert_eq!(total_crossings(&down, &order, &position), 0, "{order:?}");
        assert!(work.done > 0, "sifting counts the pairs it compares");
    }

    #[test]
    fn crossing_reduction_stops_when_its_work_is_spent() {
        // The graph of the sifting test: improvement removes its 3 crossings when it may
        // work, and leaves the first order as it is when its budget is spent.
        let items: Vec<Item> = (0..8).map(|i| item(i / 4)).collect();
        let mut up = vec![Vec::new(); 8];
        let mut down = vec![Vec::new(); 8];
        for (a, b) in [(0, 7), (1, 4), (2, 5), (3, 6)] {
            down[a].push((b, 1));
            up[b].push((a, 1));
        }
        let first = vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]];
        let mut position = vec![0; 8];
        for (limit, crossings) in [(0, 3), (u64::MAX, 0)] {
            let mut order = first.clone();
            let mut work = Work { done: 0, limit };
            let fan = vec![None; items.len()];
            let links = Links {
                up: &up,
                down: &down,
                fan: &fan,
            };
            let found = improve(&items, &links, &mut order, &mut position, &mut work, false);
            assert_eq!(found, (crossings, 0), "limit {limit}: {order:?}");
            if limit == 0 {
                assert_eq!(order, first);
                assert_eq!(work.done, 0);
            }
        }
    }
}
