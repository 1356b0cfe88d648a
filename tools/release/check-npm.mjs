#!/usr/bin/env node
// Checks the npm packages assembled in DIR (`cargo xtask npm`, default target/npm) before any
// is published: the launcher `mcp` and exactly the six platform packages are there, every
// `version` and every `optionalDependencies` pin is VERSION (the tag without its `v`), and each
// platform package carries its binary, in the executable format and for the CPU its name says
// (ELF, PE or Mach-O; x86-64 or arm64), read from the file's header.
//
// usage: node tools/release/check-npm.mjs DIR VERSION
//
// Prints one line per package; on any problem prints every problem and exits 1.
import { existsSync, openSync, readSync, closeSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

// The platform packages we publish: npm platform -> binary format and machine.
const PLATFORMS = {
  'linux-x64': { format: 'elf', cpu: 'x64' },
  'linux-arm64': { format: 'elf', cpu: 'arm64' },
  'win32-x64': { format: 'pe', cpu: 'x64' },
  'win32-arm64': { format: 'pe', cpu: 'arm64' },
  'darwin-x64': { format: 'macho', cpu: 'x64' },
  'darwin-arm64': { format: 'macho', cpu: 'arm64' },
}

function header(file, length) {
  const fd = openSync(file, 'r')
  try {
    const buffer = Buffer.alloc(length)
    const read = readSync(fd, buffer, 0, length, 0)
    return buffer.subarray(0, read)
  } finally {
    closeSync(fd)
  }
}

// The format and CPU of an executable, from its header; undefined when it is none we know.
export function identify(file) {
  const bytes = header(file, 4096)
  if (bytes.length >= 20 && bytes.readUInt32BE(0) === 0x7f454c46) {
    // ELF: e_machine at 18, in the file's byte order (byte 5: 1 little, 2 big endian).
    const machine = bytes[5] === 2 ? bytes.readUInt16BE(18) : bytes.readUInt16LE(18)
    return { format: 'elf', cpu: { 0x3e: 'x64', 0xb7: 'arm64' }[machine] ?? `machine 0x${machine.toString(16)}` }
  }
  if (bytes.length >= 64 && bytes.readUInt16LE(0) === 0x5a4d) {
    // PE: "MZ", the PE header's offset at 0x3c, "PE\0\0", then the machine.
    const pe = bytes.readUInt32LE(0x3c)
    if (pe + 6 <= bytes.length && bytes.readUInt32BE(pe) === 0x50450000) {
      const machine = bytes.readUInt16LE(pe + 4)
      return { format: 'pe', cpu: { 0x8664: 'x64', 0xaa64: 'arm64' }[machine] ?? `machine 0x${machine.toString(16)}` }
    }
  }
  if (bytes.length >= 8 && bytes.readUInt32LE(0) === 0xfeedfacf) {
    // 64-bit Mach-O, little endian: cputype after the magic.
    const cpu = bytes.readUInt32LE(4)
    return { format: 'macho', cpu: { 0x01000007: 'x64', 0x0100000c: 'arm64' }[cpu] ?? `cputype 0x${cpu.toString(16)}` }
  }
  return undefined
}

function main(argv) {
  const [dir, version] = argv
  if (!dir || !version) {
    console.error('usage: node tools/release/check-npm.mjs DIR VERSION')
    return 2
  }
  const problems = []
  const readManifest = (name) => {
    const file = join(dir, name, 'package.json')
    if (!existsSync(file)) {
      problems.push(`${name}: missing (${file})`)
      return undefined
    }
    return JSON.parse(readFileSync(file, 'utf8'))
  }

  const expected = ['mcp', ...Object.keys(PLATFORMS).map((platform) => `mcp-${platform}`)].sort()
  const found = existsSync(dir) ? readdirSync(dir).filter((name) => existsSync(join(dir, name, 'package.json'))).sort() : []
  if (JSON.stringify(found) !== JSON.stringify(expected)) {
    problems.push(`${dir} holds [${found.join(', ')}], expected [${expected.join(', ')}]`)
  }

  const launcher = readManifest('mcp')
  if (launcher) {
    if (launcher.name !== '@botmesh/mcp') problems.push(`mcp: named ${launcher.name}`)
    if (launcher.version !== version) problems.push(`mcp: version ${launcher.version}, the tag says ${version}`)
    const pins = launcher.optionalDependencies ?? {}
    const wanted = Object.keys(PLATFORMS).map((platform) => `@botmesh/mcp-${platform}`).sort()
    if (JSON.stringify(Object.keys(pins).sort()) !== JSON.stringify(wanted)) {
      problems.push(`mcp: optionalDependencies list [${Object.keys(pins).join(', ')}], expected [${wanted.join(', ')}]`)
    }
    for (const [name, pin] of Object.entries(pins)) {
      if (pin !== version) problems.push(`mcp: optionalDependencies pins ${name} at ${pin}, the tag says ${version}`)
    }
    console.log(`@botmesh/mcp ${launcher.version}`)
  }

  for (const [platform, want] of Object.entries(PLATFORMS)) {
    const name = `mcp-${platform}`
    const manifest = readManifest(name)
    if (!manifest) continue
    if (manifest.name !== `@botmesh/${name}`) problems.push(`${name}: named ${manifest.name}`)
    if (manifest.version !== version) problems.push(`${name}: version ${manifest.version}, the tag says ${version}`)
    const binary = join(dir, name, 'bin', platform.startsWith('win32-') ? 'botmesh-mcp.exe' : 'botmesh-mcp')
    if (!existsSync(binary)) {
      problems.push(`${name}: no binary at ${binary}`)
      continue
    }
    const got = identify(binary)
    if (got?.format !== want.format || got?.cpu !== want.cpu) {
      problems.push(`${name}: ${binary} is ${got ? `${got.format} ${got.cpu}` : 'not an executable we know'}, expected ${want.format} ${want.cpu}`)
      continue
    }
    const size = statSync(binary).size
    console.log(`@botmesh/${name} ${manifest.version}: ${want.format} ${want.cpu}, ${(size / 1048576).toFixed(2)} MiB`)
  }

  if (problems.length > 0) {
    for (const problem of problems) console.error(`check-npm: ${problem}`)
    return 1
  }
  return 0
}

process.exitCode = main(process.argv.slice(2))
