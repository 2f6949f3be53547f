/**
 * `npm ci` on a machine that reaches only the npm registry (issue 38): better-sqlite3 falls back
 * to node-gyp when its prebuilt binary cannot be downloaded, and node-gyp must then use the
 * headers installed beside `node`, not download them from nodejs.org. The project's .npmrc
 * runs npm's scripts through scripts/npm-script-shell.sh, which names those headers.
 *
 * The whole install (a `git clone` of HEAD, `npm ci` with an empty HOME, an empty npm cache and
 * no npm configuration from the environment) takes minutes when the addon is compiled: it runs
 * under CI (`.ci/run`) or with CLIENT_TEST_FRESH_INSTALL=1, and is skipped otherwise.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs'
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
  this.timeout(900_000)

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

  it('a clone installs with an empty HOME, an empty npm cache and no npm configuration, downloading nothing from nodejs.org', function () {
    if (!process.env.CI && !process.env.CLIENT_TEST_FRESH_INSTALL) this.skip()
    const tmp = mkdtempSync(join(tmpdir(), 'client-fresh-install-'))
    try {
      const clone = join(tmp, 'clone')
      const home = join(tmp, 'home')
      mkdirSync(home)
      const cloned = spawnSync('git', ['clone', '-q', root, clone], { encoding: 'utf8' })
      assert.equal(cloned.status, 0, cloned.stderr)
      const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=http'], {
        cwd: clone,
        encoding: 'utf8',
        env: withoutNpmConfig({ HOME: home, PWD: clone, npm_config_cache: join(tmp, 'cache') }),
        timeout: 840_000,
      })
      const output = install.stdout + install.stderr
      assert.equal(install.status, 0, output.slice(-4000))
      assert.doesNotMatch(output, /nodejs\.org/, 'node-gyp downloaded Node headers')
      const addon = join(clone, 'node_modules/better-sqlite3/build/Release')
      assert.ok(existsSync(addon) && readdirSync(addon).includes('better_sqlite3.node'), 'better-sqlite3 has its addon')
      const version = spawnSync(process.execPath, [join(clone, 'bin/run.js'), '--version'], { encoding: 'utf8', env: { ...process.env, HOME: home } })
      assert.equal(version.status, 0, version.stderr)
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  })
})
