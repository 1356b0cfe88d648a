// The botmesh flow view: an MCP Apps view (io.modelcontextprotocol/ui) for flow_render and
// flow_simulate. The flow's picture (the SVG flow_render draws, shown as an image, with our own
// layer on top for clicks and the conversation's path) beside a WhatsApp-like phone that plays
// a flow_simulate conversation and lets the person keep talking.
//
// Safety: everything that comes from a flow document or a tool result is put into the page as
// text (textContent, createTextNode, attribute values set one by one), never parsed as markup.
// The SVG is shown through an <image> (an SVG image runs no script and loads nothing). The App
// class of @modelcontextprotocol/ext-apps talks to the host over postMessage and ignores every
// message whose source is not the host window (window.parent). Nothing is fetched: no fonts, no
// images, no network.
import {
  App,
  applyDocumentTheme,
  applyHostStyleVariables,
} from "@modelcontextprotocol/ext-apps";
import { config as zodConfig } from "zod/v4";

// No `new Function` in the SDK's validators: the host's default policy forbids eval.
zodConfig({ jitless: true });

const PICTURE_META = "io.github.botmesh/picture";
const SVG_NS = "http://www.w3.org/2000/svg";

/** Elements by id. */
const $ = (id) => document.getElementById(id);

/** An HTML element: `props` are set as properties (never innerHTML), children appended. */
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node[key] = value;
  }
  for (const child of children) {
    if (child == null || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** An SVG element with numeric or string attributes. */
function svg(tag, attributes) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, String(value));
  return node;
}

/** A value shown as short text (for events, variables and results). */
function short(value) {
  const text = typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value ?? null);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

// ---------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------

const state = {
  /** The tool whose result opened the view (`flow_render` or `flow_simulate`), if known. */
  tool: null,
  /** The tool's arguments (ui/notifications/tool-input). */
  args: null,
  /** The host's theme. */
  theme: "light",
  /** Pictures by theme: { svg, meta } or { error } / { issues }. */
  pictures: new Map(),
  /** The picture on show. */
  picture: null,
  /** Picture requests in flight, by theme. */
  loading: new Map(),
  /** The viewBox: x, y, w, h in picture units. */
  view: null,
  /** Page navigation: the pages' rectangles and the current index. */
  pages: [],
  page: -1,
  /** The selected node's index. */
  selected: -1,
  /** The last flow_simulate result shown, its replies, and how many entries were on show. */
  sim: null,
  replies: [],
  shown: 0,
  busy: false,
};

// ---------------------------------------------------------------------------------------------
// The host
// ---------------------------------------------------------------------------------------------

const app = new App(
  { name: "botmesh-flow-view", version: "1" },
  { availableDisplayModes: ["inline", "fullscreen"] },
  { autoResize: true },
);

app.ontoolinput = (params) => {
  if (!state.contextApplied) applyContext(app.getHostContext());
  state.args = params?.arguments && typeof params.arguments === "object" ? params.arguments : {};
  state.replies = Array.isArray(state.args.replies) ? state.args.replies.slice() : [];
  showTitle();
};

app.ontoolresult = (result) => {
  const structured = result?.structuredContent;
  if (result?.isError) {
    note(`The tool call failed: ${resultText(result)}`, "refused");
  } else if (structured && Array.isArray(structured.transcript)) {
    state.tool = "flow_simulate";
    showSimulation(result, true);
  } else if (structured && "format" in structured) {
    state.tool = "flow_render";
    showPhoneStart();
  }
  // A flow_render SVG result already holds the picture (in this theme) and what makes it
  // interactive; otherwise the view asks flow_render for it.
  const meta = result?._meta?.[PICTURE_META];
  const markup = svgText(result);
  if (meta && markup && structured?.format === "svg") {
    const theme = state.args?.theme === "dark" ? "dark" : "light";
    state.pictures.set(theme, { svg: markup, meta });
  }
  if (structured?.valid === false && Array.isArray(structured.issues)) {
    showIssues(structured.issues);
    return;
  }
  loadPicture();
};

app.ontoolcancelled = (params) => {
  note(`The call was cancelled${params?.reason ? `: ${params.reason}` : ""}.`, "refused");
};

app.onhostcontextchanged = (context) => applyContext(context);

app.onteardown = async () => ({});

function applyContext(context) {
  if (!context) return;
  state.contextApplied = true;
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context.theme === "light" || context.theme === "dark") {
    applyDocumentTheme(context.theme);
    if (context.theme !== state.theme) {
      state.theme = context.theme;
      if (state.args) loadPicture();
    }
  }
  // A fixed height (or full screen) is filled; otherwise the view has its own height and the
  // SDK reports it (autoResize).
  if (context.containerDimensions) state.fixedHeight = "height" in context.containerDimensions;
  if (context.displayMode) state.displayMode = context.displayMode;
  document.documentElement.classList.toggle("fill", !!state.fixedHeight || state.displayMode === "fullscreen");
  const modes = context.availableDisplayModes;
  if (Array.isArray(modes)) $("fullscreen").hidden = !modes.includes("fullscreen");
  if (state.picture?.meta) requestAnimationFrame(() => computePages());
}

/** Calls a tool through the host. Resolves to the result; a refusal is thrown as an Error. */
async function callTool(name, args) {
  return app.callServerTool({ name, arguments: args });
}

/** The first text item of a result. */
function resultText(result) {
  const item = (result?.content || []).find((c) => c?.type === "text");
  return typeof item?.text === "string" ? item.text : "";
}

/** The SVG markup of a flow_render SVG result. */
function svgText(result) {
  const item = (result?.content || []).find(
    (c) => c?.type === "text" && typeof c.text === "string" && c.text.startsWith("<svg"),
  );
  return item?.text || null;
}

// ---------------------------------------------------------------------------------------------
// The picture
// ---------------------------------------------------------------------------------------------

/** The document and subflows of the tool's arguments. */
function documents() {
  const args = state.args || {};
  const subflows = Array.isArray(args.subflows) ? args.subflows : [];
  return { document: args.document, subflows };
}

function showTitle() {
  const { document: doc } = documents();
  const title = doc?.metadata?.title || doc?.id || "Flow";
  $("flow-title").textContent = String(title);
  $("bot-name").textContent = String(doc?.metadata?.title || doc?.id || "Bot");
  $("avatar").textContent = String(doc?.id || "B").slice(0, 1).toUpperCase();
}

async function loadPicture() {
  const theme = state.theme;
  const cached = state.pictures.get(theme);
  if (cached) {
    showPicture(cached);
    return;
  }
  if (state.loading.has(theme)) return;
  const { document: doc, subflows } = documents();
  if (!doc || typeof doc !== "object") {
    canvasNote("No flow document in the tool's arguments.", true);
    return;
  }
  const args = { document: doc, format: "svg", theme };
  if (subflows.length) args.subflows = subflows;
  const direction = state.args?.direction;
  if (typeof direction === "string") args.direction = direction;
  canvasNote("Drawing the flow…");
  const request = callTool("flow_render", args)
    .then((result) => {
      const structured = result?.structuredContent;
      if (result?.isError) return { error: resultText(result) || "flow_render failed." };
      if (structured?.valid === false) return { issues: structured.issues || [] };
      const markup = svgText(result);
      if (!markup) return { error: "flow_render returned no SVG." };
      return { svg: markup, meta: result?._meta?.[PICTURE_META] || null };
    })
    .catch((error) => ({ error: `The host refused to draw the flow: ${error?.message || error}` }));
  state.loading.set(theme, request);
  const picture = await request;
  state.loading.delete(theme);
  if (!picture.error) state.pictures.set(theme, picture);
  if (state.theme === theme) showPicture(picture);
}

function canvasNote(text, error = false) {
  const note = $("canvas-note");
  note.hidden = false;
  note.classList.toggle("error", error);
  note.textContent = text;
}

function showIssues(issues) {
  const lines = issues.map(
    (issue) => `• ${issue.source && issue.source !== "document" ? `${issue.source} ` : ""}${issue.path || "/"}: ${issue.message}`,
  );
  canvasNote(`The flow is not valid, so it is not drawn:\n${lines.join("\n")}`, true);
}

function showPicture(picture) {
  if (picture.error) return canvasNote(picture.error, true);
  if (picture.issues) return showIssues(picture.issues);
  const first = !state.picture;
  const meta = picture.meta;
  const size = meta ? { w: meta.width, h: meta.height } : svgSize(picture.svg);
  state.picture = { ...picture, size };
  const image = $("picture");
  image.setAttribute("width", size.w);
  image.setAttribute("height", size.h);
  image.setAttribute("href", `data:image/svg+xml;charset=utf-8,${encodeURIComponent(picture.svg)}`);
  $("canvas-note").hidden = true;
  if (first) {
    fillFocusList();
    computePages();
    startView();
  } else {
    setView(state.view);
  }
  drawHits();
  drawPath();
  drawSelection();
  $("canvas").dataset.nodes = String(meta ? meta.nodes.length : 0);
  if (!meta) $("flow-title").title = "The host dropped the picture's details: steps are not clickable.";
}

/** Width and height from the SVG's root attributes (when the host dropped the result's _meta). */
function svgSize(markup) {
  const w = /\bwidth="(\d+)"/.exec(markup);
  const h = /\bheight="(\d+)"/.exec(markup);
  return { w: Number(w?.[1] || 800), h: Number(h?.[1] || 600) };
}

function setView(view) {
  state.view = view;
  $("stage").setAttribute("viewBox", `${view.x} ${view.y} ${view.w} ${view.h}`);
}

/** The canvas size in CSS pixels. */
function canvasSize() {
  const rect = $("canvas").getBoundingClientRect();
  return { w: Math.max(rect.width, 1), h: Math.max(rect.height, 1) };
}

/** A view of `w`×`h` picture units around the given centre, in the canvas's proportions. */
function viewAround(cx, cy, w, h) {
  const canvas = canvasSize();
  const aspect = canvas.w / canvas.h;
  if (w / h < aspect) w = h * aspect;
  else h = w / aspect;
  return { x: cx - w / 2, y: cy - h / 2, w, h };
}

/** The first view: the whole picture when its text stays readable (at least 0.6 CSS pixels per
 * unit); otherwise, at one pixel per unit, the step the conversation waits at, or page 1. */
function startView() {
  const { w, h } = state.picture.size;
  const size = canvasSize();
  const current = currentNode();
  if (!state.picture.meta || Math.min(size.w / (w + 16), size.h / (h + 16)) >= 0.6) fit();
  else if (current >= 0) centerOn(current);
  else goToPage(0);
}

/** The node where the conversation on show stopped (or waits), if any. */
function currentNode() {
  const outcome = state.sim?.structuredContent?.outcome;
  return outcome?.flow && outcome?.step ? nodeIndex(outcome.flow, outcome.step) : -1;
}

/** A view at one CSS pixel per unit centred on a node. */
function centerOn(index) {
  const node = state.picture?.meta?.nodes[index];
  if (!node) return;
  const size = canvasSize();
  setView(viewAround(node.x + node.width / 2, node.y + node.height / 2, size.w, size.h));
}

/** Pans (keeping the zoom) so that a node is in view. */
function keepInView(index) {
  const node = state.picture?.meta?.nodes[index];
  const view = state.view;
  if (!node || !view) return;
  const inside = node.x >= view.x && node.y >= view.y &&
    node.x + node.width <= view.x + view.w && node.y + node.height <= view.y + view.h;
  if (!inside) setView({ ...view, x: node.x + node.width / 2 - view.w / 2, y: node.y + node.height / 2 - view.h / 2 });
}

function fit() {
  if (!state.picture) return;
  const { w, h } = state.picture.size;
  setView(viewAround(w / 2, h / 2, w + 16, h + 16));
  state.page = -1;
  showPage();
}

function zoom(factor, cx, cy) {
  const view = state.view;
  if (!view) return;
  const { w: pw, h: ph } = state.picture.size;
  const canvas = canvasSize();
  // Between 4 CSS pixels per unit and the whole picture with room around it.
  const minW = canvas.w / 4;
  const maxW = Math.max(pw, (ph * canvas.w) / canvas.h) * 1.5;
  const w = Math.min(Math.max(view.w / factor, minW), maxW);
  const h = (w * view.h) / view.w;
  const x = cx ?? view.x + view.w / 2;
  const y = cy ?? view.y + view.h / 2;
  setView({ x: x - ((x - view.x) * w) / view.w, y: y - ((y - view.y) * h) / view.h, w, h });
}

/** The picture point under a client (mouse) position. */
function toPicture(clientX, clientY) {
  const stage = $("stage");
  const matrix = stage.getScreenCTM();
  if (!matrix) return null;
  const point = new DOMPoint(clientX, clientY).matrixTransform(matrix.inverse());
  return { x: point.x, y: point.y };
}

/** Pages: the picture cut into canvas-sized windows at one CSS pixel per unit, in reading order,
 * each kept when a step's box has its centre in it. Shown only when there is more than one. */
function computePages() {
  const meta = state.picture?.meta;
  if (!meta) return;
  const canvas = canvasSize();
  const cols = Math.max(1, Math.ceil(meta.width / canvas.w));
  const rows = Math.max(1, Math.ceil(meta.height / canvas.h));
  const pages = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const page = { x: c * canvas.w, y: r * canvas.h, w: canvas.w, h: canvas.h };
      const holds = meta.nodes.some((n) => {
        const cx = n.x + n.width / 2;
        const cy = n.y + n.height / 2;
        return cx >= page.x && cx < page.x + page.w && cy >= page.y && cy < page.y + page.h;
      });
      if (holds) pages.push(page);
    }
  }
  state.pages = pages;
  if (state.page >= pages.length) state.page = -1;
  showPage();
}

function showPage() {
  const many = state.pages.length > 1;
  $("pages").hidden = !many;
  if (!many) return;
  $("page-label").textContent =
    state.page < 0 ? `${state.pages.length} pages` : `page ${state.page + 1} of ${state.pages.length}`;
}

function goToPage(index) {
  if (!state.pages.length) return;
  state.page = (index + state.pages.length) % state.pages.length;
  const page = state.pages[state.page];
  setView(viewAround(page.x + page.w / 2, page.y + page.h / 2, page.w, page.h));
  showPage();
}

/** The step list of the focus menu: every node, grouped by flow when there are several. */
function fillFocusList() {
  const select = $("focus");
  select.replaceChildren(el("option", { value: "", text: "Go to a step…" }));
  const meta = state.picture?.meta;
  select.hidden = !meta;
  if (!meta) return;
  const flows = meta.flows || [];
  const groups = new Map();
  meta.nodes.forEach((node, index) => {
    const option = el("option", { value: String(index), text: `${node.step} (${node.kind})` });
    if (flows.length <= 1) return select.append(option);
    if (!groups.has(node.flow)) {
      groups.set(node.flow, el("optgroup", { label: String(flows[node.flow] ?? `flow ${node.flow}`) }));
    }
    groups.get(node.flow).append(option);
  });
  select.append(...groups.values());
}

/** Zooms to a node and the nodes one edge away from it, and selects it. */
function focusNode(index) {
  const meta = state.picture?.meta;
  const node = meta?.nodes[index];
  if (!node) return;
  const near = new Set([index]);
  for (const edge of meta.edges) {
    if (edge.from === index) near.add(edge.to);
    if (edge.to === index) near.add(edge.from);
  }
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const i of near) {
    const n = meta.nodes[i];
    x0 = Math.min(x0, n.x); y0 = Math.min(y0, n.y);
    x1 = Math.max(x1, n.x + n.width); y1 = Math.max(y1, n.y + n.height);
  }
  const size = canvasSize();
  // The neighbourhood with a margin, never closer than 2 CSS pixels per unit.
  const w = Math.max(x1 - x0 + 48, size.w / 2);
  const h = Math.max(y1 - y0 + 48, size.h / 2);
  setView(viewAround((x0 + x1) / 2, (y0 + y1) / 2, w, h));
  select(index, false);
}

/** The clickable boxes over the steps. */
function drawHits() {
  const layer = $("hit-layer");
  layer.replaceChildren();
  const meta = state.picture?.meta;
  if (!meta) return;
  meta.nodes.forEach((node, index) => {
    const rect = svg("rect", { x: node.x, y: node.y, width: node.width, height: node.height, rx: 4 });
    rect.dataset.index = String(index);
    rect.dataset.step = String(node.step);
    const title = svg("title");
    title.textContent = `${node.step} (${node.kind})`;
    rect.append(title);
    layer.append(rect);
  });
}

/** The node index of a flow id and step id. */
function nodeIndex(flow, step) {
  const meta = state.picture?.meta;
  if (!meta) return -1;
  const flows = meta.flows || [];
  return meta.nodes.findIndex((n) => flows[n.flow] === flow && n.step === step);
}

/** The conversation's path on the picture: every step executed, every edge taken between two
 * consecutive steps, the step where it stopped drawn stronger. */
function drawPath() {
  const layer = $("path-layer");
  layer.replaceChildren();
  const meta = state.picture?.meta;
  const result = state.sim?.structuredContent;
  if (!meta || !Array.isArray(result?.path)) return;
  const steps = result.path.map((p) => nodeIndex(p.flow, p.step));
  const taken = new Set();
  for (let i = 1; i < steps.length; i++) {
    const from = steps[i - 1];
    const to = steps[i];
    if (from < 0 || to < 0) continue;
    meta.edges.forEach((edge, e) => {
      if (edge.from === from && edge.to === to) taken.add(e);
    });
  }
  for (const e of taken) {
    const points = meta.edges[e].points.map(([x, y]) => `${x},${y}`).join(" ");
    layer.append(svg("polyline", { points, "data-edge": e }));
  }
  const outcome = result.outcome || {};
  const current = outcome.flow && outcome.step ? nodeIndex(outcome.flow, outcome.step) : -1;
  for (const index of new Set(steps)) {
    if (index < 0) continue;
    const n = meta.nodes[index];
    const rect = svg("rect", { x: n.x - 3, y: n.y - 3, width: n.width + 6, height: n.height + 6, rx: 6 });
    rect.dataset.step = String(n.step);
    if (index === current) rect.setAttribute("class", "current");
    layer.append(rect);
  }
  layer.dataset.steps = String(new Set(steps.filter((s) => s >= 0)).size);
  layer.dataset.edges = String(taken.size);
}

function drawSelection() {
  const layer = $("select-layer");
  layer.replaceChildren();
  const node = state.picture?.meta?.nodes[state.selected];
  if (!node) return;
  layer.append(svg("rect", { x: node.x - 6, y: node.y - 6, width: node.width + 12, height: node.height + 12, rx: 8 }));
}

/** Selects a node: its box outlined and, when `details` (a click), its JSON and diagnostics
 * shown. */
function select(index, details = true) {
  state.selected = index;
  drawSelection();
  $("focus").value = index >= 0 ? String(index) : "";
  if (!details && $("details").hidden) return;
  const meta = state.picture?.meta;
  const node = meta?.nodes[index];
  if (!node) {
    $("details").hidden = true;
    return;
  }
  const flows = meta.flows || [];
  const { document: doc, subflows } = documents();
  const source = node.flow === 0 ? doc : subflows[node.flow - 1];
  const step = Array.isArray(source?.steps) ? source.steps.find((s) => s?.id === node.step) : null;
  const flowId = String(flows[node.flow] ?? "");
  $("details-title").textContent = `${flowId ? `${flowId} › ` : ""}${node.step} (${node.kind})`;
  $("details-json").textContent = step
    ? JSON.stringify(step, null, 2)
    : "The end of the flow: where it goes when a step has no successor (drawn, not written).";
  const sourceName = node.flow === 0 ? "document" : `subflows/${node.flow - 1}`;
  const list = $("details-diagnostics");
  list.replaceChildren();
  const found = (meta.diagnostics || []).filter((d) => d.source === sourceName && d.step === node.step);
  for (const d of found) {
    list.append(el("li", { class: d.severity, text: `${d.severity} ${d.code}: ${d.message} (${d.path})` }));
  }
  if (!found.length) list.append(el("li", { class: "none", text: "No diagnostics." }));
  $("details").hidden = false;
}

// Picture controls.
$("zoom-in").addEventListener("click", () => zoom(1.25));
$("zoom-out").addEventListener("click", () => zoom(0.8));
$("fit").addEventListener("click", fit);
$("page-prev").addEventListener("click", () => goToPage(state.page < 0 ? state.pages.length - 1 : state.page - 1));
$("page-next").addEventListener("click", () => goToPage(state.page + 1));
$("focus").addEventListener("change", (event) => {
  const index = Number(event.target.value);
  if (event.target.value !== "" && Number.isInteger(index)) focusNode(index);
});
$("details-close").addEventListener("click", () => select(-1));
$("fullscreen").addEventListener("click", async () => {
  const mode = state.displayMode === "fullscreen" ? "inline" : "fullscreen";
  try {
    const result = await app.requestDisplayMode({ mode });
    state.displayMode = result?.mode || state.displayMode;
  } catch {
    // The host keeps its mode.
  }
});

const canvas = $("canvas");
canvas.addEventListener(
  "wheel",
  (event) => {
    if (!state.view) return;
    event.preventDefault();
    const point = toPicture(event.clientX, event.clientY);
    zoom(event.deltaY < 0 ? 1.15 : 1 / 1.15, point?.x, point?.y);
  },
  { passive: false },
);
let drag = null;
canvas.addEventListener("pointerdown", (event) => {
  if (!state.view || event.button !== 0) return;
  drag = { x: event.clientX, y: event.clientY, view: state.view, moved: false, id: event.pointerId };
});
canvas.addEventListener("pointermove", (event) => {
  if (!drag || event.pointerId !== drag.id) return;
  const dx = event.clientX - drag.x;
  const dy = event.clientY - drag.y;
  if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
  if (!drag.moved) {
    drag.moved = true;
    canvas.setPointerCapture(event.pointerId);
    canvas.classList.add("dragging");
  }
  const size = canvasSize();
  const scale = Math.max(drag.view.w / size.w, drag.view.h / size.h);
  setView({ ...drag.view, x: drag.view.x - dx * scale, y: drag.view.y - dy * scale });
});
const endDrag = (event) => {
  if (!drag || event.pointerId !== drag.id) return;
  const moved = drag.moved;
  drag = null;
  canvas.classList.remove("dragging");
  if (moved) return;
  const target = event.target;
  const index = target instanceof SVGRectElement && target.dataset.index !== undefined ? Number(target.dataset.index) : -1;
  select(index);
};
canvas.addEventListener("pointerup", endDrag);
canvas.addEventListener("pointercancel", () => {
  drag = null;
  canvas.classList.remove("dragging");
});
canvas.addEventListener("dblclick", (event) => {
  const index = event.target?.dataset?.index;
  if (index !== undefined) focusNode(Number(index));
});
canvas.addEventListener("keydown", (event) => {
  if (!state.view) return;
  const step = state.view.w / 10;
  const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
  if (event.key === "+" || event.key === "=") zoom(1.25);
  else if (event.key === "-") zoom(0.8);
  else if (event.key === "0") fit();
  else if (event.key === "PageDown") goToPage(state.page + 1);
  else if (event.key === "PageUp") goToPage(state.page - 1);
  else if (event.key === "Escape") select(-1);
  else if (moves[event.key]) {
    const [dx, dy] = moves[event.key];
    setView({ ...state.view, x: state.view.x + dx, y: state.view.y + dy });
  } else return;
  event.preventDefault();
});
new ResizeObserver(() => {
  if (!state.picture?.meta) return;
  computePages();
  if (state.view) setView(viewAround(state.view.x + state.view.w / 2, state.view.y + state.view.h / 2, state.view.w, state.view.h));
}).observe(canvas);

// ---------------------------------------------------------------------------------------------
// The phone
// ---------------------------------------------------------------------------------------------

const chat = $("chat");

function note(text, kind = "") {
  const node = el("div", { class: `note ${kind}`.trim(), text });
  chat.append(node);
  chat.scrollTop = chat.scrollHeight;
  return node;
}

/** A flow_render view: the phone offers to start a conversation with the flow. */
function showPhoneStart() {
  if (state.sim) return;
  chat.replaceChildren(
    el("button", { type: "button", class: "start", text: "▶ Talk to the bot", onclick: () => simulate([]) }),
  );
  setComposer(false);
}

/** The arguments of a flow_simulate call with these replies: the tool's own arguments (start,
 * contact, variables, handlers) when it opened the view, else the document and subflows. */
function simulateArguments(replies) {
  const args = state.args || {};
  const call = {};
  for (const key of ["document", "subflows", "start", "contact", "variables", "handlers"]) {
    if (args[key] !== undefined && (state.tool === "flow_simulate" || key === "document" || key === "subflows")) {
      call[key] = args[key];
    }
  }
  call.replies = replies;
  return call;
}

/** Runs the conversation again with these replies: one flow_simulate call through the host. The
 * new bot messages appear; a refusal or an error is said in the phone and changes nothing. */
async function simulate(replies) {
  if (state.busy) return;
  state.busy = true;
  setComposer(false);
  const typing = el("div", { class: "typing", text: "typing…" });
  chat.append(typing);
  chat.scrollTop = chat.scrollHeight;
  let result;
  try {
    result = await callTool("flow_simulate", simulateArguments(replies));
  } catch (error) {
    typing.remove();
    state.busy = false;
    note(`The host refused the call to flow_simulate: ${error?.message || error}`, "refused");
    setComposer(state.sim?.structuredContent?.outcome?.kind === "waiting");
    return;
  }
  typing.remove();
  state.busy = false;
  if (result?.isError || result?.structuredContent?.valid === false) {
    const text = resultText(result) || "flow_simulate could not run the conversation.";
    note(`flow_simulate: ${text}`, "refused");
    setComposer(state.sim?.structuredContent?.outcome?.kind === "waiting");
    return;
  }
  state.replies = replies;
  showSimulation(result, replies.length === 0);
  tellTheModel();
}

/** Shows a flow_simulate result: every transcript entry (those new since the last result
 * animated), the outcome, the warnings; the path on the picture. */
function showSimulation(result, restart) {
  const structured = result?.structuredContent;
  if (!structured) return;
  if (structured.valid === false) {
    chat.replaceChildren();
    note("The flow is not valid, so the conversation cannot run.", "refused");
    for (const issue of structured.issues || []) note(`${issue.path || "/"}: ${issue.message}`, "warning");
    setComposer(false);
    return;
  }
  const before = restart ? 0 : state.shown;
  state.sim = result;
  const transcript = structured.transcript || [];
  chat.replaceChildren();
  const waiting = structured.outcome?.kind === "waiting";
  let lastBot = -1;
  transcript.forEach((entry, index) => {
    if (entry?.bot) lastBot = index;
  });
  const tapTitles = new Map();
  transcript.forEach((entry, index) => {
    const fresh = index >= before;
    const nodes = renderEntry(entry, { live: waiting && index === lastBot, tapTitles });
    for (const node of nodes) {
      if (fresh) node.classList.add("new");
      chat.append(node);
    }
  });
  state.shown = transcript.length;
  const outcome = structured.outcome || {};
  const said = outcomeText(outcome);
  if (said) note(said, "outcome");
  for (const warning of structured.warnings || []) note(`⚠ ${warning.message}`, "warning");
  $("bot-status").textContent = waiting ? "online · simulated" : outcomeStatus(outcome);
  $("bot-status").dataset.outcome = String(outcome.kind || "");
  chat.dataset.entries = String(transcript.length);
  chat.scrollTop = chat.scrollHeight;
  setComposer(waiting);
  closeSheet();
  drawPath();
  if (!restart || state.view) keepInView(currentNode());
}

function outcomeStatus(outcome) {
  switch (outcome.kind) {
    case "ended": return "conversation ended";
    case "handoff": return "with a person";
    default: return String(outcome.kind || "");
  }
}

function outcomeText(outcome) {
  switch (outcome.kind) {
    case "waiting": return "";
    case "ended": return "The conversation ended.";
    case "handoff":
      return `The bot handed the conversation to a person${outcome.queue ? ` (queue ${outcome.queue})` : ""}.`;
    case "no-flow": return "No flow answers this first message.";
    default:
      return `The conversation stopped: ${outcome.kind}${outcome.message ? `: ${outcome.message}` : ""}.`;
  }
}

/** The elements of one transcript entry. `live`: the bot message the person can answer now. */
function renderEntry(entry, { live, tapTitles }) {
  if (entry?.user) {
    const user = entry.user;
    let text = typeof user.text === "string" ? user.text : "";
    if (user.tap !== undefined) text = tapTitles.get(String(user.tap)) ?? `tap: ${user.tap}`;
    return [el("div", { class: "bubble user", text })];
  }
  if (entry?.bot) return renderBot(entry, live, tapTitles);
  if (entry?.event) return [el("div", { class: "note event", text: eventText(entry), dataset: { step: String(entry.step ?? "") } })];
  return [];
}

function eventText(entry) {
  switch (entry.event) {
    case "retry": return `↻ ${entry.step}: asked again`;
    case "save": return `${entry.var} = ${short(entry.value)}`;
    case "action":
      return `⚙ ${entry.handler}(${short(entry.args)})${"result" in entry ? ` → ${short(entry.result)}` : " failed"}`;
    case "delay": return `⏱ ${entry.seconds} s${entry.typing ? " typing…" : ""}`;
    case "call": return `→ subflow ${entry.to}`;
    case "return": return `← back to ${entry.to}`;
    default: return String(entry.event);
  }
}

function renderBot(entry, live, tapTitles) {
  const send = entry.bot || {};
  const bubble = el("div", { class: "bubble bot", dataset: { step: String(entry.step ?? ""), flow: String(entry.flow ?? "") } });
  bubble.title = `${entry.flow} › ${entry.step}`;
  bubble.addEventListener("click", () => {
    const index = nodeIndex(entry.flow, entry.step);
    if (index >= 0) focusNode(index);
  });
  if (send.header) bubble.append(el("span", { class: "header", text: String(send.header) }));
  const nodes = [bubble];
  switch (send.type) {
    case "text":
      bubble.append(String(send.text ?? ""));
      break;
    case "buttons": {
      bubble.append(String(send.text ?? ""));
      const buttons = Array.isArray(send.buttons) ? send.buttons : [];
      for (const b of buttons) tapTitles.set(String(b.id), String(b.title));
      nodes.push(
        el("div", { class: "choices" }, ...buttons.map((b) =>
          el("button", { type: "button", text: String(b.title), disabled: !live, dataset: { tap: String(b.id) }, onclick: () => reply({ tap: b.id }) }),
        )),
      );
      break;
    }
    case "list": {
      bubble.append(String(send.text ?? ""));
      const sections = Array.isArray(send.sections) ? send.sections : [];
      for (const s of sections) for (const r of s.rows || []) tapTitles.set(String(r.id), String(r.title));
      nodes.push(
        el("div", { class: "choices" },
          el("button", { type: "button", text: `☰ ${send.button ?? "Choose"}`, disabled: !live, dataset: { list: "open" }, onclick: () => openSheet(send) }),
        ),
      );
      break;
    }
    case "media":
      bubble.append(el("span", { class: "kind", text: `📎 ${send.media ?? "media"}${send.filename ? ` · ${send.filename}` : ""}` }));
      if (send.caption) bubble.append(String(send.caption));
      bubble.append(el("span", { class: "meta", text: String(send.url ?? "") }));
      break;
    case "template":
      bubble.append(el("span", { class: "kind", text: `Template ${send.name ?? ""} (${send.language ?? ""})` }));
      bubble.append((send.parameters || []).map((p, i) => `{{${i + 1}}} ${p}`).join("\n") || "no parameters");
      break;
    case "location":
      bubble.append(el("span", { class: "kind", text: "📍 Location" }));
      bubble.append([send.name, send.address, `${send.latitude}, ${send.longitude}`].filter(Boolean).join("\n"));
      break;
    default:
      bubble.append(JSON.stringify(send));
  }
  if (send.footer) bubble.append(el("span", { class: "footer", text: String(send.footer) }));
  return nodes;
}

function openSheet(send) {
  const sheet = $("sheet");
  sheet.replaceChildren(el("h3", { text: String(send.button ?? "Choose") }));
  for (const section of send.sections || []) {
    if (section.title) sheet.append(el("h4", { text: String(section.title) }));
    for (const row of section.rows || []) {
      sheet.append(
        el("button", { type: "button", class: "row", dataset: { tap: String(row.id) }, onclick: () => reply({ tap: row.id }) },
          String(row.title),
          row.description ? el("small", { text: String(row.description) }) : null,
        ),
      );
    }
  }
  sheet.append(el("button", { type: "button", class: "row", text: "Cancel", onclick: closeSheet }));
  sheet.hidden = false;
}

function closeSheet() {
  $("sheet").hidden = true;
}

/** The person answers: one more reply, one flow_simulate call. */
function reply(answer) {
  closeSheet();
  simulate([...state.replies, answer]);
}

function setComposer(enabled) {
  const on = enabled && !state.busy;
  $("message").disabled = !on;
  $("send").disabled = !on;
  for (const button of chat.querySelectorAll(".choices button")) if (!on) button.disabled = true;
  $("restart").disabled = state.busy || !state.args;
}

// No <form>: a host's sandbox may deny form submission (allow-forms), and it is not needed.
function sendTyped() {
  const input = $("message");
  const text = input.value;
  if (!text.trim() || input.disabled) return;
  input.value = "";
  reply(text);
}
$("send").addEventListener("click", sendTyped);
$("message").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.isComposing) {
    event.preventDefault();
    sendTyped();
  }
});
$("restart").addEventListener("click", () => {
  if (state.args) simulate([]);
});

/** Tells the model what the person did in the phone, when the host takes context updates. */
function tellTheModel() {
  if (!app.getHostCapabilities()?.updateModelContext) return;
  const structured = state.sim?.structuredContent || {};
  const outcome = structured.outcome || {};
  const text =
    `In the flow view the person talked to the bot with replies ${JSON.stringify(state.replies)}; ` +
    `outcome ${outcome.kind}${outcome.step ? ` at step ${outcome.step}` : ""}.`;
  app.updateModelContext({ content: [{ type: "text", text }] }).catch(() => {});
}

// ---------------------------------------------------------------------------------------------
// Start
// ---------------------------------------------------------------------------------------------

setComposer(false);
app
  .connect()
  .then(() => applyContext(app.getHostContext()))
  .catch((error) => canvasNote(`Could not connect to the host: ${error?.message || error}`, true));
