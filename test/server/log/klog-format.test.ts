/**
 * Log lines name the source file and line of the caller, read from the bundle's source map when
 * the server runs from dist/ (klog-format.ts reads the map itself): the names must be the ones
 * Node's own source-map support gives for the same positions.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { SourceMap } from 'node:module'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { build } from 'esbuild'
import { callerSource, sourceMapCheckpoints, sourceMapIndex, sourceName } from '../../../src/server/log/klog-format.js'

const files: Record<string, string> = {
  'entry.ts': "import { a } from './first.js'\nimport { b } from './second.js'\nexport function run(): string {\n  return a() + b()\n}\n",
  'first.ts': "export function a(): string {\n  const x = 'first'\n  return x.repeat(2)\n}\n",
  'second.ts': "// a comment\n\nexport function b(): string {\n  const values = [1, 2, 3].map((n) => n * 2)\n  return values.join(',')\n}\n",
}

describe('klog source names', () => {
  let dir: string
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'klog-format-'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('names the source file and line of a bundle position as its source map does', async () => {
    await build({
      stdin: { contents: files['entry.ts'], sourcefile: 'entry.ts', resolveDir: '/virtual', loader: 'ts' },
      bundle: true,
      format: 'cjs',
      outfile: join(dir, 'bundle.cjs'),
      sourcemap: 'linked',
      sourcesContent: false,
      logLevel: 'silent',
      plugins: [
        {
          name: 'virtual',
          setup(b) {
            b.onResolve({ filter: /^\.\// }, (args) => ({ path: `/virtual/${args.path.slice(2).replace(/\.js$/, '.ts')}`, namespace: 'virtual' }))
            b.onLoad({ filter: /.*/, namespace: 'virtual' }, (args) => ({ contents: files[basename(args.path)], loader: 'ts' }))
          },
        },
      ],
    })
    const file = join(dir, 'bundle.cjs')
    const reference = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')))
    const lines = readFileSync(file, 'utf8').split('\n')
    let compared = 0
    lines.forEach((text, line) => {
      for (let column = 0; column < text.length; column += 3) {
        const entry = reference.findEntry(line, column)
        if (!('originalSource' in entry) || !entry.originalSource) continue
        assert.equal(sourceName(`${file}:${line + 1}:${column + 1}`), `${basename(entry.originalSource)}:${entry.originalLine + 1}`, `${line + 1}:${column + 1}`)
        compared++
      }
    })
    assert.ok(compared > 20, `only ${compared} positions compared`)
  })

  it('names the same source file and line from the checkpoints the build stores in a map', async () => {
    const file = join(dir, 'bundle.cjs')
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8'))
    const reference = new SourceMap(map)
    const lines = readFileSync(file, 'utf8').split('\n')
    // Checkpoints every 2 lines: most lookups start between two of them.
    const copy = join(dir, 'checkpointed.cjs')
    writeFileSync(copy, lines.join('\n'))
    writeFileSync(`${copy}.map`, JSON.stringify({ ...map, x_client_checkpoints: sourceMapCheckpoints(map.mappings, 2) }))
    let compared = 0
    lines.forEach((text, line) => {
      for (let column = 0; column < text.length; column += 3) {
        const entry = reference.findEntry(line, column)
        if (!('originalSource' in entry) || !entry.originalSource) continue
        assert.equal(sourceName(`${copy}:${line + 1}:${column + 1}`), `${basename(entry.originalSource)}:${entry.originalLine + 1}`, `${line + 1}:${column + 1}`)
        compared++
      }
    })
    assert.ok(compared > 20, `only ${compared} positions compared`)
    assert.equal(sourceName(`${copy}:${lines.length + 5}:1`), 'checkpointed.ts:' + (lines.length + 5), 'a line past the map is named as the file itself')
  })

  it('names the same source file and line through the index beside a map, reading only the mappings it needs', async () => {
    const file = join(dir, 'bundle.cjs')
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8'))
    const reference = new SourceMap(map)
    const lines = readFileSync(file, 'utf8').split('\n')
    const copy = join(dir, 'indexed.cjs')
    writeFileSync(copy, lines.join('\n'))
    // Checkpoints every 2 lines, and text before the mappings that is not ASCII: the index's offset is in bytes.
    const text = JSON.stringify({ x_note: 'été (two bytes each in the file)', ...map, x_client_checkpoints: sourceMapCheckpoints(map.mappings, 2) })
    writeFileSync(`${copy}.map`, text)
    writeFileSync(`${copy}.map.index`, JSON.stringify(sourceMapIndex(text, 2)))
    let compared = 0
    lines.forEach((line, n) => {
      for (let column = 0; column < line.length; column += 3) {
        const entry = reference.findEntry(n, column)
        if (!('originalSource' in entry) || !entry.originalSource) continue
        assert.equal(sourceName(`${copy}:${n + 1}:${column + 1}`), `${basename(entry.originalSource)}:${entry.originalLine + 1}`, `${n + 1}:${column + 1}`)
        compared++
      }
    })
    assert.ok(compared > 20, `only ${compared} positions compared`)
    assert.equal(sourceName(`${copy}:${lines.length + 5}:1`), 'indexed.ts:' + (lines.length + 5), 'a line past the map is named as the file itself')
    // A map that changed after its index was written is not read through the index.
    const stale = join(dir, 'stale.cjs')
    writeFileSync(stale, lines.join('\n'))
    writeFileSync(`${stale}.map`, `${text} `)
    writeFileSync(`${stale}.map.index`, JSON.stringify(sourceMapIndex(text, 2)))
    assert.equal(sourceName(`${stale}:2:1`), 'stale.ts:2')
  })

  it('reads a file without a map as its TypeScript source, and a TypeScript position as it is', () => {
    assert.equal(sourceName(`${join(dir, 'nomap.js')}:12:5`), 'nomap.ts:12')
    assert.equal(sourceName('file:///somewhere/server.ts:7:3'), 'server.ts:7')
  })

  it('finds the caller from the stack', () => {
    const here = (): string => callerSource(1)
    assert.match(sourceName(here()), /^klog-format\.test\.ts:\d+$/)
  })
})
