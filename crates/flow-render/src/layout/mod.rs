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

use std::collections::{BTreeMap, BTreeSet};

use botmesh_flow_analyzer::{Direction, EdgeKind, Graph, IMPLICIT_END};

use crate::error::Error;
use crate::font::{Font, displayable};
use crate::picture::{DrawnCluster, DrawnEdge, DrawnLabel, DrawnNode, Picture, Rect, Shape, Theme};
use crate::text::{one_line, wrap};

mod order;
mod place;
mod rank;
mod route;

use order::{Links, reduce_crossings};
use place::{place, separate_clusters};
use rank::{assign_layers, break_cycles};
use route::{Routed, route};

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
/// Space kept between an edge end and the end of the flat part of a node's side.
const PORT_MARGIN: i64 = 12;
/// Widest spacing between edge ends on one side of a node.
const PORT_SPACING: i64 = 10;
/// The most layout items (a box per node, a point for each layer an edge crosses) of one
/// picture; a larger set is refused with [`Error::TooManyItems`], counted once the layers are
/// known and before anything grows with the items. Memory and time grow with the items; why
/// this number, with its figures: DECISIONS.md, "Pictures: the most layout items".
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
    // The characters neither embedded font draws, as they are met.
    let mut missing = BTreeSet::new();
    let Input {
        nodes,
        labels,
        edges,
    } = read_graph(font, graph, &mut missing);
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
    let Layered {
        mut items,
        chains,
        self_loops,
        mut fan,
    } = make_items(&nodes, &labels, &edges, &layer, &reversed, horizontal);
    debug_assert_eq!(items.len(), needed, "the items, as counted before");
    fan.resize(items.len(), None);

    // 4. Crossing reduction.
    let layers = layer.iter().copied().max().map_or(0, |m| m + 1);
    let mut up: Vec<Vec<usize>> = vec![Vec::new(); items.len()];
    let mut down: Vec<Vec<usize>> = vec![Vec::new(); items.len()];
    for chain in &chains {
        for pair in chain.items.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            down[a].push(b);
            up[b].push(a);
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
            .map(|flow| {
                let title = displayable(font, flow.id, &mut missing);
                one_line(font, &title, LABEL_FONT, TITLE_WIDTH)
            })
            .collect()
    } else {
        Vec::new()
    };
    if several {
        separate_clusters(font, &mut items, &titles, graph.flows.len(), horizontal);
    }
    let Routed {
        height,
        node_rects,
        label_rects,
        cluster_rects,
        edges: drawn_edges,
    } = route(
        &nodes,
        &labels,
        &items,
        &chains,
        &self_loops,
        layers,
        if several { graph.flows.len() } else { 0 },
        horizontal,
    );

    // 7. Turn to the direction, add the cluster titles, and move everything into the margin.
    Ok(finish(
        font,
        options,
        Geometry {
            height,
            nodes,
            node_rects,
            labels,
            label_rects,
            cluster_rects,
            titles,
            edges: drawn_edges,
        },
        crossings,
        missing,
    ))
}

/// The layered graph: the items, each edge's chain of them, the self-loops and the out-edge
/// ranks crossing reduction keeps.
struct Layered {
    items: Vec<Item>,
    chains: Vec<Chain>,
    /// (node, kind, label index) of each self-loop.
    self_loops: Vec<(usize, EdgeKind, Option<usize>)>,
    /// For each point of an out-edge (not a call): (the source, the edge's rank among the
    /// source's out-edges in document order).
    fan: Vec<Option<(usize, usize)>>,
}

/// Makes one item per node, then the points and labels of each edge's chain.
fn make_items(
    nodes: &[NodeBox],
    labels: &[LabelBox],
    edges: &[(usize, usize, EdgeKind, Option<usize>)],
    layer: &[usize],
    reversed: &[bool],
    horizontal: bool,
) -> Layered {
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
        // Every point of this edge carries its source and its rank, so crossing reduction
        // keeps the source's out-edges in document order in every layer they cross: they
        // leave it in that order and never cross each other, so their labels read in it too.
        fan.resize(items.len(), None);
        // A call leaves for another cluster, placed by the cluster order: not ranked.
        if kind != EdgeKind::Call {
            for &point in &chain[1..chain.len() - 1] {
                fan[point] = Some((from, rank));
            }
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

    Layered {
        items,
        chains,
        self_loops,
        fan,
    }
}

/// The geometry in layout space, before it is turned to the direction.
struct Geometry {
    /// Extent along the layers.
    height: i64,
    nodes: Vec<NodeBox>,
    node_rects: Vec<Rect>,
    labels: Vec<LabelBox>,
    label_rects: Vec<Rect>,
    cluster_rects: Vec<Rect>,
    titles: Vec<String>,
    edges: Vec<DrawnEdge>,
}

/// Turns the geometry to the direction, adds the cluster titles and moves everything into
/// the margin.
fn finish(
    font: &Font,
    options: &Options,
    geometry: Geometry,
    crossings: usize,
    missing: BTreeSet<char>,
) -> Picture {
    let Geometry {
        height: layout_height,
        nodes,
        node_rects,
        labels,
        label_rects,
        cluster_rects,
        titles,
        edges: mut drawn_edges,
    } = geometry;
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
    Picture {
        width: max.0 - min.0 + 2 * MARGIN,
        height: max.1 - min.1 + 2 * MARGIN,
        theme: options.theme,
        clusters,
        nodes: drawn_nodes,
        edges: drawn_edges,
        labels: drawn_labels,
        crossings,
        missing_glyphs: missing.into_iter().collect(),
    }
}

/// The graph's nodes and edges with their text laid out, before layering.
struct Input {
    nodes: Vec<NodeBox>,
    labels: Vec<LabelBox>,
    /// (source, target, kind, label index), in document order.
    edges: Vec<(usize, usize, EdgeKind, Option<usize>)>,
}

/// Reads the nodes (each (flow, id) once) and the edges whose ends exist, adding the
/// characters their text has that no font draws to `missing`.
fn read_graph(font: &Font, graph: &Graph<'_>, missing: &mut BTreeSet<char>) -> Input {
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
            nodes.push(node_box(
                font,
                f,
                (node.id, node.kind, &node.label),
                missing,
            ));
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
                .map(|text| displayable(font, text, missing))
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
    Input {
        nodes,
        labels,
        edges,
    }
}

/// The text and size of a node: (id, kind, text), adding the characters no font draws to
/// `missing`.
fn node_box(
    font: &Font,
    flow: usize,
    (id, kind, label): (&str, &'static str, &str),
    missing: &mut BTreeSet<char>,
) -> NodeBox {
    let shape = Shape::of_kind(kind);
    let mut lines = Vec::new();
    if id == IMPLICIT_END {
        lines.push(IMPLICIT_END.to_owned());
    } else {
        lines.push(one_line(
            font,
            &displayable(font, id, missing),
            NODE_FONT,
            NODE_TEXT_WIDTH,
        ));
        let text = displayable(font, label, missing);
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
