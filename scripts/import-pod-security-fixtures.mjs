#!/usr/bin/env node
// Copies the reference's Pod Security fixtures (the pods its TestFixtures generates into
// test/testdata/<level>/v1.<minor>/<pass|fail>/*.yaml of k8s.io/pod-security-admission) into
// one compact file of the project's test fixtures, so the tests never read outside the clone:
//
//   node scripts/import-pod-security-fixtures.mjs DIR [--max-minor 35]
//
// DIR is a checkout of github.com/kubernetes/pod-security-admission (or kubernetes'
// staging/src/k8s.io/pod-security-admission), or its bare git directory (read at HEAD).
// Versions after --max-minor (this server's minor) are left out. Identical pods are stored once.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import yaml from 'js-yaml'

const root = fileURLToPath(new URL('..', import.meta.url))
const args = process.argv.slice(2)
const source = args.find((a) => !a.startsWith('--'))
const maxIndex = args.indexOf('--max-minor')
const maxMinor = maxIndex >= 0 ? Number(args[maxIndex + 1]) : 35
const target = path.join(root, 'test/fixtures/pod-security/testdata.json')

if (!source || !fs.existsSync(source)) {
  console.error('usage: node scripts/import-pod-security-fixtures.mjs DIR [--max-minor N]  (DIR: a pod-security-admission checkout or git directory)')
  process.exit(1)
}

/** The fixture files as [relative path, text], from a work tree or a bare git directory. */
function readFixtures(dir) {
  const tree = path.join(dir, 'test/testdata')
  if (fs.existsSync(tree)) {
    return fs.readdirSync(tree, { recursive: true }).filter((f) => f.endsWith('.yaml')).map((f) => [f, fs.readFileSync(path.join(tree, f), 'utf8')])
  }
  const git = (...a) => execFileSync('git', ['--git-dir', dir, ...a], { encoding: 'utf8', maxBuffer: 1 << 28 })
  const names = git('ls-tree', '-r', '--name-only', 'HEAD', 'test/testdata').split('\n').filter((f) => f.endsWith('.yaml'))
  return names.map((f) => [path.relative('test/testdata', f), git('show', `HEAD:${f}`)])
}

function commitOf(dir) {
  try {
    const gitDir = fs.existsSync(path.join(dir, '.git')) ? path.join(dir, '.git') : dir
    return execFileSync('git', ['--git-dir', gitDir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim()
  } catch {
    return 'unknown'
  }
}

const pods = []
const index = new Map()
const cases = []
for (const [file, text] of readFixtures(source)) {
  const m = /^(baseline|restricted)\/v1\.(\d+)\/(pass|fail)\/([^/]+)\.yaml$/.exec(file.split(path.sep).join('/'))
  if (!m) {
    console.error(`${file}: not a <level>/v1.<minor>/<pass|fail>/<name>.yaml fixture`)
    process.exit(1)
  }
  const [, level, minorText, expect, name] = m
  const minor = Number(minorText)
  if (minor > maxMinor) continue
  const pod = yaml.load(text)
  if (!pod || pod.kind !== 'Pod') {
    console.error(`${file}: not a Pod`)
    process.exit(1)
  }
  const key = createHash('sha256').update(JSON.stringify(pod)).digest('hex')
  if (!index.has(key)) {
    index.set(key, pods.length)
    pods.push(pod)
  }
  cases.push([level, minor, expect, name, index.get(key)])
}
cases.sort((a, b) => a[0].localeCompare(b[0]) || a[1] - b[1] || a[2].localeCompare(b[2]) || a[3].localeCompare(b[3]))
const out = {
  source: `k8s.io/pod-security-admission test/testdata at ${commitOf(source)}, minors 0-${maxMinor}`,
  columns: ['level', 'minor', 'expect', 'name', 'pod'],
  cases,
  pods,
}
fs.mkdirSync(path.dirname(target), { recursive: true })
fs.writeFileSync(target, `${JSON.stringify(out)}\n`)
console.log(`${cases.length} cases, ${pods.length} distinct pods -> ${path.relative(root, target)}`)
