/**
 * The pod-spec subresources through the store: an ephemeral container added with only a name
 * and an image is defaulted (as the reference defaults every body) and passes
 * ValidatePodEphemeralContainersUpdate; changing an existing one is refused.
 */
import assert from 'node:assert/strict'
import { ApiError } from '../../../../src/server/api/status-errors.js'
import { type TestRegistry, openTestRegistry } from '../support.js'

describe('validation: pods/ephemeralcontainers through the store', () => {
  let t: TestRegistry
  before(async () => {
    t = await openTestRegistry('api-ephemeral-')
  })
  after(async () => {
    await t.close()
  })

  it('adds a defaulted ephemeral container; an existing one may not change', async () => {
    const pods = t.registry.lookup('', 'v1', 'pods')!
    await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } })
    const debug = { name: 'debug', image: 'busybox', stdin: true }
    const updated = await pods.update('default', 'p', (cur) => ({ ...cur, spec: { ...(cur.spec as object), ephemeralContainers: [debug] } }), { subresource: 'ephemeralcontainers' })
    const ec = (updated.spec as { ephemeralContainers: Array<Record<string, unknown>> }).ephemeralContainers[0]!
    assert.equal(ec.imagePullPolicy, 'Always')
    assert.equal(ec.terminationMessagePolicy, 'File')
    await assert.rejects(
      pods.update('default', 'p', (cur) => ({ ...cur, spec: { ...(cur.spec as object), ephemeralContainers: [{ ...ec, image: 'alpine' }] } }), { subresource: 'ephemeralcontainers' }),
      (e: unknown) => e instanceof ApiError && e.status.code === 422 && e.status.message === 'Pod "p" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "debug" may not be changed\n',
    )
  })
})
