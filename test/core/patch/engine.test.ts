/**
 * Unit tests of the patch engine (src/core/patch): one or more per SMP directive, per error text
 * of research/patch.md §2.10, §3 and §4, and the number model.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'mocha'

import {
  GoFloat,
  PatchError,
  type PatchType,
  UnparsablePatch,
  applyPatch,
  deepEqual,
  formatGoNumber,
  goMarshal,
  goSprint,
  isBuiltIn,
  nodeAtPath,
  parsePatch,
} from '../../../src/core/patch/index.js'

const pod = () => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', labels: { app: 'a' }, finalizers: ['x/flush', 'x/audit'] },
  spec: {
    containers: [
      { name: 'web', image: 'web:1', env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 8080 }] },
      { name: 'log', image: 'log:1' },
    ],
    volumes: [
      { name: 'config', configMap: { name: 'c' } },
      { name: 'cache', emptyDir: {} },
      { name: 'varlog', emptyDir: {} },
    ],
    tolerations: [{ key: 'k', operator: 'Exists' }],
  },
})

function patch(obj: Record<string, unknown>, text: string, type: PatchType = 'strategic') {
  return applyPatch(obj, parsePatch(text, type), type)
}
const names = (list: unknown) => (list as { name: string }[]).map((c) => c.name)
const spec = (o: Record<string, unknown>) => o.spec as Record<string, unknown>
function fails(fn: () => unknown, message: string) {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof PatchError, `PatchError expected, got ${String(e)}`)
    assert.equal(e.message, message)
    return true
  })
}

describe('patch engine: strategic merge patch', () => {
  it('replaces scalars, merges maps, deletes with null and does not mutate the input', () => {
    const original = pod()
    const out = patch(original, '{"metadata":{"labels":{"app":null,"tier":"web"}},"spec":{"restartPolicy":"Never"}}')
    assert.deepEqual((out.metadata as { labels: unknown }).labels, { tier: 'web' })
    assert.equal(spec(out).restartPolicy, 'Never')
    assert.deepEqual(original, pod())
  })
  it('drops nulls inside a new subtree but not inside new merge-list elements', () => {
    const out = patch(pod(), '{"spec":{"securityContext":{"runAsUser":1,"fsGroup":null},"containers":[{"name":"new","image":null}]}}')
    assert.deepEqual(spec(out).securityContext, { runAsUser: 1 })
    assert.deepEqual((spec(out).containers as unknown[])[0], { name: 'new', image: null })
  })
  it('null patch document is a no-op; arrays, scalars and broken JSON are "invalid JSON document"', () => {
    assert.deepEqual(patch(pod(), 'null'), pod())
    fails(() => patch(pod(), '[1]'), 'invalid JSON document')
    fails(() => patch(pod(), '5'), 'invalid JSON document')
    fails(() => patch(pod(), '{"spec":'), 'invalid JSON document')
  })
  it('merge list ordering: a new element goes first, after a named existing one it follows', () => {
    assert.deepEqual(names(spec(patch(pod(), '{"spec":{"containers":[{"name":"prof","image":"p"}]}}')).containers), ['prof', 'web', 'log'])
    assert.deepEqual(names(spec(patch(pod(), '{"spec":{"containers":[{"name":"log"},{"name":"prof","image":"p"}]}}')).containers), ['web', 'log', 'prof'])
    assert.deepEqual(
      names(spec(patch(pod(), '{"spec":{"volumes":[{"name":"varlog"},{"name":"config"}]}}')).volumes),
      ['cache', 'varlog', 'config'],
    )
  })
  it('merges elements by merge key (volumeMounts by mountPath, ports by containerPort, int vs float distinct)', () => {
    const out = patch(pod(), '{"spec":{"containers":[{"name":"web","image":"web:2","ports":[{"containerPort":8080.0,"name":"x"}]}]}}')
    const web = (spec(out).containers as Record<string, unknown>[])[0]
    assert.equal(web.image, 'web:2')
    assert.equal((web.ports as unknown[]).length, 2, 'float 8080.0 does not match int 8080')
    assert.deepEqual(nodeAtPath('v1', 'Pod', ['spec', 'containers', 0, 'volumeMounts']), { kind: 'slice', elem: { kind: 'struct', def: 'core.v1.VolumeMount' } })
  })
  it('replaces lists without merge strategy verbatim (nulls kept)', () => {
    const out = patch(pod(), '{"spec":{"tolerations":[{"key":"z","value":null}]}}')
    assert.deepEqual(spec(out).tolerations, [{ key: 'z', value: null }])
  })
  it('primitive merge lists: union, duplicates removed, new values first', () => {
    const out = patch(pod(), '{"metadata":{"finalizers":["x/lock","x/flush"]}}')
    assert.deepEqual((out.metadata as { finalizers: unknown }).finalizers, ['x/lock', 'x/flush', 'x/audit'])
    fails(() => patch(pod(), '{"metadata":{"finalizers":[null]}}'), 'list element types are not identical: [[x/flush x/audit] [<nil>]]')
  })
  it('$patch: delete removes list elements by merge key; on a map it leaves {}', () => {
    const out = patch(pod(), '{"spec":{"containers":[{"name":"log","$patch":"delete"}],"securityContext":{"$patch":"delete"}}}')
    assert.deepEqual(names(spec(out).containers), ['web'])
    assert.equal(spec(out).securityContext, undefined, 'absent key with a $patch map is not added')
    const out2 = applyPatch({ ...pod(), spec: { ...pod().spec, securityContext: { runAsUser: 1 } } }, { spec: { securityContext: { $patch: 'delete' } } }, 'strategic')
    assert.deepEqual(spec(out2).securityContext, {})
    fails(() => patch(pod(), '{"spec":{"containers":[{"$patch":"delete"}]}}'), 'map: map[$patch:delete] does not contain declared merge key: name')
  })
  it('$patch: replace on lists and maps copies the patch verbatim', () => {
    const out = patch(pod(), '{"spec":{"containers":[{"$patch":"replace"},{"name":"only","x":null}]}}')
    assert.deepEqual(spec(out).containers, [{ name: 'only', x: null }])
    const out2 = patch(pod(), '{"metadata":{"labels":{"$patch":"replace","b":"2","c":null}}}')
    assert.deepEqual((out2.metadata as { labels: unknown }).labels, { b: '2', c: null })
  })
  it('$patch errors', () => {
    fails(() => patch(pod(), '{"spec":{"containers":[{"$patch":"merge"}]}}'), 'merging lists cannot yet be specified in the patch')
    fails(() => patch(pod(), '{"metadata":{"labels":{"$patch":"merge","EXTRA":"x"}}}'), 'unknown patch type: merge in map: map[$patch:merge EXTRA:x]')
    fails(() => patch(pod(), '{"$patch":"delete"}'), "Object 'Kind' is missing in '{}'")
  })
  it('$retainKeys keeps only the listed keys of any map and validates the patch keys', () => {
    const out = patch(pod(), '{"spec":{"volumes":[{"name":"cache","$retainKeys":["name","hostPath"],"hostPath":{"path":"/x"}}]}}')
    assert.deepEqual((spec(out).volumes as unknown[])[1], { name: 'cache', hostPath: { path: '/x' } })
    const out2 = patch(pod(), '{"metadata":{"labels":{"$retainKeys":["b"],"b":"1"}}}')
    assert.deepEqual((out2.metadata as { labels: unknown }).labels, { b: '1' })
    fails(() => patch(pod(), '{"metadata":{"labels":{"$retainKeys":["b"],"c":"1"}}}'), 'invalid patch format of retainKeys')
    fails(() => patch(pod(), '{"metadata":{"labels":{"$retainKeys":"b"}}}'), 'invalid patch format of retainKeys')
  })
  it('$setElementOrder reorders object and primitive lists', () => {
    const out = patch(pod(), '{"spec":{"$setElementOrder/containers":[{"name":"log"},{"name":"web"}]}}')
    assert.deepEqual(names(spec(out).containers), ['log', 'web'])
    const out2 = patch(pod(), '{"metadata":{"$setElementOrder/finalizers":["x/audit","x/flush"]}}')
    assert.deepEqual((out2.metadata as { finalizers: unknown }).finalizers, ['x/audit', 'x/flush'])
    fails(() => patch(pod(), '{"spec":{"$setElementOrder/containers":"web"}}'), 'expected a []interface {}, but received a string')
    fails(
      () => patch(pod(), '{"spec":{"$setElementOrder/containers":[{"name":"web"}],"containers":[{"name":"log","image":"l"}]}}'),
      "The order in patch list:\n[map[image:l name:log]]\n doesn't match $setElementOrder list:\n[map[name:web]]\n",
    )
  })
  it('$deleteFromPrimitiveList removes values, also from non-merge lists; bad key errors', () => {
    const out = patch(pod(), '{"metadata":{"$deleteFromPrimitiveList/finalizers":["x/flush"]}}')
    assert.deepEqual((out.metadata as { finalizers: unknown }).finalizers, ['x/audit'])
    const cm = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'a', args: ['1', '2', '1'] }] } }
    const out2 = patch(cm, '{"spec":{"containers":[{"name":"a","$deleteFromPrimitiveList/args":["1"]}]}}')
    assert.deepEqual((spec(out2).containers as { args: unknown }[])[0].args, ['2'])
    fails(() => patch(pod(), '{"metadata":{"$deleteFromPrimitiveList":["x"]}}'), 'invalid patch format of primitive list')
  })
  it('schema lookup errors', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' }, spec: { x: {} } }
    fails(() => patch(cm, '{"spec":{"x":{"y":1}}}'), 'unable to find api field in struct ConfigMap for the json field "spec"')
    fails(() => patch({ ...cm, data: { n: { a: 1 } } }, '{"data":{"n":{"y":2}}}'), 'merging an object in json but data type is not struct, instead is: map')
    assert.equal(patch(cm, '{"unknown":1}').unknown, 1, 'unknown scalar fields need no lookup')
  })
  it('unknown kinds are rejected before the patch is looked at', () => {
    const w = { apiVersion: 'toys.example.com/v1alpha1', kind: 'Widget', metadata: { name: 'w' } }
    fails(() => patch(w, '{"x":1}'), 'strategic merge patch is not supported for toys.example.com/v1alpha1, Kind=Widget locally, try --type merge')
    fails(() => applyPatch(w, parsePatch('{broken', 'strategic'), 'strategic'), 'strategic merge patch is not supported for toys.example.com/v1alpha1, Kind=Widget locally, try --type merge')
    fails(() => patch({ kind: 'Pod' }, '{}'), 'strategic merge patch is not supported for /, Kind=Pod locally, try --type merge')
    fails(() => patch({ apiVersion: 'v1', kind: 'Foo' }, '{}'), 'strategic merge patch is not supported for /v1, Kind=Foo locally, try --type merge')
  })
  it("the server's own patch also knows its extension and aggregation kinds (kubectl's local one does not)", () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com', labels: { a: '1' } },
      spec: { group: 'example.com', versions: [{ name: 'v1', served: true, storage: true }] },
    }
    const p = parsePatch('{"metadata":{"labels":{"b":"2"}},"spec":{"versions":[{"name":"v2","served":true,"storage":false}]}}', 'strategic')
    fails(() => applyPatch(crd, p, 'strategic'), 'strategic merge patch is not supported for apiextensions.k8s.io/v1, Kind=CustomResourceDefinition locally, try --type merge')
    const out = applyPatch(crd, p, 'strategic', true)
    assert.deepEqual((out.metadata as { labels: unknown }).labels, { a: '1', b: '2' })
    // spec.versions has no patch strategy in the reference's type: the list is replaced.
    assert.deepEqual((out.spec as { versions: unknown }).versions, [{ name: 'v2', served: true, storage: false }])
    const svc = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.example.com' }, spec: { group: 'example.com', version: 'v1' } }
    assert.equal((applyPatch(svc, parsePatch('{"spec":{"insecureSkipTLSVerify":true}}', 'strategic'), 'strategic', true).spec as { group: string }).group, 'example.com')
    fails(() => applyPatch({ apiVersion: 'toys.example.com/v1', kind: 'Widget' }, p, 'strategic', true), 'strategic merge patch is not supported for toys.example.com/v1, Kind=Widget locally, try --type merge')
  })
  it('isBuiltIn', () => {
    assert.equal(isBuiltIn('apps/v1', 'Deployment'), true)
    assert.equal(isBuiltIn('v1', 'ConfigMap'), true)
    assert.equal(isBuiltIn('apps/v9', 'Deployment'), false)
    assert.equal(isBuiltIn('apiextensions.k8s.io/v1', 'CustomResourceDefinition'), false)
  })
})

describe('patch engine: JSON merge patch', () => {
  const cm = () => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' }, list: [{ a: 1 }], obj: { k: 1 } })
  it('deletes with null, prunes nulls in new values, replaces arrays', () => {
    const out = patch(cm(), '{"data":{"a":null,"b":{"c":null,"d":1}},"list":[{"x":null}],"obj":[{"y":null}]}', 'merge')
    assert.deepEqual(out.data, { b: { d: 1 } })
    assert.deepEqual(out.list, [{}], 'array over array: nulls pruned')
    assert.deepEqual(out.obj, [{ y: null }], 'array over object: kept')
  })
  it('errors', () => {
    fails(() => patch(cm(), 'null', 'merge'), 'Invalid JSON Patch')
    fails(() => patch(cm(), '5', 'merge'), 'Invalid JSON Patch')
    fails(() => patch(cm(), '{"a":', 'merge'), 'Invalid JSON Patch')
    fails(() => patch(cm(), '[1]', 'merge'), 'json: cannot unmarshal array into Go value of type unstructured.detector')
    fails(() => patch(cm(), '{"kind":null}', 'merge'), `Object 'Kind' is missing in '{"apiVersion":"v1","data":{"a":"1"},"list":[{"a":1}],"metadata":{"name":"c"},"obj":{"k":1}}'`)
  })
})

describe('patch engine: JSON patch', () => {
  const doc = () => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', finalizers: ['a', 'b'] }, data: { 'x/y': '1', 't~': '2' } })
  const j = (ops: unknown) => applyPatch(doc(), ops, 'json')
  it('add / remove / replace / move / copy / test', () => {
    assert.deepEqual((j([{ op: 'add', path: '/metadata/finalizers/1', value: 'z' }]).metadata as { finalizers: unknown }).finalizers, ['a', 'z', 'b'])
    assert.deepEqual((j([{ op: 'add', path: '/metadata/finalizers/-', value: 'z' }]).metadata as { finalizers: unknown }).finalizers, ['a', 'b', 'z'])
    assert.deepEqual((j([{ op: 'remove', path: '/metadata/finalizers/-1' }]).metadata as { finalizers: unknown }).finalizers, ['a'])
    assert.deepEqual(j([{ op: 'replace', path: '/data/new', value: 'n' }]).data, { 'x/y': '1', 't~': '2', new: 'n' })
    assert.deepEqual(j([{ op: 'remove', path: '/data/x~1y' }, { op: 'remove', path: '/data/t~0' }]).data, {})
    assert.deepEqual(j([{ op: 'move', from: '/data/x~1y', path: '/data/m' }]).data, { 't~': '2', m: '1' })
    assert.deepEqual(j([{ op: 'copy', from: '/data/none', path: '/data/m' }]).data, { 'x/y': '1', 't~': '2', m: null })
    assert.deepEqual(j([{ op: 'test', path: '/data/none', value: null }]), doc())
    assert.deepEqual(j([{ op: 'replace', path: 'ignored/data', value: 5 }]).data, 5)
    assert.deepEqual(j([{ op: 'replace', path: '', value: 5 }]), doc())
    assert.deepEqual(j(null), doc())
  })
  it('error texts', () => {
    fails(() => j({}), 'json: cannot unmarshal object into Go value of type jsonpatch.Patch')
    fails(() => j([{ op: 'add', path: '/a/b', value: 1 }]), 'add operation does not apply: doc is missing path: "/a/b": missing value')
    fails(() => j([{ op: 'add', path: '', value: 1 }]), 'add operation does not apply: doc is missing path: "": missing value')
    fails(() => j([{ op: 'add', path: '/metadata/finalizers/5', value: 1 }]), "error in add for path: '/metadata/finalizers/5': Unable to access invalid index: 5: invalid index referenced")
    fails(
      () => j([{ op: 'add', path: '/metadata/finalizers/x', value: 1 }]),
      `error in add for path: '/metadata/finalizers/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`,
    )
    fails(() => j([{ op: 'remove', path: '/data/zz' }]), "error in remove for path: '/data/zz': Unable to remove nonexistent key: zz: missing value")
    fails(() => j([{ op: 'remove', path: '/nope/zz' }]), 'remove operation does not apply: doc is missing path: "/nope/zz": missing value')
    fails(() => j([{ op: 'replace', path: '/nope/zz', value: 1 }]), 'replace operation does not apply: doc is missing path: /nope/zz: missing value')
    fails(() => j([{ op: 'replace', path: '/metadata/finalizers/7', value: 1 }]), 'Object to be patched is missing field (/metadata/finalizers/7: missing value)')
    fails(() => j([{ op: 'move', from: '/data/zone', path: '/data/b' }]), "error in move for path: 'zone': Unable to remove nonexistent key: zone: missing value")
    fails(() => j([{ op: 'move', from: '/no/zone', path: '/data/b' }]), 'move operation does not apply: doc is missing from path: /no/zone: missing value')
    fails(() => j([{ op: 'copy', from: '/no/zone', path: '/data/b' }]), 'copy operation does not apply: doc is missing from path: /no/zone: missing value')
    fails(() => j([{ op: 'test', path: '/data/x~1y', value: 1 }]), 'testing value /data/x~1y failed: test failed')
    fails(() => j([{ op: 'merge', path: '/a' }]), 'Unexpected kind: merge')
    fails(() => j([{ op: 'remove' }]), 'remove operation failed to decode path: missing value')
    fails(() => j([{ op: 'replace', value: 1 }]), 'replace operation failed to decode path: operation missing path field: missing value')
    fails(() => j([{ op: 'replace', path: '', value: [1] }]), 'json: cannot unmarshal array into Go value of type unstructured.detector')
    fails(() => applyPatch(doc(), parsePatch('{"op":', 'json'), 'json'), 'unexpected end of JSON input')
  })
})

describe('patch engine: parsing and numbers', () => {
  it('JSON keeps int64 / float64 apart and int64 exact', () => {
    const p = parsePatch('{"a":1,"b":1.0,"c":1.5,"d":9007199254740993,"e":1e400}', 'merge') as Record<string, unknown>
    assert.equal(p.a, 1)
    assert.ok(p.b instanceof GoFloat)
    assert.equal(p.c, 1.5)
    assert.equal(p.d, 9007199254740993n)
    assert.equal(deepEqual(1, new GoFloat(1)), false)
    assert.equal(formatGoNumber(p.d as bigint), '9007199254740993')
    assert.equal(JSON.stringify({ b: p.b }), '{"b":1}')
    assert.equal(goMarshal({ x: '<&>', d: p.d }), '{"d":9007199254740993,"x":"\\u003c\\u0026\\u003e"}')
  })
  it('YAML 1.1 scalars, first document only', () => {
    const p = parsePatch('a: yes\nb: 010\nc: 0x1F\nd: 1.0\ne: ~\nf: 2024-05-01\ng: +12\nh: 1e3\ni: off\n---\nz: 1', 'merge')
    assert.deepEqual(p, { a: true, b: 8, c: 31, d: 1, e: null, f: '2024-05-01', g: 12, h: 1000, i: false })
    assert.deepEqual(parsePatch('- op: remove\n  path: /a', 'json'), [{ op: 'remove', path: '/a' }])
  })
  it('YAML errors quote the -p value, or "" for --patch-file', () => {
    fails(() => parsePatch('data: {A: [unclosed', 'strategic'), `unable to parse "data: {A: [unclosed": yaml: line 1: did not find expected ',' or ']'`)
    fails(() => parsePatch('data: {A: [unclosed', 'strategic', { fromFile: true }), `unable to parse "": yaml: line 1: did not find expected ',' or ']'`)
  })
  it('malformed JSON object text is deferred to applyPatch', () => {
    assert.ok(parsePatch('  {"a":', 'strategic') instanceof UnparsablePatch)
  })
  it('Go %v rendering', () => {
    assert.equal(goSprint({ b: [1, 'x', null], a: { c: true }, $p: new GoFloat(8080) }), 'map[$p:8080 a:map[c:true] b:[1 x <nil>]]')
  })
})
