// The MCP Apps view in a real browser against the official host side (issue 39): the release
// binary is started through the official TypeScript SDK client, declaring the extension
// io.modelcontextprotocol/ui; the view it serves (resources/read of ui://botmesh/flow) is hosted
// by the SDK's AppBridge in Debian's headless Chromium, in a sandboxed iframe of another origin
// under the extension's default Content Security Policy, and every tool call the view makes goes
// through the bridge to the SDK client and the real server. Checks, for each era (an
// `initialize` session, then 2026-07-28 requests that carry the capability in `_meta`):
// - the server links flow_render and flow_simulate to the view and serves it;
// - the picture appears with one clickable box per step, a click shows the step's JSON;
// - the phone shows the transcript of the flow_simulate result;
// - tapping a button makes exactly one flow_simulate call and shows the next message, and the
//   path on the picture follows (the new step is lit, it is the current one);
// - typing a reply works the same way; a refused call is said in the phone;
// - the host's theme change is followed (dark), the size is reported;
// - a hostile document (a step text `<img src=x onerror=…>`, a title with `<script>`) executes
//   nothing, creates no element and shows its characters;
// - the view makes no network request (every request is intercepted; only the host page and the
//   view itself are served).
// With --screenshots DIR it also writes flow-view-light.png and flow-view-dark.png of the
// example flow (the guide's pictures).
//
// Usage: node check.mjs [--binary PATH] [--screenshots DIR] [--era legacy|modern|both]
// Exits 1 when a check fails, 2 when something could not run.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import * as esbuild from "esbuild";
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

for (const event of ["uncaughtException", "unhandledRejection"]) {
  process.on(event, (error) => {
    console.error(`ui check: could not run: ${error?.stack ?? error}`);
    process.exit(2);
  });
}

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const option = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : process.argv[at + 1];
};
const binary = resolve(option("--binary", join(root, "target/release/botmesh-mcp")));
const screenshots = option("--screenshots", null);
const eras = { legacy: ["legacy"], modern: ["modern"], both: ["legacy", "modern"] }[option("--era", "both")];

/** The extension's default policy for a view without `_meta.ui.csp` (SEP-1865, Host Behavior),
 * plus what a sandboxed document is denied anyway. */
const DEFAULT_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; media-src 'self' data:; connect-src 'none'; frame-src 'none'; " +
  "object-src 'none'; base-uri 'self'";
const HOST_URL = "http://host.test/";
const VIEW_URL = "http://view.test/flow-view.html";
const UI = { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } };
const WIDTH = 1000;
const HEIGHT = 600;

let failed = 0;
function check(ok, what, detail = "") {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${!ok && detail ? ` -- ${detail}` : ""}`);
  if (!ok) failed += 1;
  return ok;
}

/** The SDK client on a fresh server process, declaring MCP Apps, in `era`. */
async function connect(era) {
  const client = new Client(
    { name: "botmesh-ui-check", version: "1" },
    {
      capabilities: { extensions: UI },
      ...(era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
    },
  );
  await client.connect(new StdioClientTransport({ command: binary, args: [], stderr: "inherit" }));
  return client;
}

/** The host page: AppBridge bundled for the browser. */
async function hostPage() {
  const built = await esbuild.build({
    entryPoints: [join(here, "host.js")],
    bundle: true,
    format: "esm",
    write: false,
    logLevel: "warning",
  });
  return `<!doctype html><html><head><meta charset="utf-8"><title>host</title></head>` +
    `<body style="margin:0"><script type="module">${built.outputFiles[0].text}</script></body></html>`;
}

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--hide-scrollbars"],
});
const hostHtml = await hostPage();

/**
 * Opens the view in a fresh page for a tool call (`input`, `result`), calls going to `client`.
 * Returns the page, the view's frame, the requests it made and the tool calls the host passed.
 */
async function openView(client, viewHtml, input, result, theme = "light") {
  const context = await browser.newContext({ viewport: { width: WIDTH, height: HEIGHT + 20 } });
  const page = await context.newPage();
  const requests = [];
  const dialogs = [];
  page.on("console", (message) => {
    if (message.type() === "error") console.log(`  (console error: ${message.text()})`);
  });
  page.on("pageerror", (error) => console.log(`  (page error: ${error.message})`));
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    dialog.dismiss();
  });
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url === HOST_URL) return route.fulfill({ contentType: "text/html", body: hostHtml });
    if (url === VIEW_URL) {
      return route.fulfill({
        contentType: "text/html; charset=utf-8",
        headers: { "Content-Security-Policy": DEFAULT_CSP },
        body: viewHtml,
      });
    }
    requests.push(url);
    return route.abort();
  });
  const calls = [];
  await page.exposeFunction("hostCallTool", async (params) => {
    calls.push(params);
    return client.callTool(params);
  });
  await page.addInitScript((setup) => {
    window.hostSetup = setup;
  }, { input, result, theme, viewUrl: VIEW_URL, width: WIDTH, height: HEIGHT });
  await page.goto(HOST_URL);
  await page.waitForFunction(() => window.hostReady === true, null, { timeout: 20000 });
  const frame = page.frames().find((f) => f.url() === VIEW_URL);
  if (!frame) throw new Error("the view's frame did not load");
  return { context, page, frame, requests, calls, dialogs };
}

/** The picture on show: the number of step boxes, once drawn. */
async function waitForPicture(frame) {
  await frame.waitForFunction(() => Number(document.getElementById("canvas").dataset.nodes || 0) > 0, null, { timeout: 20000 });
  return frame.evaluate(() => document.querySelectorAll("#hit-layer rect").length);
}

/** What the phone shows: bubbles (text), and the path on the picture. */
async function phone(frame) {
  return frame.evaluate(() => ({
    bubbles: [...document.querySelectorAll("#chat .bubble")].map((b) => ({
      who: b.classList.contains("user") ? "user" : "bot",
      text: b.textContent,
    })),
    entries: Number(document.getElementById("chat").dataset.entries || 0),
    refused: [...document.querySelectorAll("#chat .note.refused")].map((n) => n.textContent),
    path: [...document.querySelectorAll("#path-layer rect")].map((r) => ({
      step: r.dataset.step,
      current: r.getAttribute("class") === "current",
    })),
    edges: document.querySelectorAll("#path-layer polyline").length,
    status: document.getElementById("bot-status").dataset.outcome,
  }));
}

/** The bubbles a transcript should show: every user and bot entry (bot text first line). */
function expectedBubbles(transcript) {
  return transcript.filter((e) => e.user || e.bot).length;
}

function lastBotText(transcript) {
  const bots = transcript.filter((e) => e.bot);
  const send = bots[bots.length - 1]?.bot;
  return send?.text ?? send?.caption ?? "";
}

async function scenario(era) {
  console.log(`-- ${era} era`);
  const client = await connect(era);
  const version = client.getNegotiatedProtocolVersion?.();
  check(version === (era === "modern" ? "2026-07-28" : "2025-11-25"), `negotiated ${version}`);
  const capabilities = client.getServerCapabilities() || {};
  check(!!capabilities.resources && !!capabilities.extensions?.["io.modelcontextprotocol/ui"],
    "the server declares resources and the extension", JSON.stringify(capabilities));
  const { tools } = await client.listTools();
  const linked = tools.filter((t) => t._meta?.ui?.resourceUri === "ui://botmesh/flow").map((t) => t.name);
  check(linked.join() === "flow_render,flow_simulate", "flow_render and flow_simulate link the view", linked.join());
  const { resources } = await client.listResources();
  check(resources.length === 1 && resources[0].uri === "ui://botmesh/flow", "resources/list names the view");
  const read = await client.readResource({ uri: "ui://botmesh/flow" });
  const content = read.contents[0];
  check(content.mimeType === "text/html;profile=mcp-app", "the view is text/html;profile=mcp-app");
  const viewHtml = content.text;

  const example = (await client.callTool({ name: "flow_example", arguments: {} })).structuredContent;
  const input = {
    document: example,
    replies: [{ tap: "margherita" }],
    handlers: { "orders.quote": { returns: 24 }, "orders.place": { returns: "A-1042" } },
  };
  const first = await client.callTool({ name: "flow_simulate", arguments: input });
  const render = await client.callTool({ name: "flow_render", arguments: { document: example, format: "svg" } });
  const steps = render.structuredContent.nodes;

  const view = await openView(client, viewHtml, input, first);
  const { frame, page } = view;
  const boxes = await waitForPicture(frame);
  check(boxes === steps, `the picture has ${steps} step boxes`, `got ${boxes}`);
  const image = await frame.evaluate(() => document.getElementById("picture").getAttribute("href") || "");
  check(image.startsWith("data:image/svg+xml"), "the picture is our SVG, shown as an image");
  let shown = await phone(frame);
  check(shown.bubbles.length === expectedBubbles(first.structuredContent.transcript),
    "the phone shows the transcript", `${shown.bubbles.length} bubbles`);
  check(shown.bubbles[0]?.text === first.structuredContent.transcript[0].bot.text, "the first bubble is the welcome",
    shown.bubbles[0]?.text);
  const pathBefore = shown.path.length;
  check(pathBefore === new Set(first.structuredContent.path.map((p) => p.step)).size && shown.path.some((p) => p.current && p.step === "choose_size"),
    "the path is lit up to the waiting step", JSON.stringify(shown.path));

  // A click on a step shows its JSON.
  await frame.click('#hit-layer rect[data-step="ask_address"]');
  const details = await frame.evaluate(() => document.getElementById("details-json").textContent);
  check(details.includes('"id": "ask_address"') && details.includes('"retries": 2'), "a click on a step shows its JSON");
  await frame.click("#details-close");

  // Zoom.
  const before = await frame.evaluate(() => document.getElementById("stage").viewBox.baseVal.width);
  await frame.click("#zoom-in");
  const after = await frame.evaluate(() => document.getElementById("stage").viewBox.baseVal.width);
  check(after < before, "zoom in narrows the view");
  await frame.click("#fit");

  // Tap a button: exactly one flow_simulate call, the next message, the path follows.
  const callsBefore = view.calls.length;
  await frame.click('.choices button[data-tap="small"]');
  await frame.waitForFunction((n) => Number(document.getElementById("chat").dataset.entries) > n, shown.entries, { timeout: 20000 });
  const tapped = { ...input, replies: [...input.replies, { tap: "small" }] };
  const expected = (await client.callTool({ name: "flow_simulate", arguments: tapped })).structuredContent;
  const newCalls = view.calls.slice(callsBefore);
  check(newCalls.length === 1 && newCalls[0].name === "flow_simulate", "a tap makes exactly one flow_simulate call",
    JSON.stringify(newCalls.map((c) => c.name)));
  check(JSON.stringify(newCalls[0]?.arguments?.replies) === JSON.stringify(tapped.replies), "with the replies so far",
    JSON.stringify(newCalls[0]?.arguments?.replies));
  shown = await phone(frame);
  const lastBot = shown.bubbles.filter((b) => b.who === "bot").pop()?.text;
  check(lastBot === lastBotText(expected.transcript), "the next message appears", lastBot);
  check(shown.path.some((p) => p.current && p.step === "ask_address") && shown.path.length > pathBefore && shown.edges > 0,
    "the path follows to the new step", JSON.stringify(shown.path));

  // Type a reply.
  await frame.fill("#message", "Via dei Tribunali 32, Napoli");
  await frame.click("#send");
  await frame.waitForFunction((n) => Number(document.getElementById("chat").dataset.entries) > n, shown.entries, { timeout: 20000 });
  shown = await phone(frame);
  check(shown.bubbles.some((b) => b.who === "user" && b.text === "Via dei Tribunali 32, Napoli") &&
    shown.path.some((p) => p.current && p.step === "summary"), "a typed reply goes through and the bot answers",
    JSON.stringify(shown.path.filter((p) => p.current)));

  if (screenshots) {
    mkdirSync(screenshots, { recursive: true });
    const summary = await frame.evaluate(() => document.querySelector('#hit-layer rect[data-step="summary"]').dataset.index);
    await frame.selectOption("#focus", summary);
    await page.locator("iframe").screenshot({ path: join(screenshots, "flow-view-light.png"), animations: "disabled" });
  }

  // The host's theme changes to dark: the view follows and draws the dark picture.
  await page.evaluate(() => window.bridge.sendHostContextChange({ theme: "dark" }));
  await frame.waitForFunction(() => document.documentElement.dataset.theme === "dark", null, { timeout: 10000 });
  await frame.waitForFunction(() => !document.querySelector("#canvas-note:not([hidden])"), null, { timeout: 20000 });
  const darkCall = view.calls.find((c) => c.name === "flow_render" && c.arguments?.theme === "dark");
  check(!!darkCall, "a dark host theme is followed (the dark picture is drawn)");
  if (screenshots) {
    await page.locator("iframe").screenshot({ path: join(screenshots, "flow-view-dark.png"), animations: "disabled" });
  }

  // The host refuses a call: the phone says so and nothing else changes.
  await page.evaluate(() => {
    window.refuseCalls = true;
  });
  const entries = shown.entries;
  await frame.click('.choices button[data-tap="confirm"]');
  await frame.waitForFunction(() => document.querySelector("#chat .note.refused"), null, { timeout: 10000 });
  shown = await phone(frame);
  check(shown.refused.some((t) => t.includes("refused")) && shown.entries === entries,
    "a refused call is said in the phone and changes nothing", JSON.stringify(shown.refused));
  // Another window (a sibling frame) posts a forged tool result to the view: it is ignored, as
  // the view trusts only its host window (the App class checks each message's source).
  await page.evaluate(() => new Promise((done) => {
    window.addEventListener("message", (event) => event.data === "forged" && done());
    const forger = document.createElement("iframe");
    forger.srcdoc = `<script>
      parent.frames[0].postMessage({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: {
        content: [], structuredContent: { valid: true, issues: [], path: [], outcome: { kind: "ended" },
        transcript: [{ bot: { type: "text", text: "FORGED" }, flow: "x", step: "y" }] } } }, "*");
      parent.postMessage("forged", "*");
    <\/script>`;
    document.body.append(forger);
  }));
  await page.evaluate(() => window.bridge.sendHostContextChange({ theme: "light" }));
  await frame.waitForFunction(() => document.documentElement.dataset.theme === "light", null, { timeout: 10000 });
  const forged = await frame.evaluate(() => document.getElementById("chat").textContent.includes("FORGED"));
  check(!forged, "a message from another window than the host is ignored");
  const heights = await page.evaluate(() => document.querySelector("iframe").style.height);
  check(/px$/.test(heights), "the view reports its size", heights);
  check(view.requests.length === 0, "the view made no network request", view.requests.join(" "));
  check(view.dialogs.length === 0, "no dialog opened");
  await view.context.close();

  // A hostile document: markup in a step text and in the title shows as characters.
  const hostile = {
    version: 2,
    id: "hostile",
    metadata: { title: "<script>window.top.__pwned = 1</script>Evil" },
    steps: [
      { id: "s1", kind: "message", text: '<img src=x onerror="window.top.__pwned = 2">' },
      { id: "s2", kind: "buttons", text: "<b>bold</b>?", buttons: [{ id: "x", title: "<i>y</i>" }] },
    ],
  };
  const hostileInput = { document: hostile, replies: [] };
  const hostileResult = await client.callTool({ name: "flow_simulate", arguments: hostileInput });
  const evil = await openView(client, viewHtml, hostileInput, hostileResult);
  await waitForPicture(evil.frame);
  const seen = await evil.frame.evaluate(() => ({
    bubbles: [...document.querySelectorAll("#chat .bubble")].map((b) => b.textContent),
    title: document.getElementById("flow-title").textContent,
    button: document.querySelector(".choices button")?.textContent,
    elements: document.querySelectorAll("img, b, i, #chat script, #app script").length,
    scripts: document.querySelectorAll("script").length,
    pwned: window.__pwned,
  }));
  const pwned = await evil.page.evaluate(() => window.__pwned);
  check(seen.bubbles[0] === hostile.steps[0].text && seen.bubbles[1]?.startsWith("<b>bold</b>?") &&
    seen.button === "<i>y</i>" && seen.title.startsWith("<script>"), "a hostile document shows its characters",
    JSON.stringify(seen));
  check(seen.elements === 0 && seen.scripts === 1, "and creates no element", JSON.stringify(seen));
  check(seen.pwned === undefined && pwned === undefined && evil.dialogs.length === 0, "and executes nothing");
  check(evil.requests.length === 0, "and makes no request", evil.requests.join(" "));
  await evil.context.close();
  await client.close();
}

for (const era of eras) await scenario(era);
await browser.close();
console.log(failed ? `ui check: ${failed} check(s) failed` : "ui check: every check passed");
process.exit(failed ? 1 : 0);
