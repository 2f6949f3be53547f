/**
 * The reference's storage readiness post-start hook (kube-apiserver registers
 * `storage-readiness` with WatchCacheInitializationPostStartHook on, beta and off by default in
 * 1.35): named so on /readyz with the gate on, absent with the defaults (1.35's list, where
 * generic-apiserver-start-informers waits for the watch caches instead).
 */
import assert from 'node:assert/strict'
import { ApiServer } from '../../support/api-server.js'
import { SPEC_CHECKS } from '../../support/spec-checks.js'

describe('server: storage readiness (end to end)', function () {
  this.timeout(60_000)
  let server: ApiServer | undefined
  afterEach(async () => {
    await server?.stop()
    server = undefined
  })

  it('with WatchCacheInitializationPostStartHook on, /readyz has poststarthook/storage-readiness, passed once ready', async () => {
    server = await ApiServer.start({ waitFor: 'ready', args: ['--feature-gates=WatchCacheInitializationPostStartHook=true'] })
    const reply = await server.get('/readyz?verbose')
    assert.equal(reply.status, 200)
    const checks = [...reply.body.matchAll(/^\[\+\](\S+) ok$/gm)].map((m) => m[1])
    const at = SPEC_CHECKS.indexOf('poststarthook/start-cluster-authentication-info-controller') + 1
    assert.deepEqual(checks, [...SPEC_CHECKS.slice(0, at), 'poststarthook/storage-readiness', ...SPEC_CHECKS.slice(at), 'shutdown'])
    assert.equal((await server.get('/readyz/poststarthook/storage-readiness')).body, 'ok')
  })

  it('with the defaults, /readyz lists 1.35\'s checks only', async () => {
    server = await ApiServer.start({ waitFor: 'ready' })
    assert.ok(!(await server.get('/readyz?verbose')).body.includes('storage-readiness'))
  })
})
