// The official TypeScript SDK's Streamable HTTP client against a running botmesh-mcp --http:
// connect, list, call, check the session id, terminate the session.
// Usage: node sdk-client.mjs URL [TOKEN]; exits non-zero with a message on any mismatch.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import assert from "node:assert/strict";

const [url, token] = process.argv.slice(2);
const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit });
const client = new Client({ name: "botmesh-http-check", version: "1.0.0" });
await client.connect(transport);
assert.ok(transport.sessionId, "the server issued a session id");
assert.match(transport.sessionId, /^[\x21-\x7e]{32,}$/);

const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
for (const name of ["flow_validate", "flow_digest"]) {
  assert.ok(names.includes(name), `tools/list lacks ${name}: ${names}`);
}

const exampleResult = await client.callTool({ name: "flow_example", arguments: {} });
assert.notEqual(exampleResult.isError, true, JSON.stringify(exampleResult));
const example = JSON.parse(exampleResult.content[0].text);

const digest = await client.callTool({ name: "flow_digest", arguments: { document: example } });
assert.notEqual(digest.isError, true, JSON.stringify(digest));
assert.match(digest.structuredContent.digest, /^sha256:[0-9a-f]{64}$/);

const validate = await client.callTool({ name: "flow_validate", arguments: { document: example } });
assert.equal(typeof validate.structuredContent.valid, "boolean", JSON.stringify(validate));

const bad = await client.callTool({ name: "flow_digest", arguments: { wrong: 1 } });
assert.equal(bad.isError, true, "bad arguments are a tool error");

await client.ping();
await transport.terminateSession();
await client.close();
console.log(`sdk client: ${tools.length} tools listed; flow_example, flow_digest, flow_validate called; session terminated`);
