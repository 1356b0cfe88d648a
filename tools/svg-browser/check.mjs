// The SVG renders in a browser as we draw it ourselves (issue 14): for several flows, directions
// and themes, `botmesh-mcp render` writes the SVG and the PNG; Debian's headless Chromium shows
// the SVG at the PNG's own scale (viewport = the SVG's width x height, device scale factor = the
// PNG's pixels per unit) and takes a screenshot, which must be the PNG's size and nearly the
// same pixels (compare.mjs). Chromium must draw every text with the fonts the SVG embeds
// (FlowSans, and FlowEmoji for emoji: the glyphs each picture uses, as base64 @font-face) and
// the SVG must paint every pixel itself (a transparent screenshot background stays invisible).
//
// Then the same SVGs in a Chromium that sees only the DejaVu fonts (issue 41: a fontconfig
// file naming only their directory, FONTCONFIG_FILE): every text's bounding box must lie
// inside its box (the node, label or cluster shape drawn just before it), and the text must
// still be drawn with the embedded fonts.
//
// Then a self-check: deliberately wrong pictures (another theme, another direction of the same
// size, another size, one label moved by one or two units, one arrow head or one edge left out)
// must each fail the same test, and an SVG without its embedded fonts must overflow its boxes
// with DejaVu only, so a pass means something.
//
// Usage: node check.mjs [--binary PATH] [--keep DIR]
//   --binary  the botmesh-mcp binary (default: target/release/botmesh-mcp of this repository)
//   --keep    write every SVG, PNG and screenshot into DIR (to look at them)
// Prints one line of figures per picture; exits 1 when a picture differs or a wrong picture
// passes, 2 when something could not run.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { PNG } from 'pngjs';
import { LEVEL, LIMITS, TILE, compare, failures } from './compare.mjs';

// Anything that stops the check from running (a binary that fails, no Chromium) exits 2.
for (const event of ['uncaughtException', 'unhandledRejection']) {
  process.on(event, (error) => {
    console.error(`svg-browser: could not run: ${error?.stack ?? error}`);
    process.exit(2);
  });
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const option = (name) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? null : process.argv[at + 1];
};
const binary = resolve(option('--binary') ?? join(root, 'target/release/botmesh-mcp'));
const keep = option('--keep');
const work = keep ? resolve(keep) : mkdtempSync(join(tmpdir(), 'svg-browser-'));
mkdirSync(work, { recursive: true });

// The documents: the example flow (the README's picture), one with loops, two with subflows,
// every step kind, and hostile labels (escaping, emoji drawn, CJK written as code points).
const example = readFileSync(join(root, 'crates/flow-schema/src/example.rs'), 'utf8')
  .match(/pub const EXAMPLE_FLOW_DOCUMENT: &str = r#"([\s\S]*?)"#;/);
if (!example) {
  console.error('svg-browser: EXAMPLE_FLOW_DOCUMENT not found in crates/flow-schema/src/example.rs');
  process.exit(2);
}
const sets = { example: [JSON.parse(example[1])] };
for (const name of ['lint_infinite_loop_hit', 'two_subflows', 'all_kinds', 'hostile_labels']) {
  const fixture = JSON.parse(readFileSync(join(root, 'crates/flow-analyzer/test_data/fixtures', `${name}.json`), 'utf8'));
  sets[name] = fixture.flows;
}
sets.support_menu = ['support-menu', 'order-status', 'feedback'].map((name) =>
  JSON.parse(readFileSync(join(root, 'examples/flows', `${name}.json`), 'utf8')));
// A 150-step flow, as flow-render's benchmark flow (crates/flow-render/src/bench_flow.rs): too
// long for one readable image, so it is checked page by page and around one step.
sets.long = [(() => {
  const steps = []
  for (let i = 0; i < 150; i++) {
    const id = `step_${i}`
    if (i === 149) steps.push({ id, kind: 'end', text: 'Bye' })
    else if (i % 10 === 3) steps.push({ id, kind: 'buttons', text: 'Continue?', buttons: [
      { id: 'y', title: 'Yes, continue' }, { id: 'n', title: 'Start again', next: `step_${i - 3}` }] })
    else if (i % 10 === 7) steps.push({ id, kind: 'branch', cases: [
      { when: { var: 'name', op: 'eq', value: 'x' }, next: `step_${Math.min(i + 5, 149)}` }] })
    else steps.push({ id, kind: 'message', text: `Message number ${i} of the flow` })
  }
  return { version: 2, id: 'bench', steps }
})()];
const files = {};
for (const [name, flows] of Object.entries(sets)) {
  files[name] = flows.map((flow, i) => {
    const path = join(work, `${name}.${i}.json`);
    writeFileSync(path, JSON.stringify(flow));
    return path;
  });
}

/** Renders a set with our binary (`part`: more arguments, such as `--page 2`); returns the output path. */
function render(set, direction, theme, output, part = []) {
  const [main, ...subflows] = files[set];
  const args = ['render', main, ...subflows.flatMap((s) => ['--subflows', s]), '--direction', direction, '--theme', theme, ...part, '-o', output];
  execFileSync(binary, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  return output;
}

// The pictures checked: every set, both themes, all four directions among them.
const cases = [
  ['example', 'TD', 'light'],
  ['example', 'LR', 'dark'],
  ['lint_infinite_loop_hit', 'TD', 'light'],
  ['lint_infinite_loop_hit', 'LR', 'dark'],
  ['two_subflows', 'TD', 'light'],
  ['two_subflows', 'RL', 'dark'],
  ['support_menu', 'LR', 'light'],
  ['all_kinds', 'BT', 'dark'],
  ['hostile_labels', 'TD', 'light'],
  // A page of a flow too long for one image, and the neighbourhood of one step: the SVG is
  // the whole picture with the part as its viewBox, the PNG that part as flow_render draws it.
  ['long', 'TD', 'light', ['--page', '2']],
  ['long', 'LR', 'dark', ['--focus', 'step_13', '--depth', '2']],
];

/** The SVG's size in units, from its root element. */
function svgSize(svg) {
  const m = svg.match(/^<svg [^>]*\bwidth="(\d+)" height="(\d+)"/);
  if (!m) throw new Error('the SVG has no width and height');
  return [Number(m[1]), Number(m[2])];
}

/**
 * The PNG's pixels per unit, as `Picture::to_png` chooses it (crates/flow-render/src/png.rs,
 * `fit_scale`): 2, less for more than 4 megapixels or a side over 8000 pixels, but never below
 * the text floor (10 px for 12-unit text); an f32.
 */
function pngScale(width, height) {
  const fit = Math.fround(Math.min(2, Math.sqrt(4_000_000 / (width * height)), 8000 / Math.max(width, height)));
  return Math.max(fit, Math.fround(10 / 12));
}

/** The scale of a page or a focus: a whole number of eighths (crates/flow-render/src/pages.rs), read from the PNG. */
function partScale(pngWidth, units) {
  return Math.round((pngWidth / units) * 8) / 8;
}

const readPng = (path) => PNG.sync.read(readFileSync(path));

/** The font families the SVG embeds (crates/flow-render/src/svg.rs). */
const EMBEDDED = ['FlowEmoji', 'FlowSans'];

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--hide-scrollbars'],
});

/**
 * Screenshots `svgPath` in Chromium at the scale our PNG of that size is drawn at and compares
 * it with the PNG at `pngPath`. Returns `{ problems: [...], figures, fonts, size, scale }`; no
 * problem means the pictures match.
 */
async function check(svgPath, pngPath, shotPath, part = false) {
  const svg = readFileSync(svgPath, 'utf8');
  const [width, height] = svgSize(svg);
  const png = readPng(pngPath);
  const scale = part ? partScale(png.width, width) : pngScale(width, height);
  const problems = [];
  // Our size: the floor of units x scale, in f32 as Rust computes it.
  const expected = [width, height].map((units) => Math.floor(Math.fround(units * scale)));
  if (png.width !== expected[0] || png.height !== expected[1]) {
    problems.push(`the SVG's ${width}x${height} units at scale ${scale.toFixed(3)} make ${expected.join('x')} pixels, our PNG is ${png.width}x${png.height}`);
  }
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: scale });
  const page = await context.newPage();
  await page.goto(pathToFileURL(svgPath).href);
  const fonts = await textFonts(page);
  const bytes = await page.screenshot({ type: 'png', omitBackground: true, animations: 'disabled' });
  await context.close();
  if (shotPath) writeFileSync(shotPath, bytes);
  const shot = PNG.sync.read(bytes);
  // Chromium rounds units x scale to whole pixels, we take the floor (to stay within the
  // limits): at a fractional scale the screenshot may have one more row or column, the
  // partly covered one we leave out; it is cropped. Any other difference is a failure.
  const extra = [shot.width - png.width, shot.height - png.height];
  const fractional = [width, height].map((units) => !Number.isInteger(Math.fround(units * scale)));
  const sizeOk = extra.every((e, i) => e === 0 || (e === 1 && fractional[i]));
  const size = `${png.width}x${png.height}` + (extra.some((e) => e) && sizeOk ? ` (Chromium ${shot.width}x${shot.height}, cropped)` : '');
  if (!sizeOk) {
    problems.push(`the screenshot is ${shot.width}x${shot.height}, our PNG ${png.width}x${png.height}`);
    return { problems, size, fonts };
  }
  let transparent = 0;
  for (let y = 0; y < png.height; y++) {
    for (let x = 0; x < png.width; x++) if (shot.data[(y * shot.width + x) * 4 + 3] !== 255) transparent++;
  }
  if (transparent) problems.push(`${transparent} pixels of the screenshot are not painted by the SVG`);
  const other = fonts.filter((f) => !EMBEDDED.includes(f));
  if (fonts.length === 0) problems.push('Chromium reported no font for the text');
  if (other.length) problems.push(`Chromium drew text with ${other.join(', ')}, not the embedded ${EMBEDDED.join(' and ')}`);
  const figures = compare(png, shot, png.width, png.height);
  for (const key of failures(figures)) problems.push(`${key} ${format(key, figures[key])} over ${format(key, LIMITS[key])}`);
  return { problems, figures, fonts, size, scale };
}

/** The families Chromium drew the SVG's text with (DevTools protocol, CSS.getPlatformFontsForNode). */
async function textFonts(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('DOM.enable');
  await cdp.send('CSS.enable');
  const { root: document } = await cdp.send('DOM.getDocument', { depth: -1 });
  const { nodeIds } = await cdp.send('DOM.querySelectorAll', { nodeId: document.nodeId, selector: 'text' });
  const families = new Set();
  for (const nodeId of nodeIds) {
    const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
    for (const font of fonts) families.add(font.familyName);
  }
  await cdp.detach();
  return [...families].sort();
}

function format(key, value) {
  return key === 'mean' ? value.toFixed(2) : `${(value * 100).toFixed(2)}%`;
}

function figuresText(result) {
  const f = result.figures;
  if (!f) return result.size;
  return `${result.size} scale ${result.scale.toFixed(3)} mean ${format('mean', f.mean)} share ${format('share', f.share)} tile ${format('tile', f.tile)} at ${f.tileAt.join(',')}`;
}

const started = Date.now();
console.log(`limits: mean <= ${LIMITS.mean}, share <= ${format('share', LIMITS.share)}, tile <= ${format('tile', LIMITS.tile)} ` +
  `(3x3 box blur, a pixel differs above ${LEVEL}/255, tiles of ${TILE} px)`);
let failed = 0;
let passed = 0;
const fontsSeen = new Set();
const pictures = {};
for (const [set, direction, theme, part = []] of cases) {
  const name = `${set}-${direction.toLowerCase()}-${theme}${part.length ? `-${part[0].slice(2)}` : ''}`;
  const svgPath = render(set, direction, theme, join(work, `${name}.svg`), part);
  const pngPath = render(set, direction, theme, join(work, `${name}.png`), part);
  pictures[name] = { svgPath, pngPath };
  const result = await check(svgPath, pngPath, keep ? join(work, `${name}.chromium.png`) : null, part.length > 0);
  result.fonts.forEach((f) => fontsSeen.add(f));
  const ok = result.problems.length === 0;
  ok ? passed++ : failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${figuresText(result)}${ok ? '' : ` -- ${result.problems.join('; ')}`}`);
}
console.log(`Chromium drew the text with: ${[...fontsSeen].join(', ') || 'no font'}`);

// Self-check: each wrong picture must fail.
const edited = (from, name, edit) => {
  const path = join(work, `wrong-${name}.svg`);
  writeFileSync(path, edit(readFileSync(from, 'utf8')));
  return path;
};
const base = pictures['example-td-light'];
const loops = pictures['lint_infinite_loop_hit-td-light'];
const wrong = [
  ['another theme (dark SVG, light PNG)', render('lint_infinite_loop_hit', 'TD', 'dark', join(work, 'wrong-theme.svg')), loops.pngPath],
  ['another direction of the same size (BT SVG, TD PNG)', render('lint_infinite_loop_hit', 'BT', 'light', join(work, 'wrong-direction.svg')), loops.pngPath],
  ['another size (LR SVG, TD PNG)', pictures['example-lr-dark'].svgPath, base.pngPath],
  ['one label moved 2 units right', edited(base.svgPath, 'moved', (svg) => {
    const texts = [...svg.matchAll(/<text x="(\d+)"/g)];
    const t = texts[Math.floor(texts.length / 2)];
    return svg.slice(0, t.index) + `<text x="${Number(t[1]) + 2}"` + svg.slice(t.index + t[0].length);
  }), base.pngPath],
  ['one label moved 1 unit down', edited(base.svgPath, 'moved1', (svg) => {
    const texts = [...svg.matchAll(/<text x="(\d+)" y="(\d+)"/g)];
    const t = texts[Math.floor(texts.length / 3)];
    return svg.slice(0, t.index) + `<text x="${t[1]}" y="${Number(t[2]) + 1}"` + svg.slice(t.index + t[0].length);
  }), base.pngPath],
  ['one arrow head left out', edited(base.svgPath, 'arrow', (svg) => {
    const lines = svg.split('\n');
    const heads = lines.flatMap((line, i) => (line.startsWith('<polygon points') && line.includes('fill="#444444"/>') ? [i] : []));
    if (heads.length === 0) throw new Error('the self-check found no arrow head to leave out');
    lines.splice(heads[Math.floor(heads.length / 2)], 1);
    return lines.join('\n');
  }), base.pngPath],
  ['one edge left out', edited(base.svgPath, 'edge', (svg) => {
    const lines = svg.split('\n');
    const edges = lines.flatMap((line, i) => (line.startsWith('<polyline') ? [i] : []));
    if (edges.length === 0) throw new Error('the self-check found no edge to leave out');
    lines.splice(edges[Math.floor(edges.length / 2)], 1);
    return lines.join('\n');
  }), base.pngPath],
];
let caught = 0;
for (const [what, svgPath, pngPath] of wrong) {
  const result = await check(svgPath, pngPath, keep ? svgPath.replace(/\.svg$/, '.chromium.png') : null);
  const detected = result.problems.length > 0;
  detected ? caught++ : failed++;
  console.log(`${detected ? 'ok  ' : 'FAIL'} self-check, ${what}: ${figuresText(result)} -- ${detected ? `fails as it must: ${result.problems.join('; ')}` : 'PASSES: the check cannot see it'}`);
}
// DejaVu only: a fontconfig file that names one directory, holding the fonts of Debian's
// fonts-dejavu-core (DejaVu Sans, Sans Mono and Serif), so Chromium sees no other font.
const fontsDir = join(work, 'dejavu-core');
mkdirSync(fontsDir, { recursive: true });
const core = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf', 'DejaVuSansMono.ttf', 'DejaVuSansMono-Bold.ttf', 'DejaVuSerif.ttf', 'DejaVuSerif-Bold.ttf'];
for (const file of core) copyFileSync(join('/usr/share/fonts/truetype/dejavu', file), join(fontsDir, file));
const fontconfig = join(work, 'fonts-dejavu-only.conf');
writeFileSync(fontconfig, `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>${fontsDir}</dir>
  <cachedir>${join(work, 'fontconfig-cache')}</cachedir>
</fontconfig>
`);
const dejavu = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  env: { ...process.env, FONTCONFIG_FILE: fontconfig },
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--hide-scrollbars'],
});

/**
 * Opens an SVG in the DejaVu-only Chromium and measures every text against its box (the last
 * rect or polygon before it: the node's shape, the label's box, the cluster's frame). Returns
 * `{ problems, texts, worst, fonts }`: `worst` is the farthest a text reaches outside its box,
 * in units.
 */
async function fits(svgPath) {
  const svg = readFileSync(svgPath, 'utf8');
  const [width, height] = svgSize(svg);
  const context = await dejavu.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  await page.goto(pathToFileURL(svgPath).href);
  await page.evaluate(() => document.fonts.ready);
  const fonts = await textFonts(page);
  const measured = await page.evaluate(() => {
    const out = [];
    for (const text of document.querySelectorAll('text')) {
      let box = text.previousElementSibling;
      while (box && !['rect', 'polygon'].includes(box.tagName)) box = box.previousElementSibling;
      if (!box) { out.push({ text: text.textContent, over: Infinity }); continue; }
      const t = text.getBBox();
      const b = box.getBBox();
      const over = Math.max(b.x - t.x, t.x + t.width - (b.x + b.width), b.y - t.y, t.y + t.height - (b.y + b.height));
      out.push({ text: text.textContent, over });
    }
    return out;
  });
  await context.close();
  const problems = [];
  const outside = measured.filter((m) => m.over > 0.5);
  for (const m of outside.slice(0, 3)) problems.push(`"${m.text}" reaches ${m.over.toFixed(1)} units outside its box`);
  if (outside.length > 3) problems.push(`and ${outside.length - 3} more texts outside their boxes`);
  const worst = Math.max(...measured.map((m) => m.over));
  return { problems, texts: measured.length, worst, fonts };
}

console.log(`DejaVu only (${fontsDir}, FONTCONFIG_FILE):`);
for (const [name, { svgPath }] of Object.entries(pictures)) {
  const result = await fits(svgPath);
  const other = result.fonts.filter((f) => !EMBEDDED.includes(f));
  if (other.length) result.problems.push(`Chromium drew text with ${other.join(', ')}, not the embedded fonts`);
  const ok = result.problems.length === 0;
  ok ? passed++ : failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${result.texts} texts, the nearest ${(-result.worst).toFixed(1)} units inside its box, drawn with ${result.fonts.join(', ')}${ok ? '' : ` -- ${result.problems.join('; ')}`}`);
}
{
  // Self-check: the SVG without its embedded fonts, as before issue 41, must overflow.
  const stripped = edited(pictures['example-td-light'].svgPath, 'no-fonts', (svg) => svg.replace(/<style>[\s\S]*?<\/style>\n/, ''));
  const result = await fits(stripped);
  const detected = result.problems.length > 0;
  detected ? caught++ : failed++;
  console.log(`${detected ? 'ok  ' : 'FAIL'} self-check, the example without its embedded fonts, DejaVu only: drawn with ${result.fonts.join(', ')} -- ${detected ? `fails as it must: ${result.problems.join('; ')}` : 'PASSES: the check cannot see it'}`);
}
await dejavu.close();

await browser.close();
if (!keep) rmSync(work, { recursive: true, force: true });
console.log(`svg-browser: ${passed} pictures match, ${caught} of ${wrong.length + 1} wrong pictures caught, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`browser: ${passed + caught} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
