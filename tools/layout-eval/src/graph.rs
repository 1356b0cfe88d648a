//! The graphs written by flow-render's comparison harness, a laid-out graph (`Placed`), and
//! the measures taken of it. Crossings are counted as `tools/render-compare/compare.mjs`
//! counts them: pairs of edge polylines with at least one pair of segments that properly
//! intersect (touching or shared end points do not count).

use serde_json::Value;

/// A node: its flow (cluster) and its size, as our text measurement made it.
pub struct Node {
    pub flow: u64,
    pub width: f64,
    pub height: f64,
}

/// An edge between two nodes, with the index of its label box if it has one.
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub label: Option<usize>,
}

/// One graph of the harness, with our own layout of it.
pub struct Graph {
    pub name: String,
    pub nodes: Vec<Node>,
    /// Label sizes (width, height).
    pub labels: Vec<(f64, f64)>,
    /// The edges whose ends were found on a node, as compare.mjs finds them.
    pub edges: Vec<Edge>,
    /// Our geometry, from the harness output.
    pub ours: Placed,
    /// Our layout time, from the harness output.
    pub ours_micros: u64,
}

/// An axis-aligned box, top-left corner and size.
#[derive(Clone, Copy, Debug)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Rect {
    /// The box of that size centred on (x, y).
    pub fn centred(x: f64, y: f64, width: f64, height: f64) -> Rect {
        Rect {
            x: x - width / 2.0,
            y: y - height / 2.0,
            width,
            height,
        }
    }

    fn centre(&self) -> [f64; 2] {
        [self.x + self.width / 2.0, self.y + self.height / 2.0]
    }

    fn contains(&self, p: [f64; 2]) -> bool {
        p[0] >= self.x
            && p[0] <= self.x + self.width
            && p[1] >= self.y
            && p[1] <= self.y + self.height
    }

    fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.x + other.width
            && other.x < self.x + self.width
            && self.y < other.y + other.height
            && other.y < self.y + self.height
    }

    /// Where the segment from the centre towards `p` leaves the box (the centre itself when
    /// `p` is inside).
    fn exit_towards(&self, p: [f64; 2]) -> [f64; 2] {
        let c = self.centre();
        let (dx, dy) = (p[0] - c[0], p[1] - c[1]);
        let tx = if dx == 0.0 {
            f64::INFINITY
        } else {
            (self.width / 2.0) / dx.abs()
        };
        let ty = if dy == 0.0 {
            f64::INFINITY
        } else {
            (self.height / 2.0) / dy.abs()
        };
        let t = tx.min(ty);
        if !t.is_finite() || t >= 1.0 {
            return c;
        }
        [c[0] + dx * t, c[1] + dy * t]
    }

    /// Whether the segment a-b passes through the inside of the box shrunk by one pixel
    /// (Liang-Barsky clipping).
    fn crossed_by(&self, a: [f64; 2], b: [f64; 2]) -> bool {
        let (x0, y0, x1, y1) = (
            self.x + 1.0,
            self.y + 1.0,
            self.x + self.width - 1.0,
            self.y + self.height - 1.0,
        );
        if x0 >= x1 || y0 >= y1 {
            return false;
        }
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let mut t0: f64 = 0.0;
        let mut t1: f64 = 1.0;
        for (p, q) in [
            (-dx, a[0] - x0),
            (dx, x1 - a[0]),
            (-dy, a[1] - y0),
            (dy, y1 - a[1]),
        ] {
            if p == 0.0 {
                if q <= 0.0 {
                    return false;
                }
            } else {
                let r = q / p;
                if p < 0.0 {
                    t0 = t0.max(r);
                } else {
                    t1 = t1.min(r);
                }
            }
        }
        t0 < t1
    }
}

/// A layout of a graph: a box per node, a box per label where the crate placed labels, and a
/// polyline per edge of `Graph::edges` (same order).
pub struct Placed {
    pub nodes: Vec<Rect>,
    pub labels: Vec<Rect>,
    pub edges: Vec<Vec<[f64; 2]>>,
}

/// The straight polyline from box `a` through the `via` points to box `b`, cut at the boxes'
/// borders: what an edge is drawn as when a crate gives node positions only.
pub fn straight(a: &Rect, via: &[[f64; 2]], b: &Rect) -> Vec<[f64; 2]> {
    let first_target = via.first().copied().unwrap_or(b.centre());
    let last_source = via.last().copied().unwrap_or(a.centre());
    let mut points = vec![a.exit_towards(first_target)];
    points.extend_from_slice(via);
    points.push(b.exit_towards(last_source));
    points
}

fn proper_cross(a: [f64; 2], b: [f64; 2], c: [f64; 2], d: [f64; 2]) -> bool {
    let o = |p: [f64; 2], q: [f64; 2], r: [f64; 2]| {
        let v = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
        if v > 0.0 {
            1
        } else if v < 0.0 {
            -1
        } else {
            0
        }
    };
    o(a, b, c) * o(a, b, d) < 0 && o(c, d, a) * o(c, d, b) < 0
}

/// Pairs of polylines that cross, as compare.mjs counts them.
pub fn crossings(polylines: &[Vec<[f64; 2]>]) -> u64 {
    let mut total = 0;
    for i in 0..polylines.len() {
        for j in i + 1..polylines.len() {
            let (p, q) = (&polylines[i], &polylines[j]);
            let hit = p
                .windows(2)
                .any(|s| q.windows(2).any(|t| proper_cross(s[0], s[1], t[0], t[1])));
            if hit {
                total += 1;
            }
        }
    }
    total
}

/// What is measured of one layout.
#[derive(Default, Clone, Copy)]
pub struct Measures {
    pub crossings: u64,
    /// Pairs of node boxes that overlap.
    pub node_overlaps: u64,
    /// Pairs of boxes, one of them a label, that overlap.
    pub label_overlaps: u64,
    /// (edge, node) pairs where the edge passes through a node other than its own ends.
    pub edges_through_nodes: u64,
    /// Whether the bounding boxes of two flows (clusters) overlap.
    pub clusters_overlap: bool,
}

/// Measures `placed` as a layout of `graph`.
pub fn measure(graph: &Graph, placed: &Placed) -> Measures {
    let mut m = Measures {
        crossings: crossings(&placed.edges),
        ..Measures::default()
    };
    let n = &placed.nodes;
    for i in 0..n.len() {
        for j in i + 1..n.len() {
            if n[i].overlaps(&n[j]) {
                m.node_overlaps += 1;
            }
        }
    }
    let l = &placed.labels;
    for i in 0..l.len() {
        for other in n.iter().chain(&l[i + 1..]) {
            if l[i].overlaps(other) {
                m.label_overlaps += 1;
            }
        }
    }
    for (edge, points) in graph.edges.iter().zip(&placed.edges) {
        for (k, node) in n.iter().enumerate() {
            if k != edge.from
                && k != edge.to
                && points.windows(2).any(|s| node.crossed_by(s[0], s[1]))
            {
                m.edges_through_nodes += 1;
            }
        }
    }
    let mut flows: Vec<(u64, Rect)> = Vec::new();
    for (node, rect) in graph.nodes.iter().zip(n) {
        match flows.iter_mut().find(|(f, _)| *f == node.flow) {
            Some((_, b)) => {
                let right = (b.x + b.width).max(rect.x + rect.width);
                let bottom = (b.y + b.height).max(rect.y + rect.height);
                b.x = b.x.min(rect.x);
                b.y = b.y.min(rect.y);
                b.width = right - b.x;
                b.height = bottom - b.y;
            }
            None => flows.push((node.flow, *rect)),
        }
    }
    m.clusters_overlap =
        (0..flows.len()).any(|i| (i + 1..flows.len()).any(|j| flows[i].1.overlaps(&flows[j].1)));
    m
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

fn rect(v: &Value) -> Rect {
    Rect {
        x: number(&v["x"]),
        y: number(&v["y"]),
        width: number(&v["width"]),
        height: number(&v["height"]),
    }
}

/// Reads the harness output. An edge's ends are the first nodes whose boxes hold its first and
/// last points, as compare.mjs finds them; our polylines keep every edge, as compare.mjs
/// counts ours.
pub fn read(path: &str) -> Result<Vec<Graph>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let value: Value = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    parse(&value)
}

/// Reads graphs in the harness's JSON format.
pub fn parse(value: &Value) -> Result<Vec<Graph>, String> {
    let list = value
        .as_array()
        .ok_or("the harness output is a JSON array")?;
    let mut graphs = Vec::new();
    for g in list {
        let raw_nodes = g["nodes"].as_array().ok_or("nodes")?;
        let boxes: Vec<Rect> = raw_nodes.iter().map(rect).collect();
        let nodes = raw_nodes
            .iter()
            .map(|n| Node {
                flow: n["flow"].as_u64().unwrap_or(0),
                width: number(&n["width"]),
                height: number(&n["height"]),
            })
            .collect();
        let label_boxes: Vec<Rect> = g["labels"]
            .as_array()
            .ok_or("labels")?
            .iter()
            .map(rect)
            .collect();
        let mut edges = Vec::new();
        let mut polylines = Vec::new();
        for e in g["edges"].as_array().ok_or("edges")? {
            let points: Vec<[f64; 2]> = e["points"]
                .as_array()
                .ok_or("points")?
                .iter()
                .map(|p| [number(&p[0]), number(&p[1])])
                .collect();
            let (Some(first), Some(last)) = (points.first(), points.last()) else {
                continue;
            };
            let from = boxes.iter().position(|b| b.contains(*first));
            let to = boxes.iter().position(|b| b.contains(*last));
            if let (Some(from), Some(to)) = (from, to) {
                edges.push(Edge {
                    from,
                    to,
                    label: e["label"].as_u64().map(|l| l as usize),
                });
            }
            polylines.push(points);
        }
        graphs.push(Graph {
            name: g["name"].as_str().unwrap_or_default().to_owned(),
            nodes,
            labels: label_boxes.iter().map(|l| (l.width, l.height)).collect(),
            edges,
            ours: Placed {
                nodes: boxes,
                labels: label_boxes,
                edges: polylines,
            },
            ours_micros: g["layoutMicros"].as_u64().unwrap_or(0),
        });
    }
    Ok(graphs)
}
