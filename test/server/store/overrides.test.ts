import assert from 'node:assert/strict'
import { InvalidError } from '../../../src/server/store/errors.js'
import { defaultKeyPrefix, parseOverrides } from '../../../src/server/store/overrides.js'

describe('store servers overrides', function () {
  it('parses group/resource#url;url entries, the core group written /resource', function () {
    assert.deepEqual(
      parseOverrides([
        '/events#http://127.0.0.1:4001;http://127.0.0.1:4002',
        'apps/deployments#https://etcd-a:2379',
        'example.com/widgets#http://127.0.0.1:4003',
      ]),
      [
        { group: '', resource: 'events', servers: ['http://127.0.0.1:4001', 'http://127.0.0.1:4002'] },
        { group: 'apps', resource: 'deployments', servers: ['https://etcd-a:2379'] },
        { group: 'example.com', resource: 'widgets', servers: ['http://127.0.0.1:4003'] },
      ],
    )
  })

  it('accepts entries joined by commas, and lets a later entry for a resource win', function () {
    assert.deepEqual(parseOverrides(['/events#http://a:1,/events#http://b:2', '']), [
      { group: '', resource: 'events', servers: ['http://b:2'] },
    ])
    assert.deepEqual(parseOverrides([]), [])
  })

  it('rejects malformed entries, quoting the entry and the expected format', function () {
    for (const bad of [
      'events#http://a:1',
      '/events',
      '/events#http://a:1#x',
      'a/b/c#http://a:1',
      'apps/#http://a:1',
      '/events#',
      '/events#127.0.0.1:2379',
      '/events#ftp://a:1',
    ]) {
      assert.throws(
        () => parseOverrides([bad]),
        (err: unknown) => err instanceof InvalidError && err.message.includes(`"${bad}"`) && /group\/resource#servers|URL/.test(err.message),
        bad,
      )
    }
  })

  it('maps resources to their keys like the reference: built-ins at /<resource>/, custom resources under their group', function () {
    assert.equal(defaultKeyPrefix('', 'events'), '/events/')
    assert.equal(defaultKeyPrefix('apps', 'deployments'), '/deployments/')
    assert.equal(defaultKeyPrefix('rbac.authorization.k8s.io', 'roles'), '/roles/')
    assert.equal(defaultKeyPrefix('example.com', 'widgets'), '/example.com/widgets/')
  })
})
