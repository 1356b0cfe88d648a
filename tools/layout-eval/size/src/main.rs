//! A small program that lays out a chain of `N` nodes (with a loop back every third node) with
//! the layout crate of the feature it is built with, and prints the sum of the coordinates.
//! Built with no feature it only builds the graph: the difference in size is the crate's.
//! Usage: `layout-size [N]`.

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10);
    let sizes: Vec<(f64, f64)> = (0..n)
        .map(|i| (80.0 + (i % 7) as f64 * 10.0, 40.0))
        .collect();
    let mut edges: Vec<(usize, usize)> = (1..n).map(|i| (i - 1, i)).collect();
    edges.extend((3..n).step_by(3).map(|i| (i, i - 3)));
    let sum = layout(&sizes, &edges);
    println!("{n} nodes, {} edges: {sum}", edges.len());
}

#[cfg(not(any(
    feature = "layout-rs",
    feature = "rust-sugiyama",
    feature = "dagre",
    feature = "dagre-dgl-rs",
    feature = "dagre_rust",
    feature = "bra0-layout",
    feature = "dagre-rs",
    feature = "ours-base"
)))]
fn layout(sizes: &[(f64, f64)], edges: &[(usize, usize)]) -> f64 {
    sizes.iter().map(|s| s.0 + s.1).sum::<f64>() + edges.len() as f64
}

#[cfg(feature = "layout-rs")]
fn layout(sizes: &[(f64, f64)], edges: &[(usize, usize)]) -> f64 {
    use layout::backends::svg::SVGWriter;
    use layout::core::base::Orientation;
    use layout::core::geometry::Point;
    use layout::core::style::StyleAttr;
    use layout::std_shapes::shapes::{Arrow, Element, ShapeKind};
    use layout::topo::layout::VisualGraph;
    let mut vg = VisualGraph::new(Orientation::TopToBottom);
    let h: Vec<_> = sizes
        .iter()
        .map(|(w, ht)| {
            vg.add_node(Element::create(
                ShapeKind::new_box(""),
                StyleAttr::simple(),
                Orientation::TopToBottom,
                Point::new(*w, *ht),
            ))
        })
        .collect();
    for (a, b) in edges {
        vg.add_edge(Arrow::simple(""), h[*a], h[*b]);
    }
    let mut svg = SVGWriter::new();
    vg.do_it(false, false, false, &mut svg);
    h.iter()
        .map(|n| vg.pos(*n).center().x + vg.pos(*n).center().y)
        .sum()
}

#[cfg(feature = "rust-sugiyama")]
fn layout(sizes: &[(f64, f64)], edges: &[(usize, usize)]) -> f64 {
    let v: Vec<(u32, (f64, f64))> = sizes
        .iter()
        .enumerate()
        .map(|(i, s)| (i as u32, *s))
        .collect();
    let e: Vec<(u32, u32)> = edges.iter().map(|(a, b)| (*a as u32, *b as u32)).collect();
    rust_sugiyama::from_vertices_and_edges(&v, &e, &rust_sugiyama::configure::Config::default())
        .iter()
        .flat_map(|(l, _, _)| l.iter().map(|(_, (x, y))| x + y))
        .sum()
}

#[cfg(feature = "dagre")]
fn layout(sizes: &[(f64, f64)], edges: &[(usize, usize)]) -> f64 {
    use dagre::graph::{Graph, GraphOptions};
    use dagre::{EdgeLabel, NodeLabel};
    let mut g: Graph<NodeLabel, EdgeLabel> = Graph::with_options(GraphOptions {
        directed: true,
        multigraph: true,
        compound: true,
    });
    for (i, (w, h)) in sizes.iter().enumerate() {
        g.set_node(
            i.to_string(),
            Some(NodeLabel {
                width: *w,
                height: *h,
                ..NodeLabel::default()
            }),
        );
    }
    for (k, (a, b)) in edges.iter().enumerate() {
        g.set_edge(
            a.to_string(),
            b.to_string(),
            Some(EdgeLabel::default()),
            Some(&k.to_string()),
        );
    }
    dagre::layout(&mut g, None);
    (0..sizes.len())
        .filter_map(|i| g.node(&i.to_string()))
        .map(|n| n.x.unwrap_or(0.0) + n.y.unwrap_or(0.0))
        .sum()
}

#[cfg(feature = "dagre-dgl-rs")]
fn layout(sizes: &[(f64, f64)], edges: &[(usize, usize)]) -> f64 {
    use dagre_dgl_rs::{EdgeLabel, Graph, NodeLabel};
    let mut g = Graph::multigraph_compound();
    for (i, (w, h)) in sizes.iter().enumerate() {
        g.set_node(
            &i.to_string(),
            NodeLabel {
                width: *w,
                height: *h,
                ..NodeLabel::default()
            },
        );
    }
    for (k, (a, b)) in edges.iter().enumerate() {
        g.set_edge(
            &a.to_string(),
            &b.to_string(),
            EdgeLabel::default(),
            Some(&k.to_string()),
        );
    }
    dagre_dgl_rs::layout(&mut g);
    (0..sizes.len())
        .filter_map(|i| g.node_opt(&i.to_string()))
        .map(|n| n.x.unwrap_or(0.0) + n.y.unwrap_or(0.0))
        .sum()
}

#[cfg(feature = "dagre_rust")]
fn layout(sizes: &[(f64, f64)], edges: &[(usize, usize)]) -> f64 {
    use dagre_rust::{GraphConfig, GraphEdge, GraphNode};
    use graphlib_rust::{Graph, GraphOption};
    let mut g: Graph<GraphConfig, GraphNode, GraphEdge> = Graph::new(Some(GraphOption {
        directed: Some(true),
        multigraph: Some(true),
        compound: Some(true),
    }));
    g.set_graph(GraphConfig::default());
    for (i, (w, h)) in sizes.iter().enumerate() {
        g.set_node(
            i.to_string(),
            Some(GraphNode {
                width: *w as f32,
                height: *h as f32,
                ..GraphNode::default()
            }),
        );
    }
    for (k, (a, b)) in edges.iter().enumerate() {
        let _ = g.set_edge(
            &a.to_string(),
            &b.to_string(),
            Some(GraphEdge::default()),
            Some(k.to_string()),
        );
    }
    dagre_rust::layout::layout(&mut g);
    (0..sizes.len())
        .filter_map(|i| g.node(&i.to_string()))
        .map(|n| f64::from(n.x + n.y))
        .sum()
}

#[cfg(feature = "bra0-layout")]
fn layout(sizes: &[(f64, f64)], edges: &[(usize, usize)]) -> f64 {
    use bra0_layout::{LayoutEdge, LayoutNode, LayoutOptions, layout_hierarchical};
    let nodes: Vec<LayoutNode> = sizes
        .iter()
        .enumerate()
        .map(|(i, (w, h))| LayoutNode {
            id: i.to_string(),
            width: *w,
            height: *h,
        })
        .collect();
    let edges: Vec<LayoutEdge> = edges
        .iter()
        .map(|(a, b)| LayoutEdge {
            source: a.to_string(),
            target: b.to_string(),
        })
        .collect();
    layout_hierarchical(&nodes, &edges, &LayoutOptions::default())
        .positions
        .values()
        .map(|p| p.x + p.y)
        .sum()
}

#[cfg(feature = "dagre-rs")]
fn layout(sizes: &[(f64, f64)], edges: &[(usize, usize)]) -> f64 {
    let mut g = petgraph::graph::DiGraph::<(), ()>::new();
    let ids: Vec<_> = sizes.iter().map(|_| g.add_node(())).collect();
    for (a, b) in edges {
        g.add_edge(ids[*a], ids[*b], ());
    }
    dagre_rs::DagreLayout::new()
        .compute(&g)
        .node_positions
        .values()
        .map(|(x, y)| f64::from(x + y))
        .sum()
}

/// Ours takes a flow document: the chain as a flow of messages, some going back.
#[cfg(feature = "ours-base")]
fn layout(sizes: &[(f64, f64)], edges: &[(usize, usize)]) -> f64 {
    use serde_json::json;
    let steps: Vec<serde_json::Value> = (0..sizes.len())
        .map(|i| match edges.iter().find(|(a, b)| *a == i && *b < i) {
            Some((_, b)) => json!({"id": format!("s{i}"), "kind": "message", "text": format!("Step {i}"), "next": format!("s{b}")}),
            None => json!({"id": format!("s{i}"), "kind": "message", "text": format!("Step {i}")}),
        })
        .collect();
    let document = json!({"version": 2, "id": "size", "steps": steps});
    let graph = botmesh_flow_analyzer::describe(&[&document]);
    ours(&graph)
}

#[cfg(all(feature = "ours-base", not(feature = "ours")))]
fn ours(graph: &botmesh_flow_analyzer::Graph<'_>) -> f64 {
    format!("{graph:?}").len() as f64
}

#[cfg(feature = "ours")]
fn ours(graph: &botmesh_flow_analyzer::Graph<'_>) -> f64 {
    use botmesh_flow_render::{Direction, Options, Theme, layout};
    let options = Options {
        direction: Direction::TD,
        theme: Theme::Light,
    };
    match layout(graph, &options) {
        Ok(p) => {
            (format!("{graph:?}").len()
                + p.nodes
                    .iter()
                    .map(|n| (n.rect.x + n.rect.y) as usize)
                    .sum::<usize>()) as f64
        }
        Err(_) => 0.0,
    }
}
