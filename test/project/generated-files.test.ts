import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { docSections, sectionOf } from '../../src/core/options/doc-sections.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const withoutVersion = (manifest: { version?: string }) => ({ ...manifest, version: undefined })

describe('generated files', () => {
  it('oclif.manifest.json matches the built commands', function () {
    this.timeout(60_000)
    const dir = mkdtempSync(join(tmpdir(), 'client-manifest-'))
    try {
      cpSync(join(root, 'package.json'), join(dir, 'package.json'))
      cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true })
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
      execFileSync(join(root, 'node_modules/.bin/oclif'), ['manifest', dir], { cwd: dir, stdio: 'ignore' })
      const fresh = JSON.parse(readFileSync(join(dir, 'oclif.manifest.json'), 'utf8'))
      const onDisk = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'))
      assert.deepEqual(withoutVersion(onDisk), withoutVersion(fresh), 'oclif.manifest.json is stale: run npm run build')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('the committed oclif.manifest.json is the one the build produces', function () {
    const git = spawnSync('git', ['show', 'HEAD:oclif.manifest.json'], { cwd: root, encoding: 'utf8' })
    if (git.status !== 0) {
      // Outside a git checkout (an unpacked tarball) there is nothing committed to compare.
      if (process.env.CI) assert.fail(`CI runs in a git clone, but git show failed: ${git.stderr}`)
      this.skip()
    }
    const committed = JSON.parse(git.stdout)
    const built = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'))
    assert.deepEqual(withoutVersion(committed), withoutVersion(built), 'commit the regenerated oclif.manifest.json')
  })

  it('the option and feature-gate sections of docs/ are generated from the catalogue', () => {
    for (const [file, sections] of Object.entries(docSections())) {
      const text = readFileSync(join(root, file), 'utf8')
      for (const [marker, body] of Object.entries(sections)) {
        assert.equal(sectionOf(text, marker), body, `${file} section ${marker} is stale: run npm run readme`)
      }
    }
  })

  it('docs/commands.md documents every command of the manifest', () => {
    const reference = readFileSync(join(root, 'docs/commands.md'), 'utf8')
    const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, { summary?: string }> }
    for (const [id, command] of Object.entries(manifest.commands)) {
      assert.ok(reference.includes(`## \`client ${id.replace(/:/g, ' ')}`), `docs/commands.md lacks the command ${id}: run npm run readme`)
      if (command.summary) assert.ok(reference.includes(command.summary), `docs/commands.md has a stale summary for ${id}`)
    }
  })
})
