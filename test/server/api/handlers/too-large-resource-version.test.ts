/**
 * A read at a resourceVersion the store has not reached, as the reference answers it: its
 * storage/errors.go NewTooLargeResourceVersionError (NewTimeoutError's 504 with the
 * ResourceVersionTooLarge cause) with the watch cache's retry after (cacher/watch_cache.go
 * waitUntilFreshAndBlock, resourceVersionTooHighRetrySeconds = 1), which client-go's reflector
 * recognises (IsTooLargeResourceVersionError) to relist; a watch-list gets it as its ERROR event.
 */
import assert from 'node:assert/strict'
import { type InProcessApi, openInProcessApi } from './in-process-api.js'

const CMS = '/api/v1/namespaces/default/configmaps'
const CAUSES = [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }]

describe('api: too large resourceVersion as the reference\'s NewTooLargeResourceVersionError', () => {
  let api: InProcessApi
  let current: number
  before(async () => {
    api = await openInProcessApi('too-large-rv-')
    const created = await api.call('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } })
    current = Number((created.body.metadata as { resourceVersion: string }).resourceVersion)
  })
  after(() => api.close())

  const expected = (rv: number) => ({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `Timeout: Too large resource version: ${rv}, current: ${current}`,
    reason: 'Timeout',
    details: { causes: CAUSES, retryAfterSeconds: 1 },
    code: 504,
  })

  it('get, list (NotOlderThan and Exact): 504, the cause, retryAfterSeconds 1 and a Retry-After header', async () => {
    const beyond = current + 10
    for (const path of [`${CMS}/a?resourceVersion=${beyond}`, `${CMS}?resourceVersion=${beyond}`, `${CMS}?resourceVersion=${beyond}&resourceVersionMatch=NotOlderThan`, `${CMS}?resourceVersion=${beyond}&resourceVersionMatch=Exact`]) {
      const reply = await api.call('GET', path)
      assert.equal(reply.status, 504, path)
      assert.deepEqual(reply.body, expected(beyond), path)
      assert.equal(reply.headers['retry-after'], '1', path)
    }
  })

  it('the resourceVersion as the number it parses to (%d), leading zeros gone', async () => {
    const reply = await api.call('GET', `${CMS}/a?resourceVersion=000${current + 7}`)
    assert.equal(reply.body.message, `Timeout: Too large resource version: ${current + 7}, current: ${current}`)
  })

  it('a watch-list from there: the same Status as its ERROR event', async () => {
    const reply = await api.call('GET', `${CMS}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=${current + 3}`)
    assert.equal(reply.status, 200)
    const events = reply.text.trim().split('\n').map((line) => JSON.parse(line) as { type: string; object: unknown })
    assert.deepEqual(events, [{ type: 'ERROR', object: expected(current + 3) }])
  })
})
