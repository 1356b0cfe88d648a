// Builds the MCP Apps view of botmesh-mcp (ui://botmesh/flow) into ONE self-contained HTML file:
// src/view.js bundled with the official App class of @modelcontextprotocol/ext-apps by esbuild
// (minified, no source map), src/view.css, both inlined into src/view.html. The Rust crate embeds
// the result with include_str! (crates/mcp-server/ui/flow-view.html).
//
//   node build.mjs                 write the bundle
//   node build.mjs --check         fail unless the committed bundle is exactly what this builds
//   node build.mjs --out FILE      write elsewhere
//
// Reproducible: every version is pinned in package-lock.json, esbuild's output is deterministic,
// and the file opens with a stamp, the SHA-256 of the files it is built from (this script,
// package.json, package-lock.json and every file of src/, named in the stamp, CRLF read as LF),
// which a test of xtask (xtask/src/ui.rs) recomputes without Node: a source edited without a
// rebuild fails `cargo test`. Run it through `cargo xtask ui [--check]`.
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const target = join(root, "crates", "mcp-server", "ui", "flow-view.html");

/** The files the bundle is built from, in the stamp's order. */
function stamped() {
  const sources = readdirSync(join(here, "src")).sort().map((file) => `src/${file}`);
  return ["build.mjs", "package.json", "package-lock.json", ...sources];
}

/** The stamp: the files, then the SHA-256 over each file's path, a NUL, its text with CRLF as
 * LF, a NUL (xtask/src/ui.rs computes the same). */
function stamp() {
  const files = stamped();
  const hash = createHash("sha256");
  for (const file of files) {
    const text = readFileSync(join(here, file), "utf8").replaceAll("\r\n", "\n");
    hash.update(`${file}\0${text}\0`);
  }
  return `sha256 of ${files.join(" ")}: ${hash.digest("hex")}`;
}

// zod, pulled in by the SDK, carries error messages in 40 languages behind `z.locales`; the
// view never shows a validation message, so only English is bundled (about 260 KB less).
const englishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: dirname(args.path),
      loader: "js",
    }));
  },
};

async function build() {
  const result = await esbuild.build({
    entryPoints: [join(here, "src", "view.js")],
    bundle: true,
    minify: true,
    format: "iife",
    target: ["es2022"],
    platform: "browser",
    legalComments: "none",
    charset: "utf8",
    write: false,
    plugins: [englishOnly],
    logLevel: "warning",
  });
  const script = result.outputFiles[0].text.trimEnd();
  const style = readFileSync(join(here, "src", "view.css"), "utf8").replaceAll("\r\n", "\n");
  const template = readFileSync(join(here, "src", "view.html"), "utf8").replaceAll("\r\n", "\n");
  // Inline text must not close its element early, nor open an HTML comment in a script.
  if (/<\/script/i.test(script) || /<!--/.test(script)) throw new Error("the bundle holds </script or <!--");
  if (/<\/style/i.test(style)) throw new Error("the style sheet holds </style");
  const html = template
    .replace("/*STYLE*/", () => style.trim())
    .replace("/*SCRIPT*/", () => script);
  const header = `<!-- botmesh-mcp flow view (ui://botmesh/flow), built by tools/ui/build.mjs (cargo xtask ui); do not edit. ${stamp()} -->\n`;
  // The stamp goes right after the doctype (nothing may come before it).
  const doctype = "<!doctype html>\n";
  if (!html.startsWith(doctype)) throw new Error("src/view.html must start with <!doctype html>");
  return doctype + header + html.slice(doctype.length);
}

const args = process.argv.slice(2);
const html = await build();
if (args[0] === "--check") {
  let committed = "";
  try {
    committed = readFileSync(target, "utf8");
  } catch {
    // Missing: stale.
  }
  if (committed !== html) {
    console.error(`${relative(root, target)} is stale: run \`cargo xtask ui\``);
    process.exit(1);
  }
  console.log(`${relative(root, target)} is fresh (${Buffer.byteLength(html)} bytes)`);
} else {
  const out = args[0] === "--out" ? args[1] : target;
  writeFileSync(out, html);
  console.log(`wrote ${relative(root, out)} (${Buffer.byteLength(html)} bytes)`);
}
