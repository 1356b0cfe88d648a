#!/usr/bin/env node
// Start-up cost of the npm launcher: spawn-to-initialize-response time (spawn the server, send
// `initialize` at once, stop the clock at the first line of stdout) for the bare binary, the
// installed launcher run directly (`node .../@botmesh/mcp/bin/botmesh-mcp.js`), and `npx -y
// @botmesh/mcp`; runs are interleaved round-robin after one warm-up each. Prints medians.
//
// usage: node launcher-bench.mjs --binary BIN --project DIR [--runs N]
//   DIR is a folder where @botmesh/mcp and its platform package are installed (.ci/parts/npm.sh
//   makes one from the packed tarballs).
import { spawn } from 'node:child_process'
import path from 'node:path'

const INITIALIZE =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"launcher-bench","version":"0"}}}\n'

function parseArgs(argv) {
  const options = { runs: 20 }
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--binary') options.binary = argv[++i]
    else if (argv[i] === '--project') options.project = argv[++i]
    else if (argv[i] === '--runs') options.runs = Number(argv[++i])
    else throw new Error(`unknown option ${argv[i]}`)
  }
  if (!options.binary || !options.project || !(options.runs >= 1)) {
    throw new Error('usage: launcher-bench.mjs --binary BIN --project DIR [--runs N]')
  }
  return options
}

/** Spawn-to-exit of `node -e 0`, in milliseconds: the part of the overhead that is Node's own start. */
function nodeStart() {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint()
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' })
    child.on('error', reject)
    child.on('close', () => resolve(Number(process.hrtime.bigint() - start) / 1e6))
  })
}

/** One spawn-to-initialize-response measurement, in milliseconds. */
function once(command, args, cwd) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint()
    const child = spawn(command, args, { cwd, stdio: ['pipe', 'pipe', 'inherit'] })
    let elapsed
    let seen = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${command}: no initialize answer within 30 s`))
    }, 30_000)
    child.stdout.on('data', (chunk) => {
      seen += chunk
      if (elapsed === undefined && seen.includes('\n')) {
        elapsed = Number(process.hrtime.bigint() - start) / 1e6
        child.stdin.end()
      }
    })
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      if (elapsed === undefined) reject(new Error(`${command} exited (${code}) without answering`))
      else if (JSON.parse(seen.split('\n')[0]).result?.protocolVersion === undefined) {
        reject(new Error(`${command} answered ${seen.slice(0, 200)}`))
      } else resolve(elapsed)
    })
    child.stdin.on('error', () => {}) // a server that dies early is reported by 'close'
    child.stdin.write(INITIALIZE)
  })
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

async function main() {
  const { binary, project, runs } = parseArgs(process.argv.slice(2))
  const launcher = path.join(project, 'node_modules', '@botmesh', 'mcp', 'bin', 'botmesh-mcp.js')
  const cases = [
    { label: 'bare binary', command: path.resolve(binary), args: [] },
    { label: 'node launcher', command: process.execPath, args: [launcher] },
    { label: 'npx -y @botmesh/mcp', command: 'npx', args: ['-y', '@botmesh/mcp'] },
  ]
  for (const c of cases) {
    c.times = []
    await once(c.command, c.args, project) // warm-up: page cache, npx's own start
  }
  const nodeTimes = []
  for (let i = 0; i < runs; i++) {
    for (const c of cases) c.times.push(await once(c.command, c.args, project))
    nodeTimes.push(await nodeStart())
  }
  const base = median(cases[0].times)
  console.log(`spawn-to-initialize, median of ${runs} runs (node ${process.version}):`)
  for (const c of cases) {
    const m = median(c.times)
    const extra = c === cases[0] ? '' : `  (+${(m - base).toFixed(1)} ms over the bare binary)`
    console.log(`  ${c.label.padEnd(20)} ${m.toFixed(1).padStart(7)} ms${extra}`)
  }
  const node = median(nodeTimes)
  console.log(`  ${'(node -e 0, to exit)'.padEnd(20)} ${node.toFixed(1).padStart(7)} ms  (Node's own start, for scale)`)
  const own = median(cases[1].times) - base - node
  console.log(`  launcher's own code (node launcher - bare binary - Node's start): ${own.toFixed(1)} ms`)
}

main().catch((error) => {
  console.error(`launcher-bench: ${error.message}`)
  process.exit(1)
})
