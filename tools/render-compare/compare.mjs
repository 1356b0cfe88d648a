// Compares flow-render's layout with dagre's (the engine Mermaid lays flowcharts out with) on
// the graphs written by `cargo run -p botmesh-flow-render --example harness -- graphs.json`:
// same nodes, same node and label sizes, same edges, direction TB. Crossings are counted the
// same way for both: pairs of edge polylines whose segments properly intersect (touching,
// as edges do at a shared end node, does not count); several flows are clusters for dagre too
// (compound graph, as Mermaid lays out subgraphs). Also counts, for ours, overlapping boxes
// (nodes and labels) and edge segments through a node.
// Usage: node compare.mjs graphs.json [--floor PERCENT] [--rows OUT.json]   (--floor: exit 1
// unless ours <= dagre's in total, ours <= dagre's on at least PERCENT % of graphs, and no
// overlap at all; --rows: also write each graph's crossings and dagre's time, as the layout
// evaluation of issue 14 read them, see ARCHITECTURE.md)
import { readFileSync, writeFileSync } from 'node:fs';
import dagre from '@dagrejs/dagre';

const graphs = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const at = process.argv.indexOf('--floor');
const floor = at < 0 ? null : Number(process.argv[at + 1]);
if (floor !== null && !Number.isFinite(floor)) throw new Error('--floor needs a percentage');
if (!Array.isArray(graphs) || graphs.length === 0) throw new Error(`${process.argv[2]}: no graphs`);
const rowsAt = process.argv.indexOf('--rows');

function properCross(a, b, c, d) {
  const o = (p, q, r) => Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]));
  const o1 = o(a, b, c), o2 = o(a, b, d), o3 = o(c, d, a), o4 = o(c, d, b);
  return o1 * o2 < 0 && o3 * o4 < 0;
}

function crossings(polylines) {
  let total = 0;
  for (let i = 0; i < polylines.length; i++) {
    for (let j = i + 1; j < polylines.length; j++) {
      const p = polylines[i], q = polylines[j];
      let hit = false;
      for (let s = 0; s + 1 < p.length && !hit; s++) {
        for (let t = 0; t + 1 < q.length && !hit; t++) {
          if (properCross(p[s], p[s + 1], q[t], q[t + 1])) hit = true;
        }
      }
      if (hit) total += 1;
    }
  }
  return total;
}

// True when the segment p-q has a point strictly inside the box (Liang-Barsky clipping).
function enters(p, q, r) {
  const dx = q[0] - p[0], dy = q[1] - p[1];
  let t0 = 0, t1 = 1;
  for (const [a, b] of [[-dx, p[0] - r.x], [dx, r.x + r.width - p[0]], [-dy, p[1] - r.y], [dy, r.y + r.height - p[1]]]) {
    if (a === 0) {
      if (b <= 0) return false;
    } else if (a < 0) t0 = Math.max(t0, b / a);
    else t1 = Math.min(t1, b / a);
  }
  return t1 - t0 > 1e-9;
}

function overlaps(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

let oursTotal = 0, dagreTotal = 0, oursNotWorse = 0, oursFewer = 0, oursMicros = 0, dagreMicros = 0, bad = 0, through = 0;
const rows = [];
for (const graph of graphs) {
  // Our polylines: the points of each edge.
  const ours = crossings(graph.edges.map((e) => e.points));
  // Dagre: the same graph. Node keys are indices; an edge's ends are found from our geometry
  // (the first point lies on its source's box, the last on its target's).
  const g = new dagre.graphlib.Graph({ multigraph: true, compound: true });
  g.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: 48, edgesep: 10, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  graph.nodes.forEach((n, i) => g.setNode(String(i), { width: n.width, height: n.height }));
  // Several flows: one cluster each, as Mermaid draws the subgraphs of flow_analyze.
  const flows = new Set(graph.nodes.map((n) => n.flow));
  if (flows.size > 1) {
    for (const f of flows) g.setNode(`cluster${f}`, {});
    graph.nodes.forEach((n, i) => g.setParent(String(i), `cluster${n.flow}`));
  }
  const on = (p, n) => p[0] >= n.x && p[0] <= n.x + n.width && p[1] >= n.y && p[1] <= n.y + n.height;
  graph.edges.forEach((e, k) => {
    const first = e.points[0], last = e.points[e.points.length - 1];
    const from = graph.nodes.findIndex((n) => on(first, n));
    const to = graph.nodes.findIndex((n) => on(last, n));
    // Every edge must reach dagre, or the comparison would not be of the same graph.
    if (from < 0 || to < 0) throw new Error(`${graph.name}: edge ${k} has no end node in our geometry`);
    const label = e.label === null || e.label === undefined ? null : graph.labels[e.label];
    g.setEdge(String(from), String(to), label ? { width: label.width, height: label.height, labelpos: 'c' } : {}, `e${k}`);
  });
  const start = process.hrtime.bigint();
  dagre.layout(g);
  const micros = Number(process.hrtime.bigint() - start) / 1000;
  dagreMicros += micros;
  oursMicros += graph.layoutMicros;
  const theirs = crossings(g.edges().map((e) => g.edge(e).points.map((p) => [p.x, p.y])));
  // Our own geometry: no node overlaps, no label over a node or a label.
  const boxes = graph.nodes.concat(graph.labels);
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) if (overlaps(boxes[i], boxes[j])) bad += 1;
  for (const e of graph.edges) {
    for (let s = 0; s + 1 < e.points.length; s++) for (const n of graph.nodes) if (enters(e.points[s], e.points[s + 1], n)) through += 1;
  }
  oursTotal += ours;
  dagreTotal += theirs;
  if (ours <= theirs) oursNotWorse += 1;
  if (ours < theirs) oursFewer += 1;
  rows.push([graph.name, ours, theirs, micros]);
}
if (rowsAt >= 0) {
  const out = rows.map(([name, ours, dagre, micros]) => ({ name, ours, dagre, dagreMicros: Math.round(micros) }));
  writeFileSync(process.argv[rowsAt + 1], JSON.stringify(out));
}
const share = (100 * oursNotWorse) / graphs.length;
console.log(`graphs: ${graphs.length}`);
console.log(`crossings, total: ours ${oursTotal}, dagre ${dagreTotal}`);
console.log(`graphs where ours <= dagre: ${oursNotWorse} (${share.toFixed(1)} %): fewer ${oursFewer}, as many ${oursNotWorse - oursFewer}, more ${graphs.length - oursNotWorse}`);
console.log(`overlapping boxes in ours: ${bad}; edge segments through a node: ${through}`);
console.log(`layout time, all graphs: ours ${(oursMicros / 1000).toFixed(1)} ms, dagre ${(dagreMicros / 1000).toFixed(1)} ms`);
const worst = rows.filter((r) => r[1] > r[2]).sort((a, b) => (b[1] - b[2]) - (a[1] - a[2])).slice(0, 5);
for (const [name, ours, theirs] of worst) console.log(`  worse: ${name} ours ${ours} dagre ${theirs}`);
if (floor !== null && (oursTotal > dagreTotal || share < floor || bad > 0 || through > 0)) {
  console.error(`below the floor: total ours <= dagre, >= ${floor} % of graphs, no overlap`);
  process.exit(1);
}
