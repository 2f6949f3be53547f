#!/usr/bin/env node
// Records what the reference kubectl prints for `kubectl patch --local ...` cases.
//
//   node scripts/record-patch-cases.mjs [--only SUBSTR] [--own] [--imported] [--kubectl PATH]
//
// --imported  re-records `expected` of test/fixtures/patch-conformance/cases/*.json
// --own       (re)builds test/fixtures/patch-conformance/own-cases/<id>.json from the spec
//             file test/fixtures/patch-conformance/own-cases.json (entries: id, description,
//             files, args, stdin, optional category) and records them
// Neither flag: both. --only filters on the case id.
//
// Each case runs exactly as the corpus README describes: an empty scratch directory holding
// the case's files as working directory, env PATH, HOME=<scratch>, LANG=C, LC_ALL=C, TZ=UTC
// (no KUBECONFIG), the case's stdin piped (or nothing). The reference is the versioned
// binary (the gcloud `kubectl` on PATH is a dispatcher that parses argv itself).
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const fixtures = path.join(root, 'test/fixtures/patch-conformance')
const argv = process.argv.slice(2)
const opt = (name) => {
  const i = argv.indexOf(name)
  return i >= 0 ? argv[i + 1] : undefined
}
// Default: kubectl 1.32 as scripts/install-test-clients.mjs installs it.
const kubectl = opt('--kubectl') ?? path.join(root, '.tools/kubectl-1.32/kubectl')
const only = opt('--only')
const wantOwn = argv.includes('--own') || !argv.includes('--imported')
const wantImported = argv.includes('--imported') || !argv.includes('--own')

function version() {
  const r = spawnSync(kubectl, ['version', '--client', '-o', 'json'], { encoding: 'utf8' })
  if (r.error) throw r.error
  return JSON.parse(r.stdout).clientVersion.gitVersion
}

function shQuote(s) {
  if (s === '') return "''"
  if (/^[A-Za-z0-9_\-.,/:=@%+]+$/.test(s)) return s
  return "'" + s.replace(/'/g, "'\\''") + "'"
}

function run(c) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'patchcase-'))
  try {
    for (const [name, content] of Object.entries(c.files)) {
      const p = path.join(dir, name)
      fs.mkdirSync(path.dirname(p), { recursive: true })
      fs.writeFileSync(p, content)
    }
    const r = spawnSync(kubectl, c.args, {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, LANG: 'C', LC_ALL: 'C', TZ: 'UTC' },
      input: c.stdin === null ? '' : c.stdin,
      encoding: 'utf8',
      timeout: 60_000,
      maxBuffer: 64 * 1024 * 1024,
    })
    if (r.error) throw r.error
    return { exitCode: r.status === null ? -1 : r.status, stdout: r.stdout, stderr: r.stderr }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

// The descriptive fields of the corpus format, derived from argv.
function describe(spec) {
  const args = spec.args
  const valueOf = (long, short) => {
    let value
    for (let i = 0; i < args.length; i++) {
      const a = args[i]
      if (a === long || (short && a === short)) value = args[i + 1]
      else if (a.startsWith(long + '=')) value = a.slice(long.length + 1)
    }
    return value
  }
  const patchFile = valueOf('--patch-file') ?? null
  const p = valueOf('--patch', '-p')
  const inputFile = valueOf('--filename', '-f') ?? null
  let command = 'kubectl ' + args.map(shQuote).join(' ')
  if (spec.stdin != null) command += '   # stdin: the "stdin" field'
  return {
    id: spec.id,
    category: spec.category ?? 'own',
    description: spec.description,
    patchType: valueOf('--type') ?? 'strategic',
    patch: p !== undefined ? p : patchFile !== null ? (spec.files[patchFile] ?? null) : null,
    patchFile,
    inputFile: inputFile === '-' ? null : inputFile,
    files: spec.files,
    stdin: spec.stdin ?? null,
    args,
    command,
  }
}

const ref = `kubectl ${version()}`
let n = 0
const write = (file, record) => fs.writeFileSync(file, JSON.stringify(record, null, 2) + '\n')

if (wantImported) {
  const dir = path.join(fixtures, 'cases')
  for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const c = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'))
    if (only && !c.id.includes(only)) continue
    const expected = run(c)
    write(path.join(dir, name), { ...c, expected, reference: ref })
    n++
    console.log(`${c.id}: exit ${expected.exitCode}`)
  }
}

if (wantOwn) {
  const specs = JSON.parse(fs.readFileSync(path.join(fixtures, 'own-cases.json'), 'utf8'))
  const dir = path.join(fixtures, 'own-cases')
  fs.mkdirSync(dir, { recursive: true })
  const ids = new Set()
  for (const spec of specs) {
    if (ids.has(spec.id)) throw new Error(`duplicate id ${spec.id}`)
    ids.add(spec.id)
    if (!Array.isArray(spec.args) || spec.args[0] !== 'patch') throw new Error(`${spec.id}: args must start with "patch"`)
    if (only && !spec.id.includes(only)) continue
    const c = describe({ files: {}, ...spec })
    const expected = run(c)
    write(path.join(dir, `${spec.id}.json`), { ...c, expected, reference: ref })
    n++
    console.log(`${spec.id}: exit ${expected.exitCode}`)
  }
  if (!only) {
    for (const name of fs.readdirSync(dir)) {
      if (name.endsWith('.json') && !ids.has(name.slice(0, -5))) fs.unlinkSync(path.join(dir, name))
    }
  }
}
console.log(`recorded ${n} case(s) with ${ref}`)
