/**
 * boundHeapGrowth() must take effect in a running process (V8 reads the flag at each full
 * collection's sizing): the same allocations (objects that outlive a few scavenges and die in
 * the old space, beside a growing live set, as a cluster's writes make them) reach a smaller
 * heap with it than under V8's own sizing.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..')

/** The peak heap size (MB) of a child that allocates the same objects, with or without the bound. */
function peakHeapMb(bounded: boolean): Promise<number> {
  const script = `
    import { getHeapStatistics } from 'node:v8'
    import { boundHeapGrowth } from './src/server/lifecycle/heap-growth.ts'
    if (${bounded}) boundHeapGrowth()
    const live = []
    const ring = new Array(200000)
    let peak = 0
    for (let i = 0; i < 2_000_000; i++) {
      const o = { id: i, name: 'pod-' + i, labels: { app: 'a' + (i % 100) }, list: [i, i + 1] }
      ring[i % ring.length] = o
      if (i % 20 === 0) live.push(o)
      if (i % 20000 === 0) peak = Math.max(peak, getHeapStatistics().total_heap_size)
    }
    console.log(Math.round(peak / 1048576), live.length)`
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, timeout: 120_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(Number(stdout.trim().split(' ')[0])),
    )
  })
}

describe('boundHeapGrowth', function () {
  this.timeout(240_000)

  it('keeps the heap smaller than V8 sizes it by itself for the same allocations', async () => {
    const unbounded = await peakHeapMb(false)
    const bounded = await peakHeapMb(true)
    assert.ok(bounded < unbounded * 0.8, `peak heap ${bounded} MB with the bound, ${unbounded} MB without`)
  })
})
