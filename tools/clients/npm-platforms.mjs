#!/usr/bin/env node
// Proves that npm picks the right platform package everywhere: the seven packed tarballs are
// served by a tiny npm registry on 127.0.0.1 (nothing else is reachable), and `npm install
// @botmesh/mcp` runs once per platform with npm's own `--os`, `--cpu` and `--libc` overrides
// (what npm would see on that machine). Each install must bring the launcher and exactly the
// one platform package that fits, the static Linux package on musl (Alpine) as on glibc, and
// none on a platform we do not build.
//
// usage: node npm-platforms.mjs TARBALL_DIR ASSEMBLED_DIR
//   TARBALL_DIR: the `npm pack` outputs; ASSEMBLED_DIR: target/npm (their package.json files).
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'

const [tarballDir, assembledDir] = process.argv.slice(2)
if (!tarballDir || !assembledDir) {
  console.error('usage: node npm-platforms.mjs TARBALL_DIR ASSEMBLED_DIR')
  process.exit(2)
}

const CASES = [
  { os: 'linux', cpu: 'x64', libc: 'glibc', expect: 'mcp-linux-x64' },
  { os: 'linux', cpu: 'x64', libc: 'musl', expect: 'mcp-linux-x64' },
  { os: 'linux', cpu: 'arm64', libc: 'glibc', expect: 'mcp-linux-arm64' },
  { os: 'linux', cpu: 'arm64', libc: 'musl', expect: 'mcp-linux-arm64' },
  { os: 'darwin', cpu: 'arm64', expect: 'mcp-darwin-arm64' },
  { os: 'darwin', cpu: 'x64', expect: 'mcp-darwin-x64' },
  { os: 'win32', cpu: 'x64', expect: 'mcp-win32-x64' },
  { os: 'win32', cpu: 'arm64', expect: 'mcp-win32-arm64' },
  { os: 'freebsd', cpu: 'x64', expect: null },
]

// name -> { version, manifest, file, integrity, shasum }
const packages = new Map()
for (const dir of readdirSync(assembledDir)) {
  const manifest = JSON.parse(readFileSync(path.join(assembledDir, dir, 'package.json'), 'utf8'))
  const file = `${manifest.name.replace('@', '').replace('/', '-')}-${manifest.version}.tgz`
  const bytes = readFileSync(path.join(tarballDir, file))
  packages.set(manifest.name, {
    manifest,
    file,
    bytes,
    integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
    shasum: createHash('sha1').update(bytes).digest('hex'),
  })
}

const server = createServer((request, response) => {
  const url = decodeURIComponent(request.url ?? '/')
  const tarball = [...packages.values()].find((p) => url === `/tarballs/${p.file}`)
  if (tarball) {
    response.writeHead(200, { 'content-type': 'application/octet-stream' })
    response.end(tarball.bytes)
    return
  }
  const found = packages.get(url.slice(1))
  if (!found) {
    response.writeHead(404, { 'content-type': 'application/json' })
    response.end('{"error":"not found"}')
    return
  }
  const { port } = server.address()
  const version = found.manifest.version
  response.writeHead(200, { 'content-type': 'application/json' })
  response.end(
    JSON.stringify({
      name: found.manifest.name,
      'dist-tags': { latest: version },
      versions: {
        [version]: {
          ...found.manifest,
          _id: `${found.manifest.name}@${version}`,
          dist: { tarball: `http://127.0.0.1:${port}/tarballs/${found.file}`, integrity: found.integrity, shasum: found.shasum },
        },
      },
    }),
  )
})

function npm(args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], shell: process.platform === 'win32' })
    let stderr = ''
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`npm ${args.join(' ')} failed (${code}): ${stderr.trim()}`))))
  })
}

async function main() {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const registry = `http://127.0.0.1:${server.address().port}/`
  const version = packages.get('@botmesh/mcp').manifest.version
  const work = mkdtempSync(path.join(tmpdir(), 'botmesh-npm-platforms-'))
  const lines = []
  try {
    for (const platform of CASES) {
      const project = mkdtempSync(path.join(work, 'p-'))
      const args = ['install', '--registry', registry, '--cache', path.join(work, 'cache'), '--prefix', project]
      args.push('--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', '--os', platform.os, '--cpu', platform.cpu)
      if (platform.libc) args.push('--libc', platform.libc)
      args.push(`@botmesh/mcp@${version}`)
      await npm(args, project)
      const installed = readdirSync(path.join(project, 'node_modules', '@botmesh')).sort()
      const expected = platform.expect ? ['mcp', platform.expect] : ['mcp']
      const label = [platform.os, platform.cpu, platform.libc].filter(Boolean).join('/')
      if (JSON.stringify(installed) !== JSON.stringify(expected)) {
        throw new Error(`${label}: npm installed ${installed.join(', ')}, expected ${expected.join(', ')}`)
      }
      lines.push(`${label} -> ${platform.expect ?? '(launcher only)'}`)
    }
  } finally {
    server.close()
    rmSync(work, { recursive: true, force: true })
  }
  console.log(`npm platform selection: ${lines.length} of ${CASES.length} platforms right (${lines.join('; ')})`)
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`npm-platforms: ${error.message}`)
    process.exit(1)
  },
)
