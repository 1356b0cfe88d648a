#!/usr/bin/env node
// The `botmesh-mcp` command of @botmesh/mcp: finds the prebuilt binary in the platform package
// npm installed (one of the optionalDependencies) and runs it with the same arguments.
// stdin, stdout and stderr pass straight through (stdout carries the MCP protocol: this file
// never writes a byte to it), signals are forwarded, and the child's exit status is ours.
'use strict'

const { spawn } = require('node:child_process')
const path = require('node:path')

const PACKAGES = {
  'darwin-arm64': '@botmesh/mcp-darwin-arm64',
  'darwin-x64': '@botmesh/mcp-darwin-x64',
  'linux-arm64': '@botmesh/mcp-linux-arm64',
  'linux-x64': '@botmesh/mcp-linux-x64',
  'win32-arm64': '@botmesh/mcp-win32-arm64',
  'win32-x64': '@botmesh/mcp-win32-x64',
}

function fail(message) {
  process.stderr.write(`botmesh-mcp: ${message}\n`)
  process.exit(1)
}

function findBinary(platform) {
  const name = PACKAGES[platform]
  if (name === undefined) return undefined
  try {
    const dir = path.dirname(require.resolve(`${name}/package.json`))
    return path.join(dir, 'bin', process.platform === 'win32' ? 'botmesh-mcp.exe' : 'botmesh-mcp')
  } catch {
    return undefined
  }
}

const platform = `${process.platform}-${process.arch}`
const binary = findBinary(platform)
if (binary === undefined) {
  fail(
    `no prebuilt binary for ${platform} is installed (the optional package ${PACKAGES[platform] ?? `@botmesh/mcp-${platform}`} is missing), so build it from source instead with \`cargo install botmesh-mcp-cli\`.`,
  )
}

const child = spawn(binary, process.argv.slice(2), { stdio: 'inherit', windowsHide: true })

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP']
function forward(signal) {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal)
}
for (const signal of FORWARDED) process.on(signal, forward)

child.on('error', (error) => {
  fail(`could not start ${path.basename(binary)} for ${platform} (${error.code ?? error.message}), so reinstall @botmesh/mcp or use \`cargo install botmesh-mcp-cli\`.`)
})

child.on('exit', (code, signal) => {
  if (signal === null) process.exit(code ?? 1)
  // Die of the same signal so our parent sees what the binary saw.
  for (const forwarded of FORWARDED) process.removeListener(forwarded, forward)
  try {
    process.kill(process.pid, signal)
  } catch {
    // Some signals cannot be raised on some platforms (Windows): fall back to the shell's code.
  }
  process.exit(128 + (require('node:os').constants.signals[signal] ?? 0))
})
