#!/usr/bin/env node
// Runs every bench/*.bench.js in turn (or those named on the command line); each prints its
// own figures and ratios against a baseline measured in the same run.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const dir = fileURLToPath(new URL('.', import.meta.url))
const wanted = process.argv.slice(2)
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.js'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort()
let failed = 0
for (const file of files) {
  console.log(`\n## ${file}\n`)
  const run = spawnSync(process.execPath, [`${dir}${file}`], { stdio: 'inherit' })
  if (run.status !== 0) failed++
}
process.exit(failed === 0 ? 0 : 1)
