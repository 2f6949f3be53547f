#!/usr/bin/env node
// Copies the shared `kubectl patch --local` differential corpus into the project's test
// fixtures, so that the tests never read outside the repository:
//
//   node scripts/import-patch-conformance.mjs [--from DIR]
//
// DIR defaults to /work/shared/conformance/patch/cases. Cases that are no longer in the
// source are removed from test/fixtures/patch-conformance/cases/; the project's own cases
// (test/fixtures/patch-conformance/own-cases/) are left alone.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const fromIndex = process.argv.indexOf('--from')
const source = fromIndex > 0 ? process.argv[fromIndex + 1] : '/work/shared/conformance/patch/cases'
const target = path.join(root, 'test/fixtures/patch-conformance/cases')

if (!fs.existsSync(source)) {
  console.error(`no corpus at ${source}`)
  process.exit(1)
}
fs.mkdirSync(target, { recursive: true })
const names = fs.readdirSync(source).filter((f) => f.endsWith('.json')).sort()
for (const name of names) {
  const text = fs.readFileSync(path.join(source, name), 'utf8')
  const parsed = JSON.parse(text) // refuse to import a broken case
  if (!Array.isArray(parsed.args) || parsed.args[0] !== 'patch' || !parsed.expected) {
    console.error(`${name}: not a patch case`)
    process.exit(1)
  }
  fs.writeFileSync(path.join(target, name), text)
}
let removed = 0
for (const name of fs.readdirSync(target)) {
  if (name.endsWith('.json') && !names.includes(name)) {
    fs.unlinkSync(path.join(target, name))
    removed++
  }
}
console.log(`imported ${names.length} case(s) from ${source} into ${path.relative(root, target)}${removed ? `, removed ${removed}` : ''}`)
