#!/usr/bin/env node
// The Windows binary's docs tools and stdio behaviour, driven by the official TypeScript SDK
// client (run under Wine by .ci/parts/platforms.sh; works against any build of the server):
// - docs_search and docs_page serve the guides with `/` paths;
// - every Windows path form that could reach another file, a device, an alternate data stream
//   or an excluded folder is refused (isError, one sentence) or served as the page it names,
//   and no answer carries an absolute path (of the docs root or a drive);
// - CRLF-terminated input is answered, and closing stdin ends the process with status 0.
//
// usage: node windows-check.mjs --docs DOCS_DIR_AS_THE_SERVER_SEES_IT [--root DOCS_DIR_HERE]
//          [--timeout SECONDS] -- COMMAND [ARGS...]
// The server command gets `--docs DOCS_DIR` appended. Prints one summary line, or one reason on
// stderr and exits 1.
import { spawn } from 'node:child_process'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'

function parseArgs(argv) {
  const options = { docs: undefined, root: undefined, timeout: 120 }
  let i = 0
  for (; i < argv.length && argv[i] !== '--'; i++) {
    if (argv[i] === '--docs') options.docs = argv[++i]
    else if (argv[i] === '--root') options.root = argv[++i]
    else if (argv[i] === '--timeout') options.timeout = Number(argv[++i])
    else throw new Error(`unknown option ${argv[i]}`)
  }
  const command = argv.slice(i + 1)
  if (command.length === 0 || options.docs === undefined) throw new Error('usage: --docs DIR [--root DIR] -- COMMAND [ARGS...]')
  return { ...options, command }
}

function check(condition, message) {
  if (!condition) throw new Error(message)
}

// Refused: each of these must answer isError. `served` ones must answer the page they name.
const REFUSED = [
  '..\\',
  '..\\index.md',
  'guide\\..\\..\\x.md',
  'C:\\x.md',
  'C:x.md',
  'C:/Windows/win.ini',
  'Z:\\etc\\passwd',
  '\\\\?\\C:\\x.md',
  '\\\\server\\share\\x.md',
  '//server/share/x.md',
  '\\\\.\\CON',
  'CON.md',
  'con.md',
  'nul.md',
  'COM1.md',
  'LPT1.md',
  'guide/aux.md',
  'guide/PRN.md',
  'index.md:x',
  'index.md::$DATA',
  'index.md:Zone.Identifier',
  'index.md.',
  'index.md ',
  'index.md...',
  'guide./getting-started.md',
  'INDEX~1.MD',
  'GUIDE~1/GETTIN~1.MD',
  'API/x.md',
  'Dist/x.md',
  'SUPERP~1/x.md',
  'outside/escape.md',
  '../outside-secret.md',
]

// Absolute paths a refusal must never echo back: a drive path, a UNC path, a Unix root.
const ABSOLUTE = /(^|[\s"'(])([A-Za-z]:[\\/][^\s]*[\\/]|\\\\[?.]\\|\/(home|root|tmp|work|usr|etc)\/)/

async function mcpChecks({ command, docs, root }) {
  const transport = new StdioClientTransport({
    command: command[0],
    args: [...command.slice(1), '--docs', docs],
    env: { ...getDefaultEnvironment(), ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('WINE'))) },
    stderr: 'ignore',
  })
  const client = new Client({ name: 'botmesh-windows-check', version: '0.0.0' })
  await client.connect(transport)
  try {
    const { tools } = await client.listTools()
    const names = tools.map((tool) => tool.name)
    check(names.includes('docs_search') && names.includes('docs_page'), `the docs tools are not advertised (got ${names.join(', ')})`)

    const search = await client.callTool({ name: 'docs_search', arguments: { query: 'validate a flow document', limit: 5 } })
    check(search.isError !== true, `docs_search failed: ${JSON.stringify(search.content)}`)
    const results = search.structuredContent?.results ?? []
    check(results.length > 0, 'docs_search found nothing')
    for (const hit of results) {
      check(!hit.path.includes('\\'), `docs_search path ${hit.path} uses a backslash`)
      check(!/^(api|dist|\.vitepress|superpowers)\//i.test(hit.path), `docs_search served an excluded page ${hit.path}`)
    }

    const page = await client.callTool({ name: 'docs_page', arguments: { path: 'guide/getting-started.md' } })
    check(page.isError !== true, `docs_page guide/getting-started.md failed: ${JSON.stringify(page.content)}`)
    const pageText = page.content.map((item) => item.text ?? '').join('')
    check(pageText.includes('# '), 'docs_page guide/getting-started.md returned no Markdown')
    const dotted = await client.callTool({ name: 'docs_page', arguments: { path: './guide//getting-started.md' } })
    check(dotted.isError !== true, 'docs_page ./guide//getting-started.md was refused')

    let refused = 0
    for (const path of REFUSED) {
      const answer = await client.callTool({ name: 'docs_page', arguments: { path } })
      const text = answer.content.map((item) => item.text ?? '').join('\n')
      check(answer.isError === true, `docs_page ${JSON.stringify(path)} was served: ${text.slice(0, 120)}`)
      // The refusal may quote the path asked; anything else absolute is a leak.
      const rest = text.split(path).join('')
      check(!ABSOLUTE.test(rest), `docs_page ${JSON.stringify(path)} leaked an absolute path: ${text}`)
      if (root !== undefined) check(!rest.includes(root), `docs_page ${JSON.stringify(path)} leaked the docs root: ${text}`)
      check(!rest.includes(docs), `docs_page ${JSON.stringify(path)} leaked the docs root: ${text}`)
      refused += 1
    }
    return { tools: tools.length, hits: results.length, refused }
  } finally {
    await client.close()
  }
}

// CRLF input is answered, and a closed stdin ends the server with status 0.
function stdioChecks({ command, docs }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0], [...command.slice(1), '--docs', docs], { stdio: ['pipe', 'pipe', 'ignore'] })
    let out = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk) => {
      out += chunk
    })
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      const lines = out.split('\n').filter((line) => line.length > 0)
      try {
        check(signal === null && code === 0, `closing stdin ended the server with ${signal ?? `status ${code}`}`)
        check(lines.length === 2, `expected 2 answers to CRLF lines, got ${lines.length}: ${out.slice(0, 200)}`)
        const [init, ping] = lines.map((line) => JSON.parse(line))
        check(init.id === 1 && init.result?.serverInfo?.name === 'botmesh-mcp', `bad initialize answer ${lines[0].slice(0, 200)}`)
        check(ping.id === 2 && ping.result !== undefined, `bad ping answer ${lines[1]}`)
        check(!out.includes('\r'), 'an answer line carries a carriage return')
        resolve(lines.length)
      } catch (error) {
        reject(error)
      }
    })
    child.stdin.write(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"crlf","version":"1"}}}\r\n' +
        '{"jsonrpc":"2.0","method":"notifications/initialized"}\r\n' +
        '{"jsonrpc":"2.0","id":2,"method":"ping"}\r\n',
    )
    child.stdin.end()
  })
}

async function main() {
  const options = parseArgs(process.argv.slice(2))
  const timer = setTimeout(() => {
    console.error(`windows-check: no result within ${options.timeout} s`)
    process.exit(1)
  }, options.timeout * 1000)
  timer.unref()
  const mcp = await mcpChecks(options)
  const answers = await stdioChecks(options)
  console.log(
    `windows-check: ${mcp.tools} tools, docs_search ${mcp.hits} hits with / paths, ${mcp.refused} Windows path forms refused without an absolute path, ${answers} CRLF lines answered, closed stdin exits 0`,
  )
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`windows-check: ${error.message}`)
    process.exit(1)
  },
)
