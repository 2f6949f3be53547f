/**
 * src/core/util/direct-output.ts: text written straight to the standard output and error
 * arrives whole and in order (a megabyte through a pipe the reader drains slowly included); after
 * a failed write, the rest goes through the stream.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../..', import.meta.url))

function run(script: string, slowReader = false): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8')
    child.stderr.setEncoding('utf8')
    child.stdout.on('data', (d: string) => {
      stdout += d
      if (slowReader) {
        child.stdout.pause()
        setTimeout(() => child.stdout.resume(), 2)
      }
    })
    child.stderr.on('data', (d: string) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ stdout, stderr, code }))
  })
}

const load = "const { directWriter } = await import('./src/core/util/direct-output.ts');"

describe('direct output to the standard streams', () => {
  it('writes each text whole and in order, to fd 1 and fd 2', async () => {
    const r = await run(`${load} const out = directWriter(1), err = directWriter(2); out('one\\n'); err('warning: é\\n'); out('two ✓\\n')`)
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, 'one\ntwo ✓\n')
    assert.equal(r.stderr, 'warning: é\n')
  })

  it('delivers a megabyte through a pipe that the reader drains slowly', async () => {
    const r = await run(`${load} const out = directWriter(1); const line = 'x'.repeat(1023) + '\\n'; for (let i = 0; i < 1024; i++) out(line)`, true)
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout.length, 1024 * 1024)
    assert.ok(/^(x{1023}\n){1024}$/.test(r.stdout))
  })

  it('hands the text to the stream when the descriptor cannot be written', async () => {
    // fd 1 closed under the writer: writeSync fails (EBADF), the stream reports it as it would.
    const r = await run(`${load} const fs = await import('node:fs'); fs.closeSync(1); const out = directWriter(1); process.stdout.on('error', (e) => { fs.writeSync(2, 'stream error ' + e.code + '\\n') }); out('lost\\n')`)
    assert.match(r.stderr, /stream error|EBADF/)
  })

  it('says whether every write went straight to its descriptor (so the process may end at once)', async () => {
    const direct = await run(`${load} const { allWrittenDirectly } = await import('./src/core/util/direct-output.ts'); directWriter(1)('one\\n'); process.stderr.write(String(allWrittenDirectly()))`)
    assert.equal(direct.stderr, 'true')
    const handed = await run(`${load} const { allWrittenDirectly } = await import('./src/core/util/direct-output.ts'); const fs = await import('node:fs'); fs.closeSync(1); process.stdout.on('error', () => {}); directWriter(1)('lost\\n'); fs.writeSync(2, String(allWrittenDirectly()))`)
    assert.equal(handed.stderr, 'false')
  })
})
