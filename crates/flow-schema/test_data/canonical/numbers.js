// Run `node numbers.js > numbers.tsv` to regenerate the table the canonical tests read.
// Generates numbers.tsv: a JSON number literal and String(Number(literal)) from JavaScript.
let seed = 0x8785n;
function next() { seed = (seed * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n); return seed; }
const lines = [];
const buf = new DataView(new ArrayBuffer(8));
function addFloat(x) { if (!Number.isFinite(x)) return; lines.push([JSON.stringify(x), String(x)]); }
for (let i = 0; i < 600; i++) { buf.setBigUint64(0, next()); addFloat(buf.getFloat64(0)); }
for (let i = 0; i < 300; i++) { const m = Number(next() % 2000000n) - 1000000; const e = Number(next() % 60n) - 30; const lit = `${m}e${e}`; lines.push([lit, String(Number(lit))]); }
for (let i = 0; i < 300; i++) { const d = next() % 100000000000n; const f = next() % 1000000n; const lit = `${d}.${f}`; lines.push([lit, String(Number(lit))]); }
for (let i = 0; i < 300; i++) { let v = next(); const bits = Number(next() % 64n) + 1; v = v >> BigInt(64 - bits); const lit = (next() & 1n) ? `-${v}` : `${v}`; lines.push([lit, String(Number(lit))]); }
for (let k = 50; k <= 64; k++) { for (const d of [-3n, -2n, -1n, 0n, 1n, 2n, 3n]) { const v = (1n << BigInt(k)) + d; if (v >= 0n && v < (1n << 64n)) { lines.push([`${v}`, String(Number(`${v}`))]); lines.push([`-${v}`, String(Number(`-${v}`))]); } } }
for (const lit of ["0", "-0", "0.0", "-0.0", "1e21", "1e-7", "1e-6", "123456789012345678901234567890", "5e-324", "1.7976931348623157e308", "0.1", "100", "1E2", "2.50"]) lines.push([lit, String(Number(lit))]);
process.stdout.write("# JSON number literal, then String(Number(literal)) as node " + process.version + " writes it (tab-separated).\n# Regenerate: node numbers.js > numbers.tsv\n" + lines.map(l => l.join("\t")).join("\n") + "\n");
