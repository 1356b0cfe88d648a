//! One adapter per candidate crate: gives it a harness graph (same node sizes, same edges, top
//! to bottom, the spacing compare.mjs gives dagre: 24 between nodes, 48 between layers) and
//! reads back a `Placed` layout.
//!
//! Crates that take edge label sizes (the dagre ports) get them, centred on the edge, and the
//! flows as clusters, as compare.mjs gives dagre.js. The others get each label as a node of its
//! own size in the middle of its edge (what our layout and dagre do inside), and no clusters.
//! Crates that give no bend points get straight lines between the points they do give.

use crate::graph::{Graph, Placed, Rect, straight};

/// A candidate crate and how it is driven.
pub struct Candidate {
    pub name: &'static str,
    pub version: &'static str,
    pub licence: &'static str,
    /// The date of its last release (`pubtime` of the crates.io index entry).
    pub released: &'static str,
    /// What it gives back besides node positions.
    pub gives: &'static str,
    pub run: fn(&Graph) -> Result<Placed, String>,
}

pub const CANDIDATES: &[Candidate] = &[
    Candidate {
        name: "layout-rs",
        released: "2025-04-24",
        version: "0.1.3",
        licence: "MIT",
        gives: "edge paths through its dummy nodes; labels as nodes",
        run: layout_rs,
    },
    Candidate {
        name: "rust-sugiyama",
        released: "2025-09-21",
        version: "0.4.0",
        licence: "MIT",
        gives: "node centres only (straight edges); labels as nodes",
        run: rust_sugiyama,
    },
    Candidate {
        name: "rust-sugiyama/no-self-loops",
        released: "2025-09-21",
        version: "0.4.0",
        licence: "MIT",
        gives: "as rust-sugiyama, with the self-loops left out of its input (it panics on them)",
        run: rust_sugiyama_without_self_loops,
    },
    Candidate {
        name: "rust-sugiyama/bends",
        released: "2025-09-21",
        version: "0.4.0",
        licence: "MIT",
        gives: "as rust-sugiyama/no-self-loops, laid out twice to get bend points: the second time with a chain of 1x1 vertices along each edge longer than one layer of the first",
        run: rust_sugiyama_with_bends,
    },
    Candidate {
        name: "dagre",
        released: "2026-10-30",
        version: "0.1.2",
        licence: "Apache-2.0",
        gives: "edge points, label positions, clusters",
        run: dagre_actrium,
    },
    Candidate {
        name: "dagre-dgl-rs",
        released: "2026-05-22",
        version: "0.1.1",
        licence: "MIT",
        gives: "edge points, label positions, clusters",
        run: dagre_dgl,
    },
    Candidate {
        name: "dagre_rust",
        released: "2023-04-12",
        version: "0.0.5",
        licence: "Apache-2.0",
        gives: "edge points, label positions, clusters; edges unnamed (a named edge panics), so parallel edges merge",
        run: dagre_rust,
    },
    Candidate {
        name: "bra0-layout",
        released: "2026-07-18",
        version: "0.2.2",
        licence: "MIT OR Apache-2.0",
        gives: "node centres only (straight edges); labels as nodes",
        run: bra0,
    },
    Candidate {
        name: "dagre-rs",
        released: "2025-10-22",
        version: "0.1.0",
        licence: "PolyForm Noncommercial 1.0",
        gives: "points only, no node sizes (spacing set from the largest node); labels as nodes",
        run: dagre_rs_tangleguard,
    },
];

const NODESEP: f64 = 24.0;
const RANKSEP: f64 = 48.0;
const EDGESEP: f64 = 10.0;
const MARGIN: f64 = 16.0;

/// The graph as a crate without edge labels gets it: nodes `0..n` are the graph's, node
/// `n + l` is label `l`; each edge of the graph is one or two edges here.
struct Expanded {
    sizes: Vec<(f64, f64)>,
    edges: Vec<(usize, usize)>,
    /// For each edge of the graph, its edges here.
    parts: Vec<Vec<usize>>,
}

fn expand(g: &Graph) -> Expanded {
    let n = g.nodes.len();
    let mut sizes: Vec<(f64, f64)> = g.nodes.iter().map(|v| (v.width, v.height)).collect();
    sizes.extend(g.labels.iter().copied());
    let mut edges = Vec::new();
    let mut parts = Vec::new();
    for e in &g.edges {
        match e.label {
            Some(l) => {
                edges.push((e.from, n + l));
                edges.push((n + l, e.to));
                parts.push(vec![edges.len() - 2, edges.len() - 1]);
            }
            None => {
                edges.push((e.from, e.to));
                parts.push(vec![edges.len() - 1]);
            }
        }
    }
    Expanded {
        sizes,
        edges,
        parts,
    }
}

/// Builds the layout from the centres of the expanded nodes and, if the crate gives them, the
/// bend points of each expanded edge (from its source to its target).
fn assemble(
    g: &Graph,
    x: &Expanded,
    centres: &[[f64; 2]],
    bends: Option<&[Vec<[f64; 2]>]>,
) -> Placed {
    let n = g.nodes.len();
    let boxes: Vec<Rect> = centres
        .iter()
        .zip(&x.sizes)
        .map(|(c, (w, h))| Rect::centred(c[0], c[1], *w, *h))
        .collect();
    let mut edges = Vec::new();
    let mut labels = Vec::new();
    for (e, parts) in g.edges.iter().zip(&x.parts) {
        let mut via = Vec::new();
        for (k, &part) in parts.iter().enumerate() {
            if k > 0 {
                via.push(centres[x.edges[part].0]);
            }
            if let Some(bends) = bends {
                via.extend_from_slice(&bends[part]);
            }
        }
        edges.push(straight(&boxes[e.from], &via, &boxes[e.to]));
        if let Some(l) = e.label {
            labels.push(boxes[n + l]);
        }
    }
    Placed {
        nodes: boxes[..n].to_vec(),
        labels,
        edges,
    }
}

fn layout_rs(g: &Graph) -> Result<Placed, String> {
    use layout::core::base::Orientation;
    use layout::core::format::{ClipHandle, RenderBackend};
    use layout::core::geometry::Point;
    use layout::core::style::StyleAttr;
    use layout::std_shapes::shapes::{Arrow, Element, ShapeKind};
    use layout::topo::layout::VisualGraph;

    /// Keeps the path of each arrow, by the edge index in its properties.
    struct Paths(Vec<Option<Vec<[f64; 2]>>>);
    impl RenderBackend for Paths {
        fn draw_rect(
            &mut self,
            _: Point,
            _: Point,
            _: &StyleAttr,
            _: Option<String>,
            _: Option<ClipHandle>,
        ) {
        }
        fn draw_line(&mut self, _: Point, _: Point, _: &StyleAttr, _: Option<String>) {}
        fn draw_circle(&mut self, _: Point, _: Point, _: &StyleAttr, _: Option<String>) {}
        fn draw_text(&mut self, _: Point, _: &str, _: &StyleAttr) {}
        fn draw_arrow(
            &mut self,
            path: &[(Point, Point)],
            _: bool,
            _: (bool, bool),
            _: &StyleAttr,
            properties: Option<String>,
            _: &str,
        ) {
            // The first pair is (point, control), the others (control, point).
            let mut points: Vec<[f64; 2]> = Vec::new();
            for (i, (a, b)) in path.iter().enumerate() {
                let p = if i == 0 { a } else { b };
                points.push([p.x, p.y]);
            }
            if let Some(k) = properties.and_then(|p| p.parse::<usize>().ok())
                && k < self.0.len()
            {
                self.0[k] = Some(points);
            }
        }
        fn create_clip(&mut self, _: Point, _: Point, _: usize) -> ClipHandle {
            0
        }
    }

    let x = expand(g);
    let mut vg = VisualGraph::new(Orientation::TopToBottom);
    let handles: Vec<_> = x
        .sizes
        .iter()
        .map(|(w, h)| {
            vg.add_node(Element::create(
                ShapeKind::new_box(""),
                StyleAttr::simple(),
                Orientation::TopToBottom,
                Point::new(*w, *h),
            ))
        })
        .collect();
    for (k, (a, b)) in x.edges.iter().enumerate() {
        vg.add_edge(
            Arrow::simple_with_properties("", k.to_string()),
            handles[*a],
            handles[*b],
        );
    }
    let mut paths = Paths(vec![None; x.edges.len()]);
    vg.do_it(false, false, false, &mut paths);
    let centres: Vec<[f64; 2]> = handles
        .iter()
        .map(|h| {
            let c = vg.pos(*h).center();
            [c.x, c.y]
        })
        .collect();
    // The interior points of each path are its bends; a back edge's path runs backwards.
    let mut bends = Vec::new();
    for (k, path) in paths.0.into_iter().enumerate() {
        let path = path.ok_or(format!("no path drawn for edge {k}"))?;
        let mut inner: Vec<[f64; 2]> = if path.len() > 2 {
            path[1..path.len() - 1].to_vec()
        } else {
            Vec::new()
        };
        let (a, _) = x.edges[k];
        let from = centres[a];
        let d = |p: &[f64; 2]| (p[0] - from[0]).hypot(p[1] - from[1]);
        if let (Some(first), Some(last)) = (path.first(), path.last())
            && d(first) > d(last)
        {
            inner.reverse();
        }
        bends.push(inner);
    }
    Ok(assemble(g, &x, &centres, Some(&bends)))
}

fn rust_sugiyama(g: &Graph) -> Result<Placed, String> {
    let x = expand(g);
    let (centres, _) = sugiyama(&x.sizes, &x.edges)?;
    Ok(assemble(g, &x, &centres, None))
}

/// What a user would do about its panic on self-loops: leave them out and draw them apart (a
/// self-loop is then a point, crossing nothing).
fn rust_sugiyama_without_self_loops(g: &Graph) -> Result<Placed, String> {
    let x = expand(g);
    let edges: Vec<(usize, usize)> = x.edges.iter().copied().filter(|(a, b)| a != b).collect();
    let (centres, _) = sugiyama(&x.sizes, &edges)?;
    Ok(assemble(g, &x, &centres, None))
}

/// It keeps its dummy vertices to itself, so a user who wants bend points lays the graph out
/// twice: once for the layers, then again with an explicit chain of small vertices along every
/// edge longer than one layer, whose positions are the bends.
fn rust_sugiyama_with_bends(g: &Graph) -> Result<Placed, String> {
    let x = expand(g);
    let edges: Vec<(usize, usize)> = x.edges.iter().copied().filter(|(a, b)| a != b).collect();
    let (_, ranks) = sugiyama(&x.sizes, &edges)?;
    let mut sizes = x.sizes.clone();
    let mut chained = Vec::new();
    let mut chains = Vec::new();
    for &(a, b) in &x.edges {
        let mut chain = Vec::new();
        if a != b {
            let mut previous = a;
            for _ in 1..ranks[a].abs_diff(ranks[b]) {
                sizes.push((1.0, 1.0));
                chained.push((previous, sizes.len() - 1));
                chain.push(sizes.len() - 1);
                previous = sizes.len() - 1;
            }
            chained.push((previous, b));
        }
        chains.push(chain);
    }
    let (centres, _) = sugiyama(&sizes, &chained)?;
    let bends: Vec<Vec<[f64; 2]>> = chains
        .iter()
        .map(|c| c.iter().map(|&d| centres[d]).collect())
        .collect();
    Ok(assemble(g, &x, &centres[..x.sizes.len()], Some(&bends)))
}

/// Lays the graph out with rust-sugiyama and gives each node's centre and layer. It lays out
/// each connected component on its own, each from zero: they are placed side by side, left to
/// right, tops aligned.
fn sugiyama(
    sizes: &[(f64, f64)],
    edges: &[(usize, usize)],
) -> Result<(Vec<[f64; 2]>, Vec<usize>), String> {
    use rust_sugiyama::configure::Config;
    let vertices: Vec<(u32, (f64, f64))> = sizes
        .iter()
        .enumerate()
        .map(|(i, s)| (i as u32, *s))
        .collect();
    let edges: Vec<(u32, u32)> = edges.iter().map(|(a, b)| (*a as u32, *b as u32)).collect();
    let config = Config {
        vertex_spacing: NODESEP,
        ..Config::default()
    };
    let layouts = rust_sugiyama::from_vertices_and_edges(&vertices, &edges, &config);
    let mut centres = vec![[f64::NAN, f64::NAN]; sizes.len()];
    let mut ranks = vec![0; sizes.len()];
    let mut offset = 0.0;
    for (positions, _, _) in layouts {
        let min_x = positions
            .iter()
            .map(|(i, (cx, _))| cx - sizes[*i].0 / 2.0)
            .fold(f64::INFINITY, f64::min);
        let min_y = positions
            .iter()
            .map(|(i, (_, cy))| cy - sizes[*i].1 / 2.0)
            .fold(f64::INFINITY, f64::min);
        // The layers are the distinct y of the centres.
        let mut ys: Vec<f64> = positions.iter().map(|(_, (_, cy))| *cy).collect();
        ys.sort_by(f64::total_cmp);
        ys.dedup();
        let mut right = offset;
        for (i, (cx, cy)) in positions {
            let c = [cx - min_x + offset, cy - min_y];
            right = f64::max(right, c[0] + sizes[i].0 / 2.0);
            centres[i] = c;
            ranks[i] = ys.partition_point(|y| *y < cy);
        }
        offset = right + NODESEP;
    }
    if centres.iter().any(|c| c[0].is_nan()) {
        return Err("a node got no position".into());
    }
    Ok((centres, ranks))
}

fn dagre_actrium(g: &Graph) -> Result<Placed, String> {
    use dagre::graph::{Graph as DGraph, GraphOptions};
    use dagre::{EdgeLabel, LayoutOptions, NodeLabel};
    let mut d: DGraph<NodeLabel, EdgeLabel> = DGraph::with_options(GraphOptions {
        directed: true,
        multigraph: true,
        compound: true,
    });
    for (i, n) in g.nodes.iter().enumerate() {
        let label = NodeLabel {
            width: n.width,
            height: n.height,
            ..NodeLabel::default()
        };
        d.set_node(i.to_string(), Some(label));
    }
    let flows = flows(g);
    if flows.len() > 1 {
        for f in &flows {
            d.set_node(format!("cluster{f}"), Some(NodeLabel::default()));
        }
        for (i, n) in g.nodes.iter().enumerate() {
            d.set_parent(&i.to_string(), Some(&format!("cluster{}", n.flow)));
        }
    }
    for (k, e) in g.edges.iter().enumerate() {
        let mut label = EdgeLabel {
            labelpos: dagre::layout::types::LabelPos::Center,
            ..EdgeLabel::default()
        };
        if let Some(l) = e.label {
            label.width = g.labels[l].0;
            label.height = g.labels[l].1;
        }
        d.set_edge(
            e.from.to_string(),
            e.to.to_string(),
            Some(label),
            Some(&format!("e{k}")),
        );
    }
    let options = LayoutOptions {
        nodesep: NODESEP,
        ranksep: RANKSEP,
        edgesep: EDGESEP,
        marginx: MARGIN,
        marginy: MARGIN,
        ..LayoutOptions::default()
    };
    dagre::layout(&mut d, Some(options));
    let mut nodes = Vec::new();
    for (i, n) in g.nodes.iter().enumerate() {
        let v = d.node(&i.to_string()).ok_or("node lost")?;
        let (Some(cx), Some(cy)) = (v.x, v.y) else {
            return Err(format!("node {i} got no position"));
        };
        nodes.push(Rect::centred(cx, cy, n.width, n.height));
    }
    let mut edges = Vec::new();
    let mut labels = Vec::new();
    for (k, e) in g.edges.iter().enumerate() {
        let label = d
            .edge(
                &e.from.to_string(),
                &e.to.to_string(),
                Some(&format!("e{k}")),
            )
            .ok_or("edge lost")?;
        edges.push(label.points.iter().map(|p| [p.x, p.y]).collect());
        if let Some(l) = e.label {
            let (Some(cx), Some(cy)) = (label.x, label.y) else {
                return Err(format!("label {l} got no position"));
            };
            labels.push(Rect::centred(cx, cy, g.labels[l].0, g.labels[l].1));
        }
    }
    Ok(Placed {
        nodes,
        labels,
        edges,
    })
}

fn dagre_dgl(g: &Graph) -> Result<Placed, String> {
    use dagre_dgl_rs::{Edge, EdgeLabel, Graph as DGraph, GraphLabel, NodeLabel};
    let mut d = DGraph::multigraph_compound();
    d.set_graph(GraphLabel {
        rankdir: Some("TB".into()),
        nodesep: Some(NODESEP),
        ranksep: Some(RANKSEP),
        edgesep: Some(EDGESEP),
        marginx: Some(MARGIN),
        marginy: Some(MARGIN),
        ..GraphLabel::default()
    });
    for (i, n) in g.nodes.iter().enumerate() {
        d.set_node(
            &i.to_string(),
            NodeLabel {
                width: n.width,
                height: n.height,
                ..NodeLabel::default()
            },
        );
    }
    let flows = flows(g);
    if flows.len() > 1 {
        for f in &flows {
            d.set_node(&format!("cluster{f}"), NodeLabel::default());
        }
        for (i, n) in g.nodes.iter().enumerate() {
            d.set_parent(&i.to_string(), Some(&format!("cluster{}", n.flow)));
        }
    }
    for (k, e) in g.edges.iter().enumerate() {
        let mut label = EdgeLabel {
            labelpos: Some("c".into()),
            ..EdgeLabel::default()
        };
        if let Some(l) = e.label {
            label.width = Some(g.labels[l].0);
            label.height = Some(g.labels[l].1);
        }
        d.set_edge(
            &e.from.to_string(),
            &e.to.to_string(),
            label,
            Some(&format!("e{k}")),
        );
    }
    dagre_dgl_rs::layout(&mut d);
    let mut nodes = Vec::new();
    for (i, n) in g.nodes.iter().enumerate() {
        let v = d.node_opt(&i.to_string()).ok_or("node lost")?;
        let (Some(cx), Some(cy)) = (v.x, v.y) else {
            return Err(format!("node {i} got no position"));
        };
        nodes.push(Rect::centred(cx, cy, n.width, n.height));
    }
    let mut edges = Vec::new();
    let mut labels = Vec::new();
    for (k, e) in g.edges.iter().enumerate() {
        let id = Edge::named(&e.from.to_string(), &e.to.to_string(), &format!("e{k}"));
        let label = d.edge(&id).ok_or("edge lost")?;
        edges.push(label.points.iter().flatten().map(|p| [p.x, p.y]).collect());
        if let Some(l) = e.label {
            let (Some(cx), Some(cy)) = (label.x, label.y) else {
                return Err(format!("label {l} got no position"));
            };
            labels.push(Rect::centred(cx, cy, g.labels[l].0, g.labels[l].1));
        }
    }
    Ok(Placed {
        nodes,
        labels,
        edges,
    })
}

fn dagre_rust(g: &Graph) -> Result<Placed, String> {
    use dagre_rust::{GraphConfig, GraphEdge, GraphNode};
    use graphlib_rust::{Graph as DGraph, GraphOption};
    let mut d: DGraph<GraphConfig, GraphNode, GraphEdge> = DGraph::new(Some(GraphOption {
        directed: Some(true),
        multigraph: Some(true),
        compound: Some(true),
    }));
    d.set_graph(GraphConfig {
        nodesep: Some(NODESEP as f32),
        ranksep: Some(RANKSEP as f32),
        edgesep: Some(EDGESEP as f32),
        marginx: Some(MARGIN as f32),
        marginy: Some(MARGIN as f32),
        ..GraphConfig::default()
    });
    for (i, n) in g.nodes.iter().enumerate() {
        let label = GraphNode {
            width: n.width as f32,
            height: n.height as f32,
            ..GraphNode::default()
        };
        d.set_node(i.to_string(), Some(label));
    }
    let flows = flows(g);
    if flows.len() > 1 {
        for f in &flows {
            d.set_node(format!("cluster{f}"), Some(GraphNode::default()));
        }
        for (i, n) in g.nodes.iter().enumerate() {
            d.set_parent(&i.to_string(), Some(format!("cluster{}", n.flow)))
                .map_err(|e| e.to_string())?;
        }
    }
    for e in &g.edges {
        let mut label = GraphEdge {
            labelpos: Some("c".into()),
            ..GraphEdge::default()
        };
        if let Some(l) = e.label {
            label.width = Some(g.labels[l].0 as f32);
            label.height = Some(g.labels[l].1 as f32);
        }
        // Unnamed: a named edge makes `layout` panic (0.0.5), so parallel edges are one edge.
        d.set_edge(&e.from.to_string(), &e.to.to_string(), Some(label), None)
            .map_err(|e| e.to_string())?;
    }
    dagre_rust::layout::layout(&mut d);
    let mut nodes = Vec::new();
    for (i, n) in g.nodes.iter().enumerate() {
        let v = d.node(&i.to_string()).ok_or("node lost")?;
        nodes.push(Rect::centred(
            f64::from(v.x),
            f64::from(v.y),
            n.width,
            n.height,
        ));
    }
    let mut edges = Vec::new();
    let mut labels = Vec::new();
    for e in &g.edges {
        let label = d
            .edge(&e.from.to_string(), &e.to.to_string(), None)
            .ok_or("edge lost")?;
        edges.push(
            label
                .points
                .iter()
                .flatten()
                .map(|p| [f64::from(p.x), f64::from(p.y)])
                .collect(),
        );
        if let Some(l) = e.label {
            labels.push(Rect::centred(
                f64::from(label.x),
                f64::from(label.y),
                g.labels[l].0,
                g.labels[l].1,
            ));
        }
    }
    Ok(Placed {
        nodes,
        labels,
        edges,
    })
}

fn bra0(g: &Graph) -> Result<Placed, String> {
    use bra0_layout::{LayoutEdge, LayoutNode, LayoutOptions, layout_hierarchical};
    let x = expand(g);
    let nodes: Vec<LayoutNode> = x
        .sizes
        .iter()
        .enumerate()
        .map(|(i, (w, h))| LayoutNode {
            id: i.to_string(),
            width: *w,
            height: *h,
        })
        .collect();
    let edges: Vec<LayoutEdge> = x
        .edges
        .iter()
        .map(|(a, b)| LayoutEdge {
            source: a.to_string(),
            target: b.to_string(),
        })
        .collect();
    let options = LayoutOptions {
        rankdir: "TB".into(),
        nodesep: NODESEP,
        ranksep: RANKSEP,
    };
    let result = layout_hierarchical(&nodes, &edges, &options);
    let centres = (0..x.sizes.len())
        .map(|i| {
            result
                .positions
                .get(&i.to_string())
                .map(|p| [p.x, p.y])
                .ok_or(format!("node {i} got no position"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(assemble(g, &x, &centres, None))
}

/// It takes no node sizes: the spacing is set from the largest node, as a user would.
fn dagre_rs_tangleguard(g: &Graph) -> Result<Placed, String> {
    use dagre_rs::{DagreLayout, LayoutOptions, RankDir};
    let x = expand(g);
    let mut graph = petgraph::graph::DiGraph::<(), ()>::new();
    let ids: Vec<_> = x.sizes.iter().map(|_| graph.add_node(())).collect();
    for (a, b) in &x.edges {
        graph.add_edge(ids[*a], ids[*b], ());
    }
    let widest = x.sizes.iter().map(|s| s.0).fold(0.0, f64::max);
    let tallest = x.sizes.iter().map(|s| s.1).fold(0.0, f64::max);
    let layout = DagreLayout::with_options(LayoutOptions {
        rank_dir: RankDir::TopToBottom,
        node_sep: (widest + NODESEP) as f32,
        rank_sep: (tallest + RANKSEP) as f32,
        max_iterations: 24,
    });
    let result = layout.compute(&graph);
    let centres = ids
        .iter()
        .enumerate()
        .map(|(i, id)| {
            result
                .node_positions
                .get(id)
                .map(|(px, py)| [f64::from(*px), f64::from(*py)])
                .ok_or(format!("node {i} got no position"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(assemble(g, &x, &centres, None))
}

fn flows(g: &Graph) -> Vec<u64> {
    let mut flows: Vec<u64> = g.nodes.iter().map(|n| n.flow).collect();
    flows.sort_unstable();
    flows.dedup();
    flows
}
