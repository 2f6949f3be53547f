import assert from 'node:assert/strict'
import { passesNow, whenReady } from '../../../src/server/bootstrap/after-ready.js'
import type { HealthCheck } from '../../../src/server/health/check.js'
import { Signal } from '../../../src/server/lifecycle/signals.js'

const check = (name: string, ok: () => boolean): HealthCheck => ({
  name,
  check: async () => {
    if (!ok()) throw new Error('not yet')
  },
})

describe('server/bootstrap: work done once ready', () => {
  it('passesNow runs the checks that do not answer at once and takes the others as they answer', async () => {
    let ran = 0
    const runs: HealthCheck = { name: 'runs', check: async () => void ran++ }
    assert.equal(await passesNow([runs, { ...check('immediate', () => false), immediate: () => null }]), true)
    assert.equal(ran, 1)
    assert.equal(await passesNow([runs, { ...check('immediate', () => true), immediate: () => 'not finished' }]), false)
    assert.equal(await passesNow([check('failing', () => false)]), false)
  })

  it('waits for the hooks, then polls the checks until they pass', async () => {
    let hooksFinished = false
    let ready = false
    let finishHooks!: () => void
    const hooksDone = new Promise<void>((resolve) => (finishHooks = resolve)).then(() => void (hooksFinished = true))
    let resolvedAt: { hooksFinished: boolean; ready: boolean } | undefined
    const waiting = whenReady({ hooksDone, readyChecks: () => [check('store', () => ready)], hasBeenReady: new Signal('r'), shutdownInitiated: new Signal('s'), pollMs: 5 }).then((result) => {
      resolvedAt = { hooksFinished, ready }
      return result
    })
    await new Promise((r) => setTimeout(r, 20))
    assert.equal(resolvedAt, undefined, 'not before the hooks finish')
    finishHooks()
    await new Promise((r) => setTimeout(r, 30))
    assert.equal(resolvedAt, undefined, 'not while a readiness check fails')
    ready = true
    assert.equal(await waiting, true)
    assert.deepEqual(resolvedAt, { hooksFinished: true, ready: true })
  })

  it('a 200 from /readyz is enough; a shutdown that starts first means never', async () => {
    const hasBeenReady = new Signal('r')
    const first = whenReady({ hooksDone: Promise.resolve(), readyChecks: () => [check('never', () => false)], hasBeenReady, shutdownInitiated: new Signal('s'), pollMs: 60_000 })
    hasBeenReady.signal()
    assert.equal(await first, true)
    const shutdown = new Signal('s')
    const second = whenReady({ hooksDone: Promise.resolve(), readyChecks: () => [check('never', () => false)], hasBeenReady: new Signal('r'), shutdownInitiated: shutdown, pollMs: 60_000 })
    shutdown.signal()
    assert.equal(await second, false)
  })
})
