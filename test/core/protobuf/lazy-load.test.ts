/**
 * Commands that never speak protobuf (flags validate, patch) must not pay for the 360 kB
 * descriptor or protobufjs: importing the module loads neither; loadProtobufCodec() loads them once.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..')
const source = join(root, 'src/core/protobuf')

function run(script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, timeout: 60_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout.trim()),
    )
  })
}

describe('protobuf codec: loaded only on demand', () => {
  it('imports neither protobufjs nor the descriptor statically', () => {
    for (const file of readdirSync(source).filter((name) => name.endsWith('.ts'))) {
      const text = readFileSync(join(source, file), 'utf8')
      for (const line of text.split('\n').filter((l) => /^import\s/.test(l))) {
        assert.ok(!/protobufjs/.test(line) || /^import type\s/.test(line), `${file}: ${line}`)
        assert.ok(!/k8s-descriptor/.test(line), `${file}: ${line}`)
      }
    }
  })

  it('loads protobufjs on the first loadProtobufCodec() call, and only once', async () => {
    const out = await run(`
      import { createRequire } from 'node:module'
      const cache = createRequire(import.meta.url).cache
      const loaded = () => Object.keys(cache).some((key) => key.includes('/node_modules/protobufjs/'))
      const mod = await import('./src/core/protobuf/index.ts')
      const before = loaded()
      const [a, b] = await Promise.all([mod.loadProtobufCodec(), mod.loadProtobufCodec()])
      console.log(JSON.stringify({ before, after: loaded(), same: a === b && a === (await mod.loadProtobufCodec()) }))
    `)
    assert.deepEqual(JSON.parse(out), { before: false, after: true, same: true })
  })
})
