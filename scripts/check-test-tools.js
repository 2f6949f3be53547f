#!/usr/bin/env node
// Checks that the programs the tests run (test/support/tools.json, the list test/support/tools.ts
// gives the tests) are there and work, so CI stops before the suite with one clear message.
// Usage: node scripts/check-test-tools.js [--all]   (--all: also the benchmarks' tools)
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const { tools } = JSON.parse(readFileSync(new URL('../test/support/tools.json', import.meta.url), 'utf8'))
const all = process.argv.includes('--all')
const missing = []
for (const [name, tool] of Object.entries(tools)) {
  if (tool.usedBy !== 'tests' && !all) continue
  const named = (tool.env && process.env[tool.env]) || tool.command
  // A path relative to the repository (the clients scripts/install-test-clients.mjs installs).
  const command = named.includes('/') && !isAbsolute(named) ? resolve(root, named) : named
  const run = spawnSync(command, tool.probe, { stdio: 'ignore', timeout: 30_000 })
  if (run.error) missing.push(`${name}: ${command} cannot be run (${run.error.code ?? run.error.message}); install: ${tool.install}`)
  else if (run.status !== (tool.probeExit ?? 0)) missing.push(`${name}: ${command} ${tool.probe.join(' ')} exited ${run.status ?? run.signal}; install: ${tool.install}`)
}
if (missing.length > 0) {
  console.error(`the tests need these programs:\n  ${missing.join('\n  ')}`)
  process.exit(1)
}
