// Behaviour of the npm launcher (npm/mcp/bin/botmesh-mcp.js) that users rely on, run with
// `node --test` by .ci/parts/npm.sh against the packages installed from their tarballs:
//
//   LAUNCHER_PROJECT=<folder where @botmesh/mcp and its platform package are installed>
//   BARE_BINARY=<the release binary the platform package was built from>
//
// The launcher must be invisible: the same stdout bytes, exit status and signal as the bare
// binary, and when no platform package fits, one sentence on stderr and exit 1.
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import {
  closeSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, test } from 'node:test'

const project = process.env.LAUNCHER_PROJECT
const bare = process.env.BARE_BINARY
assert.ok(project && bare, 'set LAUNCHER_PROJECT and BARE_BINARY')
const installed = path.join(project, 'node_modules', '@botmesh', 'mcp', 'bin', 'botmesh-mcp.js')
const repoLauncher = new URL('../../npm/mcp/bin/botmesh-mcp.js', import.meta.url).pathname

const scratch = mkdtempSync(path.join(tmpdir(), 'botmesh-launcher-'))
after(() => rmSync(scratch, { recursive: true, force: true }))

const INITIALIZE =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"launcher-test","version":"0"}}}\n'

/** Runs a command to completion: stdout and stderr as Buffers, exit code and signal. */
function run(command, args, { input = '', cwd } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] })
    const stdout = []
    const stderr = []
    child.stdout.on('data', (chunk) => stdout.push(chunk))
    child.stderr.on('data', (chunk) => stderr.push(chunk))
    child.on('error', reject)
    child.on('close', (code, signal) =>
      resolve({ stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString(), code, signal }),
    )
    // A command that exits before reading (a usage error) closes its stdin: not a failure here.
    child.stdin.on('error', (error) => {
      if (error.code !== 'EPIPE') reject(error)
    })
    child.stdin.end(input)
  })
}

let fifos = 0

/** The pids of a process's children (Linux), to clean up after a failed test. */
function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
}

/**
 * Starts a server, waits for its initialize answer, sends `signal`, and reports how it ended.
 * stdin is a FIFO this test keeps open for writing, so the binary sees no end of input when
 * the launcher dies: if the launcher failed to forward the signal, the binary would live on,
 * holding stdout open, and `close` would never come (the test then fails on its timeout).
 */
function endBySignal(command, args, signal) {
  const fifo = path.join(scratch, `stdin-${fifos++}`)
  execFileSync('mkfifo', [fifo])
  const stdin = openSync(fifo, 'r+')
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: [stdin, 'pipe', 'ignore'] })
    let answered = false
    let grandchildren = []
    const timer = setTimeout(() => {
      for (const pid of [child.pid, ...grandchildren]) {
        try {
          process.kill(pid, 'SIGKILL')
        } catch {}
      }
      reject(new Error(`${signal}: the server did not end within 10 s (signal not forwarded?)`))
    }, 10_000)
    child.stdout.on('data', () => {
      if (!answered) {
        answered = true
        grandchildren = childrenOf(child.pid)
        child.kill(signal)
      }
    })
    child.on('error', reject)
    child.on('close', (code, endSignal) => {
      clearTimeout(timer)
      closeSync(stdin)
      resolve({ answered, code, signal: endSignal })
    })
    writeSync(stdin, INITIALIZE)
  })
}

test('--version through the installed bin prints exactly what the binary prints', async () => {
  const direct = await run(bare, ['--version'])
  const launched = await run(process.execPath, [installed, '--version'])
  assert.equal(direct.code, 0)
  assert.match(direct.stdout.toString(), /^botmesh-mcp \d+\.\d+\.\d+/)
  assert.deepEqual(launched.stdout, direct.stdout)
  assert.equal(launched.code, 0)
})

test('a usage error keeps its exit status and adds nothing to stdout', async () => {
  const direct = await run(bare, ['--no-such-flag'])
  const launched = await run(process.execPath, [installed, '--no-such-flag'])
  assert.notEqual(direct.code, 0)
  assert.equal(launched.code, direct.code)
  assert.equal(launched.stdout.length, 0)
  assert.equal(launched.stderr, direct.stderr)
})

test('an MCP session gives byte-identical stdout through the launcher', async () => {
  const input =
    INITIALIZE +
    '{"jsonrpc":"2.0","method":"notifications/initialized"}\n' +
    '{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n' +
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"flow_example","arguments":{}}}\n'
  const direct = await run(bare, [], { input })
  const launched = await run(process.execPath, [installed], { input })
  assert.equal(direct.code, 0)
  assert.equal(direct.stdout.toString().trim().split('\n').length, 3, 'three answers expected')
  assert.deepEqual(launched.stdout, direct.stdout)
  assert.equal(launched.code, direct.code)
})

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  test(`${signal} reaches the binary and the launcher ends the same way`, async () => {
    const direct = await endBySignal(bare, [], signal)
    const launched = await endBySignal(process.execPath, [installed], signal)
    assert.ok(direct.answered && launched.answered)
    assert.deepEqual({ code: launched.code, signal: launched.signal }, { code: direct.code, signal: direct.signal })
  })
}

test('without a platform package: one sentence naming the platform and cargo install, exit 1', async () => {
  // A copy of the launcher where no @botmesh/mcp-* package can be resolved.
  mkdirSync(path.join(scratch, 'bin'))
  const lonely = path.join(scratch, 'bin', 'botmesh-mcp.js')
  copyFileSync(repoLauncher, lonely)
  const result = await run(process.execPath, [lonely, '--version'], { cwd: scratch })
  assert.equal(result.code, 1)
  assert.equal(result.stdout.length, 0, 'nothing on stdout, ever')
  const lines = result.stderr.trimEnd().split('\n')
  assert.equal(lines.length, 1, result.stderr)
  assert.ok(lines[0].includes(`${process.platform}-${process.arch}`), lines[0])
  assert.ok(lines[0].includes('cargo install botmesh-mcp-cli'), lines[0])
})

test('a platform package without its binary: one sentence, exit 1, nothing on stdout', async () => {
  const modules = path.join(scratch, 'broken', 'node_modules', '@botmesh')
  const platformName = `mcp-${process.platform}-${process.arch}`
  mkdirSync(path.join(modules, 'mcp', 'bin'), { recursive: true })
  mkdirSync(path.join(modules, platformName), { recursive: true })
  writeFileSync(path.join(modules, platformName, 'package.json'), `{"name":"@botmesh/${platformName}","version":"0.0.0"}\n`)
  const launcher = path.join(modules, 'mcp', 'bin', 'botmesh-mcp.js')
  copyFileSync(repoLauncher, launcher)
  const result = await run(process.execPath, [launcher, '--version'])
  assert.equal(result.code, 1)
  assert.equal(result.stdout.length, 0)
  const lines = result.stderr.trimEnd().split('\n')
  assert.equal(lines.length, 1, result.stderr)
  assert.match(lines[0], /could not start botmesh-mcp.* \(ENOENT\).*cargo install botmesh-mcp-cli/)
})
