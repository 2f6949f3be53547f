/**
 * `npm ci` on a machine that reaches only the npm registry (issue 38): better-sqlite3 falls back
 * to node-gyp when its prebuilt binary cannot be downloaded, and node-gyp must then use the
 * headers installed beside `node`, not download them from nodejs.org. The project's .npmrc
 * runs npm's scripts through scripts/npm-script-shell.sh, which names those headers.
 *
 * The whole install (a `git clone` of HEAD, `npm ci` with an empty HOME, an empty npm cache and
 * no npm configuration) is the first step of the README quick-start test under CI
 * (test/project/readme-quick-start.test.ts).
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** The environment without any npm configuration (npm_config_*, npm_*), as a fresh shell has it. */
function withoutNpmConfig(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)))
  return { ...env, ...extra }
}

describe('npm ci from the npm registry alone', function () {
  this.timeout(30_000)

  it('.npmrc runs scripts through the shell that names the local Node headers', () => {
    assert.match(readFileSync(join(root, '.npmrc'), 'utf8'), /^script-shell=\$\{PWD\}\/scripts\/npm-script-shell\.sh$/m)
    const prefix = dirname(dirname(realpathSync(process.execPath)))
    const run = spawnSync(join(root, 'scripts/npm-script-shell.sh'), ['-c', 'echo "nodedir=$npm_config_nodedir"'], {
      encoding: 'utf8',
      env: withoutNpmConfig({ npm_node_execpath: process.execPath }),
    })
    assert.equal(run.status, 0, run.stderr)
    const expected = existsSync(join(prefix, 'include/node/node.h')) ? prefix : ''
    assert.equal(run.stdout, `nodedir=${expected}\n`)
    // A nodedir the user configured wins.
    const configured = join(tmpdir(), 'node-headers')
    const given = spawnSync(join(root, 'scripts/npm-script-shell.sh'), ['-c', 'echo "nodedir=$npm_config_nodedir"'], {
      encoding: 'utf8',
      env: withoutNpmConfig({ npm_config_nodedir: configured }),
    })
    assert.equal(given.stdout, `nodedir=${configured}\n`)
  })
})
