/**
 * The simulated containers' shell, on the commands the Python client's exec tests send
 * (kubernetes/e2e_test/test_client.py): a for loop over `$(seq 1 3)` printing three lines, a
 * pipe into gzip, `sleep 1; exit 3`'s status, `false`, `ls /`, echo to stderr with `>&2`, and
 * busybox sh's message for an unknown command.
 */
import assert from 'node:assert/strict'
import { gunzipSync } from 'node:zlib'
import { SimulatedShell } from '../../../src/server/simnodes/simulated-shell.js'

async function run(script: string | string[]) {
  const out: Buffer[] = []
  const err: Buffer[] = []
  const shell = new SimulatedShell({ out: (d) => out.push(Buffer.from(d)), err: (d) => err.push(Buffer.from(d)), hostname: 'web-0', now: () => Date.parse('2030-01-02T03:04:05Z') })
  const result = typeof script === 'string' ? await shell.run(script) : await shell.runArgv(script)
  return { ...result, out: Buffer.concat(out), err: Buffer.concat(err).toString() }
}

describe('simulated nodes: the exec shell', () => {
  it('runs a for loop over $(seq 1 3)', async () => {
    const r = await run('for i in $(seq 1 3); do date; done')
    assert.equal(r.out.toString(), 'Wed Jan  2 03:04:05 UTC 2030\n'.repeat(3))
    assert.equal(r.status, 0)
  })

  it('pipes into gzip', async () => {
    const r = await run('echo -n "This is a test string" | gzip')
    assert.equal(gunzipSync(r.out).toString(), 'This is a test string')
  })

  it('ends with exit and reports statuses', async () => {
    assert.deepEqual((await run('true; exit 3')).status, 3)
    assert.equal((await run('exit 3')).exited, true)
    assert.equal((await run(['false'])).status, 1)
    assert.equal((await run(['/bin/sh', '-c', 'x'].slice(2))).status, 127)
    const ls = await run('ls /')
    assert.equal(ls.status, 0)
    assert.ok(ls.out.toString().split('\n').includes('etc'))
  })

  it('writes to stderr with >&2, and names an unknown command as busybox sh does', async () => {
    const r = await run('echo test string 2 >&2')
    assert.deepEqual([r.out.toString(), r.err], ['', 'test string 2\n'])
    const unknown = await run('nosuch-cmd arg')
    assert.deepEqual([unknown.status, unknown.err], [127, 'sh: nosuch-cmd: not found\n'])
  })
})
