/**
 * The mutations of a MutatingAdmissionPolicy run against a Deployment: the cases, expressions
 * and error messages of the reference's mutating/compilation_test.go TestCompilation,
 * patch/json_patch_test.go and patch/smd_test.go (the expected objects are the reference's Go
 * structs written as JSON without their zero values). Each case runs every mutation of the
 * policy in order, as the reference's test does.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'mocha'

import { builtInType, crdType } from '../../../../../src/core/apply/index.js'
import { PolicyActivation, celValue } from '../../../../../src/server/admission/policy/composition.js'
import { applyStructuredMergeDiff } from '../../../../../src/server/admission/policy/mutating/apply-configuration.js'
import { compilePolicy } from '../../../../../src/server/admission/policy/mutating/compile.js'
import { runMutation } from '../../../../../src/server/admission/policy/mutating/patch.js'
import { ApiError } from '../../../../../src/server/api/status-errors.js'
import type { KubeObject } from '../../../../../src/server/api/registry/object.js'

type Obj = Record<string, any>

const jsonPatch = (expression: string) => ({ patchType: 'JSONPatch', jsonPatch: { expression } })
const applyConfiguration = (expression: string) => ({ patchType: 'ApplyConfiguration', applyConfiguration: { expression } })

function deployment(spec: Obj = {}, metadata: Obj = {}): Obj {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default', ...metadata }, spec }
}

const containers = (...names: string[]) => ({ template: { spec: { containers: names.map((name) => ({ name })) } } })
const volumes = (...items: Obj[]) => ({ template: { spec: { volumes: items } } })

interface Case {
  name: string
  mutations: Obj[]
  variables?: Obj[]
  object: Obj
  oldObject?: Obj
  expected?: Obj
  expectedErr?: string
}

const cases: Case[] = [
  {
    name: 'jsonPatch with false test operation',
    mutations: [jsonPatch('[\n JSONPatch{op: "test", path: "/spec/replicas", value: 100}, \n JSONPatch{op: "replace", path: "/spec/replicas", value: 3},\n]')],
    object: deployment({ replicas: 1 }),
    expected: deployment({ replicas: 1 }),
  },
  {
    name: 'jsonPatch with true test operation',
    mutations: [jsonPatch('[\n JSONPatch{op: "test", path: "/spec/replicas", value: 1}, \n JSONPatch{op: "replace", path: "/spec/replicas", value: 3},\n]')],
    object: deployment({ replicas: 1 }),
    expected: deployment({ replicas: 3 }),
  },
  { name: 'jsonPatch remove to unset field', mutations: [jsonPatch('[JSONPatch{op: "remove", path: "/spec/replicas"}]')], object: deployment({ replicas: 1 }), expected: deployment({}) },
  {
    name: 'jsonPatch remove map entry by key',
    mutations: [jsonPatch('[JSONPatch{op: "remove", path: "/metadata/labels/y"}]')],
    object: deployment({}, { labels: { x: '1', y: '1' } }),
    expected: deployment({}, { labels: { x: '1' } }),
  },
  {
    name: 'jsonPatch remove element in list',
    mutations: [jsonPatch('[JSONPatch{op: "remove", path: "/spec/template/spec/containers/1"}]')],
    object: deployment(containers('a', 'b', 'c')),
    expected: deployment(containers('a', 'c')),
  },
  {
    name: 'jsonPatch copy map entry by key',
    mutations: [jsonPatch('[JSONPatch{op: "copy", from: "/metadata/labels/x", path: "/metadata/labels/y"}]')],
    object: deployment({}, { labels: { x: '1' } }),
    expected: deployment({}, { labels: { x: '1', y: '1' } }),
  },
  {
    name: 'jsonPatch copy first element to end of list',
    mutations: [jsonPatch('[JSONPatch{op: "copy", from: "/spec/template/spec/containers/0", path: "/spec/template/spec/containers/-"}]')],
    object: deployment(containers('a', 'b', 'c')),
    expected: deployment(containers('a', 'b', 'c', 'a')),
  },
  {
    name: 'jsonPatch move map entry by key',
    mutations: [jsonPatch('[JSONPatch{op: "move", from: "/metadata/labels/x", path: "/metadata/labels/y"}]')],
    object: deployment({}, { labels: { x: '1' } }),
    expected: deployment({}, { labels: { y: '1' } }),
  },
  {
    name: 'jsonPatch move first element to end of list',
    mutations: [jsonPatch('[JSONPatch{op: "move", from: "/spec/template/spec/containers/0", path: "/spec/template/spec/containers/-"}]')],
    object: deployment(containers('a', 'b', 'c')),
    expected: deployment(containers('b', 'c', 'a')),
  },
  {
    name: 'jsonPatch add map entry by key and value',
    mutations: [jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels/x", value: "2"}]')],
    object: deployment({}, { labels: { y: '1' } }),
    expected: deployment({}, { labels: { y: '1', x: '2' } }),
  },
  { name: 'jsonPatch add map value to field', mutations: [jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {"y": "2"}}]')], object: deployment({}), expected: deployment({}, { labels: { y: '2' } }) },
  {
    name: 'jsonPatch add map to existing map',
    mutations: [jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {"y": "2"}}]')],
    object: deployment({}, { labels: { x: '1' } }),
    expected: deployment({}, { labels: { y: '2' } }),
  },
  {
    name: 'jsonPatch add to start of list',
    mutations: [jsonPatch('[JSONPatch{op: "add", path: "/spec/template/spec/containers/0", value: {"name": "x"}}]')],
    object: deployment(containers('a')),
    expected: deployment(containers('x', 'a')),
  },
  {
    name: 'jsonPatch add to end of list',
    mutations: [jsonPatch('[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: {"name": "x"}}]')],
    object: deployment(containers('a')),
    expected: deployment(containers('a', 'x')),
  },
  {
    name: 'jsonPatch replace key in map',
    mutations: [jsonPatch('[JSONPatch{op: "replace", path: "/metadata/labels/x", value: "2"}]')],
    object: deployment({}, { labels: { y: '1' } }),
    expected: deployment({}, { labels: { y: '1', x: '2' } }),
  },
  { name: 'jsonPatch replace map value of unset field', mutations: [jsonPatch('[JSONPatch{op: "replace", path: "/metadata/labels", value: {"y": "2"}}]')], object: deployment({}), expected: deployment({}, { labels: { y: '2' } }) },
  {
    name: 'jsonPatch replace first element in list',
    mutations: [jsonPatch('[JSONPatch{op: "replace", path: "/spec/template/spec/containers/0", value: {"name": "x"}}]')],
    object: deployment(containers('a')),
    expected: deployment(containers('x')),
  },
  {
    name: 'jsonPatch replace end of list with - not allowed',
    mutations: [jsonPatch('[JSONPatch{op: "replace", path: "/spec/template/spec/containers/-", value: {"name": "x"}}]')],
    object: deployment(containers('a')),
    expectedErr: 'JSON Patch: replace operation does not apply: doc is missing key: /spec/template/spec/containers/-: missing value',
  },
  {
    name: 'jsonPatch replace with variable',
    variables: [{ name: 'desired', expression: '10' }],
    mutations: [jsonPatch('[JSONPatch{op: "replace", path: "/spec/replicas", value: variables.desired + 1}]')],
    object: deployment({ replicas: 1 }),
    expected: deployment({ replicas: 11 }),
  },
  {
    name: 'jsonPatch with CEL initializer',
    mutations: [
      jsonPatch(`[
        JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: Object.spec.template.spec.containers{
            name: "x",
            ports: [Object.spec.template.spec.containers.ports{containerPort: 8080}],
          }
        },
      ]`),
    ],
    object: deployment(containers('a')),
    expected: deployment({ template: { spec: { containers: [{ name: 'a' }, { name: 'x', ports: [{ containerPort: 8080 }] }] } } }),
  },
  {
    name: 'jsonPatch invalid CEL initializer field',
    mutations: [
      jsonPatch(`[
        JSONPatch{
          op: "add", path: "/spec/template/spec/containers/-",
          value: Object.spec.template.spec.containers{
            name: "x",
            ports: [Object.spec.template.spec.containers.ports{containerPortZ: 8080}]
          }
        }
      ]`),
    ],
    object: deployment(containers('a')),
    expectedErr: 'strict decoding error: unknown field "spec.template.spec.containers[1].ports[0].containerPortZ"',
  },
  {
    name: 'jsonPatch invalid CEL initializer type',
    mutations: [
      jsonPatch(`[
        JSONPatch{
          op: "add", path: "/spec/template/spec/containers/-",
          value: Object.spec.template.spec.containers{
            name: "x",
            ports: [Object.spec.template.spec.containers.portsZ{containerPort: 8080}]
          }
        }
      ]`),
    ],
    object: deployment(containers('a')),
    expectedErr:
      ' mismatch: unexpected type name "Object.spec.template.spec.containers.portsZ", expected "Object.spec.template.spec.containers.ports", which matches field name path from root Object type',
  },
  {
    name: 'jsonPatch add an object built by its field path',
    mutations: [jsonPatch('[JSONPatch{op: "add", path: "/spec", value: Object.spec{selector: Object.spec.selector{}, replicas: 10}}]')],
    object: deployment({}),
    expected: deployment({ selector: {}, replicas: 10 }),
  },
  {
    name: 'JSONPatch key escaping',
    mutations: [jsonPatch('[\n JSONPatch{op: "add", path: "/metadata/labels", value: {}},\n JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("k8s.io/x~y"), value: "true"}\n]')],
    object: deployment({}, { labels: {} }),
    expected: deployment({}, { labels: { 'k8s.io/x~y': 'true' } }),
  },
  {
    name: 'applyConfiguration then jsonPatch',
    mutations: [
      applyConfiguration('Object{\n spec: Object.spec{\n replicas: object.spec.replicas + 100\n }\n }'),
      jsonPatch('[\n JSONPatch{op: "replace", path: "/spec/replicas", value: object.spec.replicas + 10}\n ]'),
    ],
    object: deployment({ replicas: 1 }),
    expected: deployment({ replicas: 111 }),
  },
  {
    name: 'jsonPatch then applyConfiguration',
    mutations: [
      jsonPatch('[\n JSONPatch{op: "replace", path: "/spec/replicas", value: object.spec.replicas + 10}\n ]'),
      applyConfiguration('Object{\n spec: Object.spec{\n replicas: object.spec.replicas + 100\n }\n }'),
    ],
    object: deployment({ replicas: 1 }),
    expected: deployment({ replicas: 111 }),
  },
  {
    name: 'apply configuration add to listType=map',
    mutations: [applyConfiguration('Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{volumes: [Object.spec.template.spec.volumes{name: "y"}]}}}}')],
    object: deployment(volumes({ name: 'x' })),
    expected: deployment(volumes({ name: 'x' }, { name: 'y' })),
  },
  {
    name: 'apply configuration update listType=map entry',
    mutations: [
      applyConfiguration(
        'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{volumes: [Object.spec.template.spec.volumes{name: "y", hostPath: Object.spec.template.spec.volumes.hostPath{path: "a"}}]}}}}',
      ),
    ],
    object: deployment(volumes({ name: 'x' }, { name: 'y' })),
    expected: deployment(volumes({ name: 'x' }, { name: 'y', hostPath: { path: 'a' } })),
  },
  {
    name: 'apply configuration with conditionals',
    mutations: [applyConfiguration('\n Object{\n spec: Object.spec{\n replicas: object.spec.replicas % 2 == 0?object.spec.replicas + 1:object.spec.replicas\n }\n }')],
    object: deployment({ replicas: 2 }),
    expected: deployment({ replicas: 3 }),
  },
  {
    name: 'apply configuration with old object',
    mutations: [applyConfiguration('Object{\n spec: Object.spec{\n replicas: oldObject.spec.replicas % 2 == 0?oldObject.spec.replicas + 1:oldObject.spec.replicas\n }\n }')],
    object: deployment({ replicas: 1 }),
    oldObject: deployment({ replicas: 2 }),
    expected: deployment({ replicas: 3 }),
  },
  {
    name: 'apply configuration with variable',
    variables: [{ name: 'desired', expression: '10' }],
    mutations: [applyConfiguration('Object{\n spec: Object.spec{\n replicas: variables.desired + 1\n }\n }')],
    object: deployment({ replicas: 1 }),
    expected: deployment({ replicas: 11 }),
  },
  {
    name: 'complex apply configuration initialization',
    mutations: [
      applyConfiguration(`Object{
        spec: Object.spec{
          replicas: 1,
          template: Object.spec.template{
            metadata: Object.spec.template.metadata{
              labels: {"app": "nginx"}
            },
            spec: Object.spec.template.spec{
              containers: [Object.spec.template.spec.containers{
                name: "nginx",
                image: "nginx:1.14.2",
                ports: [Object.spec.template.spec.containers.ports{
                  containerPort: 80
                }],
                resources: Object.spec.template.spec.containers.resources{
                  limits: {"cpu": "128M"},
                }
              }]
            }
          }
        }
      }`),
    ],
    object: deployment({}),
    expected: deployment({
      replicas: 1,
      template: {
        metadata: { labels: { app: 'nginx' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.14.2', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '128M' } } }] },
      },
    }),
  },
  {
    name: 'apply configuration with invalid type name',
    mutations: [applyConfiguration('Object{\n spec: Object.specx{\n replicas: 1\n }\n }')],
    object: deployment({ replicas: 1 }),
    expectedErr: 'type mismatch: unexpected type name "Object.specx", expected "Object.spec", which matches field name path from root Object type',
  },
  {
    name: 'apply configuration with invalid field name',
    mutations: [applyConfiguration('Object{\n spec: Object.spec{\n replicasx: 1\n }\n }')],
    object: deployment({ replicas: 1 }),
    expectedErr: 'error applying patch: failed to convert patch object to typed object: .spec.replicasx: field not declared in schema',
  },
  { name: 'apply configuration with invalid return type', mutations: [applyConfiguration(`"I'm a teapot!"`)], object: deployment({ replicas: 1 }), expectedErr: 'must evaluate to Object but got string' },
  {
    name: 'apply configuration with invalid initializer return type',
    mutations: [applyConfiguration('Object.spec.metadata{}')],
    object: deployment({ replicas: 1 }),
    expectedErr: 'must evaluate to Object but got Object.spec.metadata',
  },
  {
    name: 'request variable',
    mutations: [
      jsonPatch(`[JSONPatch{op: "replace", path: "/spec/replicas",
        value: request.kind.group == 'apps' && request.kind.version == 'v1' && request.kind.kind == 'Deployment' ? 10 : 0}]`),
    ],
    object: deployment({ replicas: 1 }),
    expected: deployment({ replicas: 10 }),
  },
  {
    name: 'apply configuration with change to atomic',
    mutations: [applyConfiguration('Object{\n spec: Object.spec{\n selector: Object.spec.selector{\n matchLabels: {"l": "v"}\n }\n }\n }')],
    object: deployment({ replicas: 1 }),
    expectedErr: 'error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector',
  },
  {
    name: 'apply configuration with duplicate env vars in original object',
    mutations: [applyConfiguration('Object{\n spec: Object.spec{\n replicas: 3\n }\n }')],
    object: deployment({ replicas: 1, template: { spec: { containers: [{ name: 'nginx', env: [{ name: 'test', value: 'a' }, { name: 'test', value: 'b' }] }] } } }),
    expected: deployment({ replicas: 3, template: { spec: { containers: [{ name: 'nginx', env: [{ name: 'test', value: 'a' }, { name: 'test', value: 'b' }] }] } } }),
  },
  {
    name: 'apply configuration modify existing env variable',
    mutations: [
      applyConfiguration(
        'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "nginx", env: [Object.spec.template.spec.containers.env{name: "test", value: "c"}]}]}}}}',
      ),
    ],
    object: deployment({
      replicas: 1,
      template: { spec: { containers: [{ name: 'nginx', env: [{ name: 'test', value: 'a' }, { name: 'test', value: 'b' }, { name: 'foo', value: 'bar' }] }] } },
    }),
    expected: deployment({ replicas: 1, template: { spec: { containers: [{ name: 'nginx', env: [{ name: 'test', value: 'c' }, { name: 'foo', value: 'bar' }] }] } } }),
  },
  {
    name: 'object type has field access',
    mutations: [jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {"value": Object{field: "fieldValue"}.field}}]')],
    object: deployment({}, { labels: {} }),
    expected: deployment({}, { labels: { value: 'fieldValue' } }),
  },
  {
    name: 'JSONPatch patch type has field access',
    mutations: [
      jsonPatch(`[JSONPatch{op: "add", path: "/metadata/labels", value: {
        "op": JSONPatch{op: "opValue"}.op,
        "path": JSONPatch{path: "pathValue"}.path,
        "from": JSONPatch{from: "fromValue"}.from,
        "value": string(JSONPatch{value: "valueValue"}.value),
      }}]`),
    ],
    object: deployment({}, { labels: {} }),
    expected: deployment({}, { labels: { op: 'opValue', path: 'pathValue', from: 'fromValue', value: 'valueValue' } }),
  },
  {
    name: 'JSONPatch patch type has field testing',
    mutations: [
      jsonPatch(`[JSONPatch{op: "add", path: "/metadata/labels", value: {
        "op": string(has(JSONPatch{op: "opValue"}.op)),
        "path": string(has(JSONPatch{path: "pathValue"}.path)),
        "from": string(has(JSONPatch{from: "fromValue"}.from)),
        "value": string(has(JSONPatch{value: "valueValue"}.value)),
        "op-unset": string(has(JSONPatch{}.op)),
        "path-unset": string(has(JSONPatch{}.path)),
        "from-unset": string(has(JSONPatch{}.from)),
        "value-unset": string(has(JSONPatch{}.value)),
      }}]`),
    ],
    object: deployment({}, { labels: {} }),
    expected: deployment({}, { labels: { op: 'true', path: 'true', from: 'true', value: 'true', 'op-unset': 'false', 'path-unset': 'false', 'from-unset': 'false', 'value-unset': 'false' } }),
  },
  {
    name: 'JSONPatch patch type equality',
    mutations: [
      jsonPatch(`[JSONPatch{op: "add", path: "/metadata/labels", value: {
        "empty": string(JSONPatch{} == JSONPatch{}),
        "partial": string(JSONPatch{op: "add"} == JSONPatch{op: "add"}),
        "same-all": string(JSONPatch{op: "add", path: "path", from: "from", value: 1} == JSONPatch{op: "add", path: "path", from: "from", value: 1}),
        "different-op": string(JSONPatch{op: "add"} == JSONPatch{op: "remove"}),
        "different-path": string(JSONPatch{op: "add", path: "x", from: "from", value: 1} == JSONPatch{op: "add", path: "path", from: "from", value: 1}),
        "different-from": string(JSONPatch{op: "add", path: "path", from: "x", value: 1} == JSONPatch{op: "add", path: "path", from: "from", value: 1}),
        "different-value": string(JSONPatch{op: "add", path: "path", from: "from", value: "1"} == JSONPatch{op: "add", path: "path", from: "from", value: 1}),
      }}]`),
    ],
    object: deployment({}, { labels: {} }),
    expected: deployment({}, { labels: { empty: 'true', partial: 'true', 'same-all': 'true', 'different-op': 'false', 'different-path': 'false', 'different-from': 'false', 'different-value': 'false' } }),
  },
  {
    name: 'object type has field testing',
    mutations: [jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {"field": string(has(Object{field: "fieldValue"}.field)), "field-unset": string(has(Object{}.field))}}]')],
    object: deployment({}, { labels: {} }),
    expected: deployment({}, { labels: { field: 'true', 'field-unset': 'false' } }),
  },
  {
    name: 'object type equality',
    mutations: [
      jsonPatch(`[JSONPatch{op: "add", path: "/metadata/labels", value: {
        "empty": string(Object{} == Object{}),
        "same": string(Object{field: "x"} == Object{field: "x"}),
        "different": string(Object{field: "x"} == Object{field: "y"}),
      }}]`),
    ],
    object: deployment({}, { labels: {} }),
    expected: deployment({}, { labels: { empty: 'true', same: 'true', different: 'false' } }),
  },
]

async function run(c: Case): Promise<Obj> {
  const policy = { apiVersion: 'admissionregistration.k8s.io/v1beta1', kind: 'MutatingAdmissionPolicy', metadata: { name: 'd1' }, spec: { mutations: c.mutations, variables: c.variables } }
  const evaluator = compilePolicy(policy as unknown as KubeObject)
  assert.equal(evaluator.mutations.length, c.mutations.length)
  const request = { kind: { group: 'apps', version: 'v1', kind: 'Deployment' }, resource: { group: 'apps', version: 'v1', resource: 'deployments' }, operation: 'CREATE' }
  const objectType = { type: builtInType('apps/v1', 'Deployment')!, builtIn: true }
  let object = structuredClone(c.object)
  for (const mutation of evaluator.mutations) {
    const activation = new PolicyActivation({ object: celValue(object), oldObject: celValue(c.oldObject), request: celValue(request), namespaceObject: null, params: null }, evaluator.variables)
    object = await runMutation(mutation, activation, object, objectType)
  }
  return object
}

describe('admission/policy/mutating: the mutations (the reference TestCompilation, TestJSONPatch, TestApplyConfiguration)', () => {
  for (const c of cases) {
    it(c.name, async () => {
      if (c.expectedErr !== undefined) {
        await assert.rejects(
          () => run(c),
          (err: Error) => {
            const message = err instanceof ApiError ? err.status.message : err.message
            assert.ok(message.includes(c.expectedErr!), `expected error containing ${JSON.stringify(c.expectedErr)}, got ${JSON.stringify(message)}`)
            return true
          },
        )
        return
      }
      assert.deepEqual(await run(c), c.expected)
    })
  }
})

describe('admission/policy/mutating: the mutations of a custom resource (its CRD schema types the merge; no strict decoding)', () => {
  const schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } } },
          hosts: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  }
  const objectType = { type: crdType(schema), builtIn: false }
  const widget = (spec: Obj) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec })
  const runOne = async (mutation: Obj, object: Obj) => {
    const evaluator = compilePolicy({ metadata: { name: 'p' }, spec: { mutations: [mutation] } } as unknown as KubeObject)
    const activation = new PolicyActivation({ object: celValue(object), oldObject: null, request: null, namespaceObject: null, params: null }, evaluator.variables)
    return runMutation(evaluator.mutations[0]!, activation, structuredClone(object), objectType)
  }

  it('a listType=map list merges by key', async () => {
    const result = await runOne(applyConfiguration('Object{spec: Object.spec{ports: [Object.spec.ports{name: "b", port: 2}]}}'), widget({ ports: [{ name: 'a', port: 1 }] }))
    assert.deepEqual(result, widget({ ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] }))
  })

  it('a list without x-kubernetes-list-type is atomic: refused', async () => {
    await assert.rejects(
      () => runOne(applyConfiguration('Object{spec: Object.spec{hosts: ["x"]}}'), widget({})),
      (err: Error) => err.message === 'error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.hosts',
    )
  })

  it('a field the schema does not declare: refused by the apply configuration, kept by a JSON patch', async () => {
    await assert.rejects(
      () => runOne(applyConfiguration('Object{spec: Object.spec{other: 1}}'), widget({})),
      (err: Error) => err.message === 'error applying patch: failed to convert patch object to typed object: .spec.other: field not declared in schema',
    )
    assert.deepEqual(await runOne(jsonPatch('[JSONPatch{op: "add", path: "/spec/other", value: 1}]'), widget({})), widget({ other: 1 }))
  })
})

describe('admission/policy/mutating: ApplyStructuredMergeDiff (the reference plugin_test.go TestSSAPatch, TestSSAMapListAtomicMap)', () => {
  it('a ConfigMap gets the annotation and the data key', () => {
    const patch = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { annotations: { foo: 'bar' } }, data: { myfield: 'myvalue' } }
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }
    assert.deepEqual(applyStructuredMergeDiff(builtInType('v1', 'ConfigMap')!, configMap, patch), { ...patch })
  })

  it('an init container is merged into the map-list by name', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: { initContainers: [{ name: 'init-container', image: 'image' }], nodeSelector: { original: 'not customized' } } }
    const patch = { apiVersion: 'v1', kind: 'Pod', metadata: { annotations: { foo: 'bar' } }, spec: { initContainers: [{ name: 'injected-init-container', image: 'injected-image' }] } }
    assert.deepEqual(applyStructuredMergeDiff(builtInType('v1', 'Pod')!, pod, patch), {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { annotations: { foo: 'bar' } },
      spec: { initContainers: [{ name: 'init-container', image: 'image' }, { name: 'injected-init-container', image: 'injected-image' }], nodeSelector: { original: 'not customized' } },
    })
  })

  it('the atomic nodeSelector is not replaced: the reference now refuses the patch (validatePatch)', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: { nodeSelector: { original: 'not customized' } } }
    const patch = { apiVersion: 'v1', kind: 'Pod', spec: { nodeSelector: { custom: 'nodeselector' } } }
    assert.throws(() => applyStructuredMergeDiff(builtInType('v1', 'Pod')!, pod, patch), { message: 'invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.nodeSelector' })
  })
})
