import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { docSections, sectionOf } from '../../src/core/options/doc-sections.js'
import { skipOrFail } from '../support/tools.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const withoutVersion = (manifest: { version?: string }) => ({ ...manifest, version: undefined })

describe('generated files', () => {
  // `npm test` builds first, and the build rewrites oclif.manifest.json from the commands: the
  // file on disk is what the build produces, and the one committed must equal it. (Regenerating
  // the manifest again here and comparing it with the file the build just wrote could not fail.)
  it('the committed oclif.manifest.json is the one the build produces', function () {
    const git = spawnSync('git', ['show', 'HEAD:oclif.manifest.json'], { cwd: root, encoding: 'utf8' })
    // Outside a git checkout (an unpacked tarball) there is nothing committed to compare.
    if (git.error || git.status !== 0) skipOrFail(this, `no committed oclif.manifest.json to compare: git show failed (${git.error?.message ?? git.stderr.trim()})`)
    const committed = JSON.parse(git.stdout)
    const built = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'))
    assert.deepEqual(withoutVersion(committed), withoutVersion(built), 'the committed oclif.manifest.json is stale: run npm run build and commit it')
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

describe('generated OpenAPI definitions', () => {
  it('openapi-definitions.ts holds openapi-data.ts\'s definitions without their descriptions (node scripts/gen-openapi-definitions.mjs)', async () => {
    const { OPENAPI_GZIP_BASE64 } = await import('../../src/server/api/generated/openapi-data.js')
    const { OPENAPI_DEFINITIONS_JSON } = await import('../../src/server/api/generated/openapi-definitions.js')
    const { gunzipSync } = await import('node:zlib')
    const { definitions } = JSON.parse(gunzipSync(Buffer.from(OPENAPI_GZIP_BASE64, 'base64')).toString('utf8')) as { definitions: unknown }
    const withoutDescriptions = JSON.parse(JSON.stringify(definitions, (key, value: unknown) => (key === 'description' && typeof value === 'string' ? undefined : value)))
    const generated = JSON.parse(OPENAPI_DEFINITIONS_JSON) as Record<string, unknown>
    assert.deepEqual(generated, withoutDescriptions, 'openapi-definitions.ts is stale: run node scripts/gen-openapi-definitions.mjs')
  })
})
