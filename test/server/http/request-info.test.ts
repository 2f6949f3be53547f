import assert from 'node:assert/strict'
import { MalformedPathError, decodeRequestPath, pathName, resolveRequestInfo } from '../../../src/server/http/request-info.js'

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

/** The cases of the reference's staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo_test.go, one row each. */
describe('server/http/request-info: the reference\'s requestinfo_test.go table', () => {
  type Row = [method: string, url: string, verb: string, group: string, version: string, namespace: string, resource: string, subresource: string, name: string, parts: string[]]
  // TestGetAPIRequestInfo's successCases (the reference's empty namespace is no namespace here).
  const rows: Row[] = [
    ['GET', '/api/v1/namespaces', 'list', '', 'v1', '', 'namespaces', '', '', ['namespaces']],
    ['GET', '/api/v1/namespaces/other', 'get', '', 'v1', 'other', 'namespaces', '', 'other', ['namespaces', 'other']],
    ['GET', '/api/v1/namespaces/other/pods', 'list', '', 'v1', 'other', 'pods', '', '', ['pods']],
    ['GET', '/api/v1/namespaces/other/pods/foo', 'get', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
    ['HEAD', '/api/v1/namespaces/other/pods/foo', 'get', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
    ['GET', '/api/v1/pods', 'list', '', 'v1', '', 'pods', '', '', ['pods']],
    ['HEAD', '/api/v1/pods', 'list', '', 'v1', '', 'pods', '', '', ['pods']],
    // special verbs
    ['GET', '/api/v1/proxy/namespaces/other/pods/foo', 'proxy', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
    ['GET', '/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource', 'proxy', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo', 'subpath', 'not', 'a', 'subresource']],
    ['GET', '/api/v1/watch/pods', 'watch', '', 'v1', '', 'pods', '', '', ['pods']],
    ['GET', '/api/v1/pods?watch=true', 'watch', '', 'v1', '', 'pods', '', '', ['pods']],
    ['GET', '/api/v1/pods?watch=false', 'list', '', 'v1', '', 'pods', '', '', ['pods']],
    ['GET', '/api/v1/watch/namespaces/other/pods', 'watch', '', 'v1', 'other', 'pods', '', '', ['pods']],
    ['GET', '/api/v1/namespaces/other/pods?watch=1', 'watch', '', 'v1', 'other', 'pods', '', '', ['pods']],
    ['GET', '/api/v1/namespaces/other/pods?watch=0', 'list', '', 'v1', 'other', 'pods', '', '', ['pods']],
    // subresource identification
    ['GET', '/api/v1/namespaces/other/pods/foo/status', 'get', '', 'v1', 'other', 'pods', 'status', 'foo', ['pods', 'foo', 'status']],
    ['GET', '/api/v1/namespaces/other/pods/foo/proxy/subpath', 'get', '', 'v1', 'other', 'pods', 'proxy', 'foo', ['pods', 'foo', 'proxy', 'subpath']],
    ['PUT', '/api/v1/namespaces/other/finalize', 'update', '', 'v1', 'other', 'namespaces', 'finalize', 'other', ['namespaces', 'other', 'finalize']],
    ['PUT', '/api/v1/namespaces/other/status', 'update', '', 'v1', 'other', 'namespaces', 'status', 'other', ['namespaces', 'other', 'status']],
    // verb identification
    ['PATCH', '/api/v1/namespaces/other/pods/foo', 'patch', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
    ['DELETE', '/api/v1/namespaces/other/pods/foo', 'delete', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
    ['POST', '/api/v1/namespaces/other/pods', 'create', '', 'v1', 'other', 'pods', '', '', ['pods']],
    // deletecollection verb identification
    ['DELETE', '/api/v1/nodes', 'deletecollection', '', 'v1', '', 'nodes', '', '', ['nodes']],
    ['DELETE', '/api/v1/namespaces', 'deletecollection', '', 'v1', '', 'namespaces', '', '', ['namespaces']],
    ['DELETE', '/api/v1/namespaces/other/pods', 'deletecollection', '', 'v1', 'other', 'pods', '', '', ['pods']],
    ['DELETE', '/apis/extensions/v1/namespaces/other/pods', 'deletecollection', 'extensions', 'v1', 'other', 'pods', '', '', ['pods']],
    // api group and version identification
    ['POST', '/apis/extensions/v1/namespaces/other/pods', 'create', 'extensions', 'v1', 'other', 'pods', '', '', ['pods']],
    ['POST', '/apis/extensions/v1beta3/namespaces/other/pods', 'create', 'extensions', 'v1beta3', 'other', 'pods', '', '', ['pods']],
  ]
  it('TestGetAPIRequestInfo: verb, group, version, namespace, resource, subresource, name and parts', () => {
    for (const [method, url, verb, group, version, namespace, resource, subresource, name, parts] of rows) {
      const i = info(method, url)
      assert.equal(i.isResourceRequest, true, url)
      assert.deepEqual(
        [i.verb, i.apiGroup, i.apiVersion, i.namespace ?? '', i.resource, i.subresource ?? '', i.name ?? '', i.parts],
        [verb, group, version, namespace, resource, subresource, name, parts],
        `${method} ${url}`,
      )
      assert.equal(i.error, undefined)
    }
  })

  it('TestGetAPIRequestInfo error cases and TestGetNonAPIRequestInfo: which paths are resource requests', () => {
    const cases: Array<[string, boolean]> = [
      ['/', false],
      ['/api/version/', false],
      ['/apis/group/version/', false],
      ['/badprefix/version/resource', false],
      ['/apis/version/resource', false],
      ['/api/version/resource', true],
      ['/apis/group/version/resource/name/subresource', true],
      ['/api/version/resource/name/subresource', true],
      ['/apis/batch/v1/job', true],
      ['/apis/batch/v1/job/foo', true],
      ['/apis/batch/v1/job/foo/scale', true],
      ['/not-api/version/resource', false],
      ['/apis/extensions/v1beta1', false],
      ['/apis/extensions/v1beta1/', false],
      ['/api/version', false],
      ['/api', false],
      ['', false],
    ]
    for (const [url, resource] of cases) assert.equal(info('GET', url || '/').isResourceRequest, resource, url)
  })

  it('a verb in the path with nothing after it is the resolver\'s error (the reference answers 500)', () => {
    assert.equal(info('GET', '/api/v1/watch').error, 'unable to determine kind and namespace from url')
    assert.equal(info('GET', '/apis/apps/v1/proxy/').error, 'unable to determine kind and namespace from url')
    assert.equal(info('GET', '/api/v1/watch/pods').error, undefined)
  })

  it('proxy and watch verbs are long-running, as BasicLongRunningRequestCheck says', () => {
    assert.equal(info('GET', '/api/v1/proxy/namespaces/other/pods/foo').longRunning, true)
    assert.equal(info('GET', '/api/v1/watch/pods').longRunning, true)
    assert.equal(info('GET', '/api/v1/namespaces/other/pods/foo/log').longRunning, true)
    assert.equal(info('GET', '/api/v1/namespaces/other/pods/foo').longRunning, false)
  })

  // TestSelectorParsing, row by row: [method, url, name, verb, fieldSelector, labelSelector].
  const selectorRows: Array<[string, string, string, string, string, string]> = [
    ['GET', '/apis/group/version/resource', '', 'list', '', ''],
    ['GET', '/apis/group/version/resource?fieldSelector=metadata.name=name1', 'name1', 'list', 'metadata.name=name1', ''],
    ['GET', '/apis/group/version/resource?watch=true&fieldSelector=metadata.name=name1', 'name1', 'watch', 'metadata.name=name1', ''],
    ['GET', '/apis/group/version/resource?fieldSelector=foo=bar&labelSelector=baz=qux', '', 'list', 'foo=bar', 'baz=qux'],
    ['GET', '/apis/group/version/resource?fieldSelector=metadata.name=name1,foo', '', 'list', 'metadata.name=name1,foo', ''],
    ['GET', '/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=true', '', 'watch', 'metadata.name=name1,foo', ''],
    ['GET', '/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=false', '', 'list', 'metadata.name=name1,foo', ''],
    ['DELETE', '/apis/group/version/resource?fieldSelector=foo=bar&labelSelector=baz=qux', '', 'deletecollection', 'foo=bar', 'baz=qux'],
    ['GET', '/apis/group/version/resource?fieldSelector=metadata.name=foo&fieldSelector=metadata.name=bar&labelSelector=foo=bar&labelSelector=foo=baz', 'foo', 'list', 'metadata.name=foo', 'foo=bar'],
    ['GET', '/apis/group/version/resource/name?fieldSelector=foo=bar&labelSelector=foo=bar', 'name', 'get', '', ''],
    ['GET', '/apis/group/version/watch/resource?fieldSelector=metadata.name=foo&labelSelector=foo=bar', '', 'watch', '', ''],
    ['GET', '/apis/group/version/watch/resource/name?fieldSelector=metadata.name=foo&labelSelector=foo=bar', 'name', 'watch', '', ''],
  ]
  it('TestSelectorParsing: a metadata.name field selector names the object of a list or watch; selectors kept for list, watch, deletecollection', () => {
    for (const [method, url, name, verb, fieldSelector, labelSelector] of selectorRows) {
      const i = info(method, url)
      assert.deepEqual([i.name ?? '', i.verb, i.fieldSelector ?? '', i.labelSelector ?? ''], [name, verb, fieldSelector, labelSelector], `${method} ${url}`)
    }
  })

  it('the name only when the whole query decodes as ListOptions, and only a name that can be a path segment', () => {
    const name = (query: string) => info('GET', `/api/v1/namespaces/ns/secrets?${query}`).name
    assert.equal(name('fieldSelector=metadata.name%3D%3Ds1'), 's1')
    assert.equal(name('fieldSelector=metadata.namespace%3Dns,metadata.name%3Ds1'), 's1')
    assert.equal(name('fieldSelector=metadata.name!%3Ds1'), undefined)
    assert.equal(name('fieldSelector=metadata.name%3Ds1&labelSelector=a%3D%3D%3D'), undefined)
    assert.equal(name('fieldSelector=metadata.name%3Ds1&limit=x'), undefined)
    assert.equal(name('fieldSelector=metadata.name%3Ds1&timeoutSeconds='), undefined)
    assert.equal(name('fieldSelector=metadata.name%3Ds1&limit=500&timeoutSeconds=30'), 's1')
    assert.equal(name('fieldSelector=metadata.name%3D..'), undefined)
    assert.equal(name('fieldSelector=metadata.name%3Da%25b'), undefined)
    // fields.UnescapeValue: `\,` is a comma of the value, `\x` no escape at all.
    assert.equal(name('fieldSelector=metadata.name%3Da\\%2Cb'), 'a,b')
    assert.equal(name('fieldSelector=metadata.name%3Da\\x'), undefined)
    // No spaces are trimmed: `metadata.name ` is another field.
    assert.equal(name('fieldSelector=metadata.name%20%3Ds1'), undefined)
  })

  it('pathName: the router serves the path\'s name, never the field selector\'s', () => {
    assert.equal(pathName(info('GET', '/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Ds1')), undefined)
    assert.equal(pathName(info('GET', '/api/v1/namespaces/ns/secrets/s1')), 's1')
    assert.equal(pathName(info('GET', '/api/v1/namespaces/ns')), 'ns')
    assert.equal(pathName(info('GET', '/api/v1/namespaces/ns/pods//status')), undefined)
  })
})
