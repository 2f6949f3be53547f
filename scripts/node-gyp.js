#!/usr/bin/env node
// npm's node-gyp for this project (.npmrc: node-gyp=scripts/node-gyp.js). better-sqlite3 builds
// its addon with node-gyp when no prebuilt binary can be downloaded, and node-gyp would then
// download Node's headers from nodejs.org: on a machine that reaches only the npm registry
// the install fails. The Node packages (NodeSource's, Debian's libnode-dev, the official
// tarball) put the headers beside the binary, in <prefix>/include/node; this passes that
// prefix as --nodedir to npm's own node-gyp, unless a nodedir is already given.
import { spawnSync } from 'node:child_process'
import { existsSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/** npm's bundled node-gyp: beside the npm that runs the install (npm_execpath), else one on the module path. */
function npmNodeGyp() {
  const npmCli = process.env.npm_execpath
  if (npmCli) {
    const bundled = join(dirname(npmCli), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js')
    if (existsSync(bundled)) return bundled
  }
  return createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js')
}

/** The running Node's prefix when its headers are there. */
function localNodeDir() {
  const prefix = dirname(dirname(realpathSync(process.execPath)))
  return existsSync(join(prefix, 'include', 'node', 'node.h')) ? prefix : undefined
}

const args = process.argv.slice(2)
const given = process.env.npm_config_nodedir || args.some((a) => a === '--nodedir' || a.startsWith('--nodedir='))
const nodedir = given ? undefined : localNodeDir()
const run = spawnSync(process.execPath, [npmNodeGyp(), ...args, ...(nodedir ? [`--nodedir=${nodedir}`] : [])], { stdio: 'inherit' })
process.exit(run.status ?? 1)
