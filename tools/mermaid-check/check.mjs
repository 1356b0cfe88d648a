// Parses every `.mmd` file of a directory with Mermaid's own parser (`mermaid.parse`), headless
// in Node with jsdom providing `window`, once with Mermaid 12.x and once with 11.x (many viewers
// still embed 11.x). Prints how many parsed; exits 1 on any failure or an empty corpus.
// Usage: node check.mjs DIR
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JSDOM } from 'jsdom';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node check.mjs DIR');
  process.exit(2);
}
const dom = new JSDOM('<!doctype html><html><body></body></html>', { pretendToBeVisual: true });
globalThis.window = dom.window;
globalThis.document = dom.window.document;

const files = readdirSync(dir).filter((f) => f.endsWith('.mmd')).sort();
const texts = files.map((f) => [f, readFileSync(join(dir, f), 'utf8')]);
let failed = files.length === 0;
for (const pkg of ['mermaid', 'mermaid-11']) {
  const { default: mermaid } = await import(pkg);
  mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
  const version = JSON.parse(
    readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url), 'utf8'),
  ).version;
  let parsed = 0;
  const failures = [];
  for (const [file, text] of texts) {
    try {
      const result = await mermaid.parse(text);
      if (!result || result.diagramType !== 'flowchart-v2') {
        throw new Error(`parsed as ${result && result.diagramType}, not a flowchart`);
      }
      parsed += 1;
    } catch (error) {
      const message = String((error && error.message) || error).split('\n').slice(0, 4).join(' | ');
      failures.push(`${file}: ${message}`);
    }
  }
  console.log(`mermaid ${version}: ${parsed} of ${files.length} diagrams parsed`);
  for (const failure of failures) console.error(`FAILED (mermaid ${version}) ${failure}`);
  if (failures.length > 0) failed = true;
}
process.exit(failed ? 1 : 0);
