/**
 * bin/load-fast.js: a fast entry runs the same with a fresh code cache, a cache left from
 * another version of the bundle (same size), a damaged cache, and none; its dynamic imports
 * reach packages.
 */
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync, existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const { loadFast } = createRequire(import.meta.url)('../../bin/load-fast.js') as {
  loadFast: (file: string) => { entry: { run: () => Promise<string> }; writeCache: () => void }
}

describe('bin/load-fast: code-cached fast entries', () => {
  let dir: string
  let previous: string | undefined
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'load-fast-'))
    previous = process.env.CLIENT_WRITE_CODE_CACHE
  })
  after(() => {
    if (previous === undefined) delete process.env.CLIENT_WRITE_CODE_CACHE
    else process.env.CLIENT_WRITE_CODE_CACHE = previous
    rmSync(dir, { recursive: true, force: true })
  })

  const bundle = (word: string) => `exports.run = async () => { const { parse } = await __fastImport('node:path'); return ${JSON.stringify(word)} + ':' + parse('/a/b.c').ext }\n`

  it('runs with no cache, writes one when asked, and runs with it', async () => {
    const file = join(dir, 'entry.cjs')
    writeFileSync(file, bundle('first'))
    delete process.env.CLIENT_WRITE_CODE_CACHE
    let loaded = loadFast(file)
    assert.equal(await loaded.entry.run(), 'first:.c')
    loaded.writeCache()
    assert.equal(existsSync(`${file}.cache`), false, 'a cache is written only when the build asks')
    process.env.CLIENT_WRITE_CODE_CACHE = '1'
    loaded = loadFast(file)
    await loaded.entry.run()
    loaded.writeCache()
    assert.ok(readFileSync(`${file}.cache`).length > 0)
    delete process.env.CLIENT_WRITE_CODE_CACHE
    assert.equal(await loadFast(file).entry.run(), 'first:.c')
  })

  it('does not use the cache of another bundle of the same size', async () => {
    const file = join(dir, 'entry.cjs')
    writeFileSync(file, bundle('other'))
    // Same length as 'first'; a later time, as a rebuild gives.
    const later = new Date(Date.now() + 5_000)
    utimesSync(file, later, later)
    assert.equal(await loadFast(file).entry.run(), 'other:.c')
  })

  it('compiles a bundle the build wrote inside its wrapper as it is', async () => {
    const file = join(dir, 'wrapped.cjs')
    writeFileSync(file, `(function (exports, require, module, __filename, __dirname, __fastImport) {${bundle('wrapped')}\n})`)
    assert.equal(await loadFast(file).entry.run(), 'wrapped:.c')
  })

  it("loads a package's side bundle on its first import(), once, with its own cache", async () => {
    const sideDir = join(dir, 'sides')
    mkdirSync(join(sideDir, 'side'), { recursive: true })
    // @scope/name is side/scope+name.cjs; a package without a side bundle comes from Node's import().
    writeFileSync(join(sideDir, 'side', 'scope+pkg.cjs'), 'globalThis.__sideLoads = (globalThis.__sideLoads ?? 0) + 1\nexports.word = "side"\n')
    const file = join(sideDir, 'entry.cjs')
    writeFileSync(file, `exports.run = async () => { const a = await __fastImport('@scope/pkg'); const b = await __fastImport('@scope/pkg'); const { sep } = await __fastImport('node:path'); return a.word + (a === b) + sep }\n`)
    process.env.CLIENT_WRITE_CODE_CACHE = '1'
    const loaded = loadFast(file)
    assert.equal(await loaded.entry.run(), 'sidetrue/')
    assert.equal((globalThis as { __sideLoads?: number }).__sideLoads, 1)
    loaded.writeCache()
    delete process.env.CLIENT_WRITE_CODE_CACHE
    assert.ok(readFileSync(join(sideDir, 'side', 'scope+pkg.cjs.cache')).length > 0, 'the side bundle has its cache')
    const other = join(sideDir, 'other.cjs')
    writeFileSync(other, `exports.run = () => __fastImport('@scope/missing')\n`)
    await assert.rejects(loadFast(other).entry.run(), { code: 'ERR_MODULE_NOT_FOUND' })
  })

  it('runs with a damaged cache', async () => {
    const file = join(dir, 'damaged.cjs')
    writeFileSync(file, bundle('fine'))
    process.env.CLIENT_WRITE_CODE_CACHE = '1'
    const loaded = loadFast(file)
    await loaded.entry.run()
    loaded.writeCache()
    delete process.env.CLIENT_WRITE_CODE_CACHE
    const cache = readFileSync(`${file}.cache`)
    const stampEnd = cache.indexOf(10) + 1
    writeFileSync(`${file}.cache`, Buffer.concat([cache.subarray(0, stampEnd), Buffer.alloc(cache.length - stampEnd, 7)]))
    assert.equal(await loadFast(file).entry.run(), 'fine:.c')
  })
})
