#!/usr/bin/env node
// Start-up time is part of the product, and most of it is module loading. So:
// 1. `@oclif/core` is bundled once into dist/vendor/oclif-core.mjs (one file instead of
//    ~150 CommonJS modules), and everything of ours imports it as `#oclif-core` (the
//    package's "imports" map), so there is one copy of the framework.
// 2. Each compiled command in dist/commands is replaced by one bundled file (plus shared
//    chunks in dist/commands/_chunks, loaded only when a command imports them at run time).
// Other npm packages stay external and load from node_modules as usual.
import { build } from 'esbuild'
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)

// 1. The framework.
const names = Object.keys(require('@oclif/core')).filter((name) => name !== 'default')
const entry = join(root, 'dist/vendor/oclif-core-entry.mjs')
mkdirSync(join(root, 'dist/vendor'), { recursive: true })
writeFileSync(entry, `import core from '@oclif/core'\nexport const { ${names.join(', ')} } = core\nexport default core\n`)
await build({
  entryPoints: [entry],
  outfile: join(root, 'dist/vendor/oclif-core.mjs'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Only needed for TypeScript development mode, which the built binary does not use.
  external: ['typescript', 'ts-node'],
  // The bundled CommonJS code still calls require and reads files next to its own sources.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; import { dirname as __dirnameOf } from 'node:path'; const require = __createRequire(import.meta.url); const __dirname = __dirnameOf(require.resolve('@oclif/core'));",
  },
  logLevel: 'warning',
})

// 2. The commands.
const commands = join(root, 'src/commands')
const entries = []
const walk = (dir) => {
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, item.name)
    if (item.isDirectory()) walk(path)
    else if (item.name.endsWith('.ts')) entries.push(path)
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
  // The server's log lines name the source file and line (klog style); maps lead back to src/.
  sourcemap: 'linked',
  logLevel: 'warning',
  plugins: [
    {
      name: 'vendored-oclif',
      setup(b) {
        b.onResolve({ filter: /^@oclif\/core$/ }, () => ({ path: '#oclif-core', external: true }))
      },
    },
  ],
})
console.log(`bundled @oclif/core and ${entries.length} commands: ${entries.map((e) => relative(commands, e)).join(', ')}`)
