// Tests of check-npm.mjs, the last gate before `npm publish`: it must pass a complete, correct
// set of seven packages and name each fault that would ship a broken release (a missing
// package, a version that is not the tag's, a binary for the wrong platform or CPU).
// Run: node --test tools/release/check-npm.test.mjs (from .ci/parts/actionlint.sh).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, mkdirSync, writeFileSync, copyFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const SCRIPT = new URL('./check-npm.mjs', import.meta.url).pathname

function elf(machine) {
  const bytes = Buffer.alloc(64)
  bytes.writeUInt32BE(0x7f454c46, 0)
  bytes[4] = 2
  bytes[5] = 1
  bytes.writeUInt16LE(machine, 18)
  return bytes
}
function pe(machine) {
  const bytes = Buffer.alloc(512)
  bytes.write('MZ', 0, 'latin1')
  bytes.writeUInt32LE(0x80, 0x3c)
  bytes.write('PE\0\0', 0x80, 'latin1')
  bytes.writeUInt16LE(machine, 0x84)
  return bytes
}
function macho(cpu) {
  const bytes = Buffer.alloc(64)
  bytes.writeUInt32LE(0xfeedfacf, 0)
  bytes.writeUInt32LE(cpu, 4)
  return bytes
}

const BINARIES = {
  'linux-x64': elf(0x3e),
  'linux-arm64': elf(0xb7),
  'win32-x64': pe(0x8664),
  'win32-arm64': pe(0xaa64),
  'darwin-x64': macho(0x01000007),
  'darwin-arm64': macho(0x0100000c),
}

// A target/npm-like tree of the seven packages at `version`.
function tree(version) {
  const dir = mkdtempSync(join(tmpdir(), 'check-npm-'))
  const pins = Object.fromEntries(Object.keys(BINARIES).map((p) => [`@botmesh/mcp-${p}`, version]))
  mkdirSync(join(dir, 'mcp'))
  writeFileSync(join(dir, 'mcp', 'package.json'), JSON.stringify({ name: '@botmesh/mcp', version, optionalDependencies: pins }))
  for (const [platform, bytes] of Object.entries(BINARIES)) {
    mkdirSync(join(dir, `mcp-${platform}`, 'bin'), { recursive: true })
    writeFileSync(join(dir, `mcp-${platform}`, 'package.json'), JSON.stringify({ name: `@botmesh/mcp-${platform}`, version }))
    writeFileSync(join(dir, `mcp-${platform}`, 'bin', platform.startsWith('win32') ? 'botmesh-mcp.exe' : 'botmesh-mcp'), bytes)
  }
  return dir
}

function check(dir, version) {
  const run = spawnSync(process.execPath, [SCRIPT, dir, version], { encoding: 'utf8' })
  rmSync(dir, { recursive: true, force: true })
  return { status: run.status, stdout: run.stdout, stderr: run.stderr }
}

test('a complete set at the tag version passes, one line per package', () => {
  const { status, stdout, stderr } = check(tree('1.2.3'), '1.2.3')
  assert.equal(status, 0, stderr)
  assert.equal(stdout.trim().split('\n').length, 7)
  assert.match(stdout, /@botmesh\/mcp-win32-arm64 1\.2\.3: pe arm64/)
  assert.match(stdout, /@botmesh\/mcp-darwin-x64 1\.2\.3: macho x64/)
})

test('a version that is not the tag is refused for every package', () => {
  const { status, stderr } = check(tree('1.2.3'), '1.2.4')
  assert.equal(status, 1)
  assert.match(stderr, /mcp: version 1\.2\.3, the tag says 1\.2\.4/)
  assert.match(stderr, /optionalDependencies pins @botmesh\/mcp-linux-arm64 at 1\.2\.3/)
  assert.match(stderr, /mcp-darwin-arm64: version 1\.2\.3/)
})

test('a binary of the wrong CPU or format is refused, naming both', () => {
  const dir = tree('1.0.0')
  copyFileSync(join(dir, 'mcp-linux-x64', 'bin', 'botmesh-mcp'), join(dir, 'mcp-linux-arm64', 'bin', 'botmesh-mcp'))
  copyFileSync(join(dir, 'mcp-win32-x64', 'bin', 'botmesh-mcp.exe'), join(dir, 'mcp-darwin-x64', 'bin', 'botmesh-mcp'))
  writeFileSync(join(dir, 'mcp-win32-arm64', 'bin', 'botmesh-mcp.exe'), '#!/bin/sh\n')
  const { status, stderr } = check(dir, '1.0.0')
  assert.equal(status, 1)
  assert.match(stderr, /mcp-linux-arm64: .* is elf x64, expected elf arm64/)
  assert.match(stderr, /mcp-darwin-x64: .* is pe x64, expected macho x64/)
  assert.match(stderr, /mcp-win32-arm64: .* is not an executable we know, expected pe arm64/)
})

test('a missing platform package or binary is refused', () => {
  const dir = tree('1.0.0')
  rmSync(join(dir, 'mcp-win32-arm64'), { recursive: true })
  rmSync(join(dir, 'mcp-darwin-arm64', 'bin'), { recursive: true })
  const { status, stderr } = check(dir, '1.0.0')
  assert.equal(status, 1)
  assert.match(stderr, /mcp-win32-arm64: missing/)
  assert.match(stderr, /mcp-darwin-arm64: no binary/)
})
