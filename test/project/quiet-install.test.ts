/**
 * `npm ci` is the first thing a newcomer runs: it must not greet them with warnings. npm 11
 * warns about dependencies with install scripts that the project's `allowScripts` does not
 * cover, and the build's `oclif manifest` warns that a newer oclif exists.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))
const json = (file: string) => JSON.parse(readFileSync(join(root, file), 'utf8'))

describe('a quiet npm ci', () => {
  it("allowScripts covers every dependency with install scripts in the lock file", () => {
    const lock = json('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> }
    const allowed = (json('package.json') as { allowScripts?: Record<string, boolean> }).allowScripts ?? {}
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
    assert.ok(withScripts.length > 0, 'the lock file names the packages with install scripts')
    const uncovered = [...new Set(withScripts)].filter((name) => allowed[name] !== true)
    assert.deepEqual(uncovered, [], 'add these to "allowScripts" in package.json (they run as before; npm stops warning)')
  })

  it("the build's oclif manifest skips oclif's update check", () => {
    const build = (json('package.json') as { scripts: Record<string, string> }).scripts.build!
    const manifest = build.split('&&').map((s) => s.trim()).find((s) => /\boclif manifest\b/.test(s))
    assert.ok(manifest, `the build runs oclif manifest: ${build}`)
    assert.match(manifest, /^OCLIF_SKIP_NEW_VERSION_CHECK=true oclif manifest$/)
  })
})
