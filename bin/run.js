#!/usr/bin/env node
// The `client` binary. Start-up time is part of the product (scripts and CI run `client patch
// --local` and `client flags validate` in loops), so this file does as little as it can:
// - It is CommonJS (bin/package.json): an ES-module entry makes Node set up its ES loader
//   before the first line runs, about a fifth of Node's own start-up.
// - `patch`, `flags validate`, `health check`, `server start`, `validate`, `auth can-i`/`who-can` and `cluster start` run from one bundled file each
//   (dist/fast/*.cjs, built from src/fast/ by scripts/bundle-commands.js) without oclif,
//   whose loading and configuration cost more than Node's start-up. A fast entry hands the
//   command line back to oclif for what it does not do itself (help, unusual command lines),
//   before it has printed anything.
// - A fast entry is compiled with V8's code cache (bin/load-fast.js).
// - Everything else goes to oclif (bundled into dist/vendor/oclif-core.mjs).
'use strict'
const fs = require('node:fs')
const path = require('node:path')
const { pathToFileURL } = require('node:url')
const { loadFast } = require('./load-fast.js')

const root = path.join(__dirname, '..')

/** The fast entry for a command line, with the command's own arguments; undefined for oclif. */
function fastRoute(argv) {
  // oclif answers --help anywhere before `--` (and --version as the first word) itself.
  const end = argv.indexOf('--')
  if ((end === -1 ? argv : argv.slice(0, end)).includes('--help')) return undefined
  if (argv[0] === 'patch') return { name: 'patch', args: argv.slice(1) }
  if (argv[0] === 'flags' && argv[1] === 'validate') return { name: 'flags-validate', args: argv.slice(2) }
  if (argv[0] === 'health' && argv[1] === 'check') return { name: 'health-check', args: argv.slice(2) }
  if (argv[0] === 'server' && argv[1] === 'start') return { name: 'server-start', args: argv.slice(2) }
  if (argv[0] === 'validate') return { name: 'validate', args: argv.slice(1) }
  if (argv[0] === 'auth' && (argv[1] === 'can-i' || argv[1] === 'who-can')) return { name: 'auth', args: argv.slice(1) }
  if (argv[0] === 'cluster' && argv[1] === 'start') return { name: 'cluster-start', args: argv.slice(2) }
  return undefined
}

function oclif() {
  return import(pathToFileURL(path.join(root, 'dist/vendor/oclif-core.mjs')).href)
}

async function runOclif(args) {
  const core = await oclif()
  // The root is given: oclif would otherwise take bin/package.json for the project's.
  await core.execute({ args, loadOptions: { root } })
}

async function main() {
  const argv = process.argv.slice(2)
  const route = fastRoute(argv)
  const file = route && path.join(root, 'dist/fast', `${route.name}.cjs`)
  // A build without the fast entries (or an older one) still runs every command through oclif.
  if (!file || !fs.existsSync(file)) return runOclif(argv)
  // Read, not required: require() of a JSON file goes through the package resolution (package
  // scopes, "exports") and cost 5-15 ms where reading and parsing the file costs 0.1 ms.
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
  const { entry, writeCache } = loadFast(file)
  let outcome
  try {
    outcome = await entry.run(route.args, { bin: pkg.oclif.bin, version: pkg.version, root })
    writeCache()
  } catch (err) {
    // What oclif prints and exits with for an error a command throws.
    return (await oclif()).handle(err)
  }
  if (outcome === 'done') return
  if ('exit' in outcome) process.exit(outcome.exit)
  return runOclif(outcome.fallback)
}

main()
