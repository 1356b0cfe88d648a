#!/usr/bin/env node
// MCP Inspector CLI smoke test (@modelcontextprotocol/inspector, pinned in package.json):
// `tools/list` and one `tools/call` (flow_digest) against a server command.
//
// usage: node inspector-check.mjs -- COMMAND [ARGS...]
//
// Prints one summary line on success; the Inspector's own output and one reason on stderr, and
// exit 1, otherwise. Each Inspector run is bounded (30 s).
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'

const here = new URL('.', import.meta.url).pathname
const inspector = `${here}node_modules/.bin/mcp-inspector`
const inspectorVersion = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/inspector/package.json', import.meta.url), 'utf8'),
).version

const DOCUMENT = {
  version: 2,
  id: 'inspector_check',
  steps: [{ id: 'hello', kind: 'message', text: 'Hello!' }],
}

function inspect(command, args) {
  return new Promise((resolve, reject) => {
    execFile(inspector, ['--cli', ...command, ...args], { timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`mcp-inspector ${args.join(' ')} failed: ${error.message}\n${stderr}`))
      else {
        try {
          resolve(JSON.parse(stdout))
        } catch {
          reject(new Error(`mcp-inspector ${args.join(' ')} printed no JSON: ${stdout}\n${stderr}`))
        }
      }
    })
  })
}

async function main() {
  const split = process.argv.indexOf('--')
  const command = split === -1 ? [] : process.argv.slice(split + 1)
  if (command.length === 0) throw new Error('missing server command after --')

  const listed = await inspect(command, ['--method', 'tools/list'])
  const names = (listed.tools ?? []).map((tool) => tool.name)
  for (const name of ['flow_validate', 'flow_analyze', 'flow_migrate', 'flow_diff', 'flow_digest', 'flow_schema', 'flow_example']) {
    if (!names.includes(name)) throw new Error(`tools/list lacks ${name} (got ${names.join(', ')})`)
  }

  const called = await inspect(command, [
    '--method', 'tools/call', '--tool-name', 'flow_digest', '--tool-arg', `document=${JSON.stringify(DOCUMENT)}`,
  ])
  if (called.isError === true) throw new Error(`flow_digest answered isError: ${JSON.stringify(called.content)}`)
  const text = called.content?.find((item) => item.type === 'text')?.text
  const digest = text === undefined ? undefined : JSON.parse(text).digest
  if (typeof digest !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(digest)) {
    throw new Error(`flow_digest returned no sha256 digest: ${text}`)
  }
  console.log(`inspector ${inspectorVersion}: tools/list (${names.length} tools), tools/call flow_digest -> ${digest.slice(0, 19)}...`)
}

main().catch((error) => {
  console.error(`inspector-check: ${error.message}`)
  process.exit(1)
})
