#!/usr/bin/env node
// Replaces each compiled command in dist/commands with one bundled file (plus shared chunks
// in dist/commands/_chunks, loaded only when a command imports them at run time). Loading
// one file instead of dozens of small modules is most of a short command's start-up time.
// npm packages stay external; they are loaded from node_modules as usual.
import { build } from 'esbuild'
import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const commands = join(root, 'src/commands')
const entries = []
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) walk(path)
    else if (entry.name.endsWith('.ts')) entries.push(path)
  }
}
walk(commands)

await build({
  entryPoints: entries,
  outdir: join(root, 'dist/commands'),
  outbase: commands,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  chunkNames: '_chunks/[name]-[hash]',
  allowOverwrite: true,
  logLevel: 'warning',
})
console.log(`bundled ${entries.length} commands: ${entries.map((e) => relative(commands, e)).join(', ')}`)
