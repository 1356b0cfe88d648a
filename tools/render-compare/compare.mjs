// Compares flow-render's layout with dagre's (the engine Mermaid lays flowcharts out with) on
// the graphs written by `cargo run -p botmesh-flow-render --example harness -- graphs.json`:
// same nodes, same node and label sizes, same edges, direction TB. Crossings are counted the
// same way for both: pairs of edge polylines whose segments properly intersect (touching,
// as edges do at a shared end node, does not count); several flows are clusters for dagre too
// (compound graph, as Mermaid lays out subgraphs). Also counts, for ours, overlapping boxes
// (nodes and labels) and edge segments through a node, and for both the total width and
// height and the edge bends (interior polyline points where the line turns).
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

// Interior points of a polyline where it turns (not on the line through its neighbours).
function bends(points) {
  let total = 0;
  for (let i = 1; i + 1 < points.length; i++) {
    const [a, b, c] = [points[i - 1], points[i], points[i + 1]];
    if ((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]) !== 0) total += 1;
  }
  return total;
}

// Width and height of the boxes and edge points, as drawn (margins left out).
function extent(boxes, polylines) {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const b of boxes) {
    x0 = Math.min(x0, b.x); y0 = Math.min(y0, b.y);
    x1 = Math.max(x1, b.x + b.width); y1 = Math.max(y1, b.y + b.height);
  }
  for (const line of polylines) for (const [x, y] of line) {
    x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
  }
  return x0 > x1 ? [0, 0] : [x1 - x0, y1 - y0];
}

function overlaps(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

const size = { ours: [0, 0, 0], dagre: [0, 0, 0] };
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
  const dagreLines = g.edges().map((e) => g.edge(e).points.map((p) => [p.x, p.y]));
  const theirs = crossings(dagreLines);
  const oursLines = graph.edges.map((e) => e.points);
  // Dagre's boxes are centred on (x, y); labels are the edges' label boxes.
  const dagreBoxes = g.nodes().filter((v) => !v.startsWith('cluster')).map((v) => g.node(v))
    .concat(g.edges().map((e) => g.edge(e)).filter((l) => l.width))
    .map((b) => ({ x: b.x - b.width / 2, y: b.y - b.height / 2, width: b.width, height: b.height }));
  for (const [who, boxes, lines] of [['ours', graph.nodes.concat(graph.labels), oursLines], ['dagre', dagreBoxes, dagreLines]]) {
    const [w, h] = extent(boxes, lines);
    size[who][0] += w;
    size[who][1] += h;
    size[who][2] += lines.reduce((n, line) => n + bends(line), 0);
  }
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
const round = (v) => Math.round(v).toLocaleString('en');
console.log(`total width: ours ${round(size.ours[0])}, dagre ${round(size.dagre[0])}; total height: ours ${round(size.ours[1])}, dagre ${round(size.dagre[1])} (px, margins left out)`);
console.log(`edge bends (interior points where a polyline turns): ours ${round(size.ours[2])}, dagre ${round(size.dagre[2])}`);
console.log(`overlapping boxes in ours: ${bad}; edge segments through a node: ${through}`);
console.log(`layout time, all graphs: ours ${(oursMicros / 1000).toFixed(1)} ms, dagre ${(dagreMicros / 1000).toFixed(1)} ms`);
const worst = rows.filter((r) => r[1] > r[2]).sort((a, b) => (b[1] - b[2]) - (a[1] - a[2])).slice(0, 5);
for (const [name, ours, theirs] of worst) console.log(`  worse: ${name} ours ${ours} dagre ${theirs}`);
if (floor !== null && (oursTotal > dagreTotal || share < floor || bad > 0 || through > 0)) {
  console.error(`below the floor: total ours <= dagre, >= ${floor} % of graphs, no overlap`);
  process.exit(1);
}
