import assert from 'node:assert/strict'
import { aliasBomb } from '../../server/fuzz/hostile-requests.js'
import { EXCESSIVE_ALIASING, YamlAliasingError, checkYamlAliasing, loadAllYaml, loadYaml } from '../../../src/core/util/yaml.js'
import { MAX_NESTING_DEPTH } from '../../../src/core/util/nesting.js'
import { commandLineFromManifest } from '../../../src/core/flags/sources.js'
import { parseKubeconfig } from '../../../src/core/client/kubeconfig.js'
import { parsePatch } from '../../../src/core/patch/index.js'

describe('core/util/yaml: YAML read as the reference decoder bounds it', () => {
  it('refuses the "billion laughs" shape with go-yaml\'s text, quickly and without expanding it', () => {
    const started = Date.now()
    assert.throws(() => loadYaml(aliasBomb(9, 9)), (err: unknown) => err instanceof YamlAliasingError && err.message === EXCESSIVE_ALIASING)
    // 9^9 nodes would take minutes and gigabytes to expand; the check counts them instead.
    assert.ok(Date.now() - started < 5000)
  })

  it('refuses a 458-byte document that expands to millions of nodes', () => {
    const doc = aliasBomb(7, 9)
    assert.ok(doc.length < 600, `${doc.length} bytes`)
    assert.throws(() => loadYaml(doc), YamlAliasingError)
  })

  it('accepts ordinary anchors and aliases (a shared block used a few times)', () => {
    const doc = 'base: &b {cpu: 1, memory: 2}\n' + Array.from({ length: 50 }, (_, i) => `k${i}: *b`).join('\n')
    const value = loadYaml(doc) as Record<string, { cpu: number }>
    assert.equal(Object.keys(value).length, 51)
    assert.equal(value.k49!.cpu, 1)
  })

  it('applies go-yaml\'s ratio only past 100 aliased and 1,000 decoded nodes', () => {
    // Small documents may be all aliases: 10 aliases of a 10-item list.
    assert.doesNotThrow(() => checkYamlAliasing(JSON.parse('{}')))
    const shared = Array.from({ length: 10 }, (_, i) => i)
    assert.doesNotThrow(() => checkYamlAliasing({ a: shared, b: Array(10).fill(shared) }))
    const big = Array.from({ length: 200 }, (_, i) => i)
    assert.throws(() => checkYamlAliasing({ a: big, b: Array(500).fill(big) }), YamlAliasingError)
  })

  it('refuses an anchor that contains itself', () => {
    assert.throws(() => loadYaml('a: &a [1, *a]'), /anchor value contains itself/)
  })

  it(`bounds nesting at ${MAX_NESTING_DEPTH} levels`, () => {
    const nested = (n: number) => `a: ${'['.repeat(n)}${']'.repeat(n)}`
    assert.doesNotThrow(() => loadYaml(nested(MAX_NESTING_DEPTH - 1)))
    assert.throws(() => loadYaml(nested(MAX_NESTING_DEPTH + 1)), /maxDepth/)
  })

  it('bounds every document of a stream', () => {
    assert.equal(loadAllYaml('a: 1\n---\nb: 2').length, 2)
    assert.throws(() => loadAllYaml(`a: 1\n---\n${aliasBomb(8, 9)}`), YamlAliasingError)
  })

  it('is what every YAML input uses: manifests, kubeconfigs and client patches', () => {
    assert.throws(() => commandLineFromManifest(aliasBomb(8, 9)), /the manifest is not valid YAML: yaml: document contains excessive aliasing/)
    assert.throws(() => parseKubeconfig(aliasBomb(8, 9), 'config'), /^Error: yaml: document contains excessive aliasing$|yaml: document contains excessive aliasing/)
    assert.throws(() => parsePatch(aliasBomb(8, 9), 'merge'), /yaml: document contains excessive aliasing/)
  })
})
