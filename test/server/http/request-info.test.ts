import assert from 'node:assert/strict'
import { MalformedPathError, decodeRequestPath, resolveRequestInfo } from '../../../src/server/http/request-info.js'

const info = (method: string, target: string) => resolveRequestInfo(method, new URL(target, 'https://x'), decodeRequestPath(target))

describe('server/http/request-info: paths as the reference resolves them', () => {
  it('decodes percent escapes like Go (a %2f splits segments) and keeps dot segments as they are', () => {
    assert.equal(decodeRequestPath('/api/v1/namespaces/%2e%2e/secrets?x=1'), '/api/v1/namespaces/../secrets')
    assert.equal(decodeRequestPath('/a%2Fb/%C3%A9'), '/a/b/é')
    assert.throws(() => decodeRequestPath('/api/%zz'), MalformedPathError)
    assert.throws(() => decodeRequestPath('/api/%2'), MalformedPathError)
  })

  it('the path ends at the first `?` or `#`, whichever comes first (Go keeps neither in URL.Path)', () => {
    assert.equal(decodeRequestPath('/readyz'), '/readyz')
    assert.equal(decodeRequestPath('/readyz?verbose#x'), '/readyz')
    assert.equal(decodeRequestPath('/readyz#x?verbose'), '/readyz')
    assert.equal(decodeRequestPath('/a%3Fb?c#d'), '/a?b')
    assert.equal(decodeRequestPath('/?'), '/')
    assert.equal(decodeRequestPath('/#'), '/')
  })

  it('a dot segment never widens the namespace: it is a namespace of its own', () => {
    for (const target of ['/api/v1/namespaces/%2e%2e/secrets', '/api/v1/namespaces/../secrets', '/api/v1/namespaces/%2E%2E/secrets']) {
      const i = info('GET', target)
      assert.equal(i.namespace, '..', target)
      assert.equal(i.resource, 'secrets')
      assert.equal(i.verb, 'list')
    }
    const dot = info('GET', '/api/v1/namespaces/./configmaps/x')
    assert.equal(dot.namespace, '.')
    assert.equal(dot.name, 'x')
    // The WHATWG URL parser would have made this the cluster-wide list.
    assert.equal(new URL('/api/v1/namespaces/%2e%2e/secrets', 'https://x').pathname, '/api/v1/secrets')
  })

  it('trailing slashes are trimmed as Go\'s splitPath does: /api/v1/ is discovery, not a resource', () => {
    const v1 = info('GET', '/api/v1/')
    assert.equal(v1.isResourceRequest, false)
    assert.equal(v1.apiVersion, 'v1')
    const apps = info('GET', '/apis/apps/v1/')
    assert.equal(apps.isResourceRequest, false)
    assert.equal(apps.apiGroup, 'apps')
    assert.equal(info('GET', '/api/v1/namespaces/default/pods/').verb, 'list')
  })

  it('watch=True (the Python client\'s spelling) and any value but 0/false make a collection GET a watch', () => {
    for (const v of ['True', 'true', '1', 'yes', '']) assert.equal(info('GET', `/api/v1/pods?watch=${v}`).verb, 'watch', v)
    for (const v of ['False', 'false', '0']) assert.equal(info('GET', `/api/v1/pods?watch=${v}`).verb, 'list', v)
  })
})
