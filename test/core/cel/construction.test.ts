/**
 * Typed construction in the CEL engine (`Object.spec{...}`, `JSONPatch{...}`), as
 * MutatingAdmissionPolicy expressions use it. Expressions and expected values are the
 * reference's (apiserver admission/plugin/policy/mutating compilation_test.go and
 * patch/json_patch_test.go, pkg/cel/mutation/dynamic/objects.go's type-name check); compile
 * errors take cel-go's checker wording (undeclared reference, undefined field, field type).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'mocha'

import { CelCompileError, celEnvironment, compileConstructing, mutationValueToJson, typeNameMismatches } from '../../../src/core/cel/index.js'
import { rewriteConstructions } from '../../../src/core/cel/construction.js'
import { registerJsonPatchLibrary } from '../../../src/core/cel/libraries/jsonpatch.js'

function env() {
  const e = celEnvironment({ object: 'dyn', oldObject: 'dyn', variables: 'map<string, dyn>' })
  registerJsonPatchLibrary(e)
  return e
}

function evaluate(expression: string, returnTypes: string[], object: unknown = {}): unknown {
  return compileConstructing(env(), expression, returnTypes).evaluate({ object, oldObject: null, variables: {} })
}

function compileError(expression: string, returnTypes: string[]): CelCompileError {
  try {
    compileConstructing(env(), expression, returnTypes)
  } catch (err) {
    assert.ok(err instanceof CelCompileError)
    return err
  }
  assert.fail(`compiled: ${expression}`)
}

describe('core/cel typed construction', () => {
  it('builds an Object with nested typed objects, lists and maps', () => {
    const value = evaluate(
      `Object{
        spec: Object.spec{
          replicas: 1,
          template: Object.spec.template{
            metadata: Object.spec.template.metadata{labels: {"app": "nginx"}},
            spec: Object.spec.template.spec{
              containers: [Object.spec.template.spec.containers{
                name: "nginx",
                ports: [Object.spec.template.spec.containers.ports{containerPort: 80}],
              }]
            }
          }
        }
      }`,
      ['Object'],
    )
    assert.deepEqual(mutationValueToJson(value), {
      spec: { replicas: 1, template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', ports: [{ containerPort: 80 }] }] } } },
    })
    assert.deepEqual(typeNameMismatches(value), [])
  })

  it('evaluates fields from the object in scope', () => {
    const value = evaluate('Object{spec: Object.spec{replicas: object.spec.replicas % 2 == 0?object.spec.replicas + 1:object.spec.replicas}}', ['Object'], { spec: { replicas: 2n } })
    assert.deepEqual(mutationValueToJson(value), { spec: { replicas: 3 } })
  })

  it('finds a type name that does not follow the field path (the reference message)', () => {
    const value = evaluate('Object{spec: Object.specx{replicas: 1}}', ['Object'])
    assert.deepEqual(typeNameMismatches(value), ['unexpected type name "Object.specx", expected "Object.spec", which matches field name path from root Object type'])
    const nested = evaluate('Object.spec.template.spec.containers{name: "x", ports: [Object.spec.template.spec.containers.portsZ{containerPort: 8080}]}', [])
    assert.deepEqual(typeNameMismatches(nested), [
      'unexpected type name "Object.spec.template.spec.containers.portsZ", expected "Object.spec.template.spec.containers.ports", which matches field name path from root Object type',
    ])
  })

  it('checks the result type: must evaluate to Object', () => {
    const teapot = compileError(`"I'm a teapot!"`, ['Object'])
    assert.equal(teapot.kind, 'type')
    assert.equal(`${teapot.message} but got ${teapot.actualType}`, 'must evaluate to Object but got string')
    const metadata = compileError('Object.spec.metadata{}', ['Object'])
    assert.equal(`${metadata.message} but got ${metadata.actualType}`, 'must evaluate to Object but got Object.spec.metadata')
  })

  it('builds JSONPatch operations, escapes keys, and reads their fields', () => {
    const value = evaluate('[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("k8s.io/x~y"), value: "true"}]', ['list(JSONPatch)'])
    assert.deepEqual(mutationValueToJson(value), [{ op: 'add', path: '/metadata/labels/k8s.io~1x~0y', from: '', value: 'true' }])
    const fields = evaluate(
      `{"op": JSONPatch{op: "opValue"}.op, "path": JSONPatch{path: "pathValue"}.path, "from": JSONPatch{from: "fromValue"}.from, "value": string(JSONPatch{value: "valueValue"}.value)}`,
      [],
    )
    assert.deepEqual(mutationValueToJson(fields), { op: 'opValue', path: 'pathValue', from: 'fromValue', value: 'valueValue' })
  })

  it('compares JSONPatch and Object values as the reference (JSONPatch patch type equality, object type equality)', () => {
    const value = evaluate(
      `{
        "empty": JSONPatch{} == JSONPatch{},
        "partial": JSONPatch{op: "add"} == JSONPatch{op: "add"},
        "same-all": JSONPatch{op: "add", path: "path", from: "from", value: 1} == JSONPatch{op: "add", path: "path", from: "from", value: 1},
        "different-op": JSONPatch{op: "add"} == JSONPatch{op: "remove"},
        "different-value": JSONPatch{op: "add", path: "path", from: "from", value: "1"} == JSONPatch{op: "add", path: "path", from: "from", value: 1},
        "object-empty": Object{} == Object{},
        "object-same": Object{field: "x"} == Object{field: "x"},
        "object-different": Object{field: "x"} == Object{field: "y"},
        "object-field": Object{field: "fieldValue"}.field == "fieldValue",
      }`,
      [],
    )
    assert.deepEqual(mutationValueToJson(value), {
      empty: true,
      partial: true,
      'same-all': true,
      'different-op': false,
      'different-value': false,
      'object-empty': true,
      'object-same': true,
      'object-different': false,
      'object-field': true,
    })
  })

  it('has() of a constructed value tests its field; has() of a variable stays the macro', () => {
    const value = evaluate('[has(JSONPatch{op: "add"}.op), has(JSONPatch{}.op), has(JSONPatch{value: 0}.value), has(Object{f: 1}.f), has(Object{}.f), has(object.spec), has(object.metadata)]', [], { spec: {} })
    assert.deepEqual(value, [true, false, true, true, false, true, false])
    assert.equal(rewriteConstructions('has(object.spec)').text, 'has(object.spec)')
  })

  it("turns values into JSON as cel-go's JSON conversion: timestamps in RFC 3339, durations in seconds", () => {
    const value = evaluate('[timestamp("2024-01-01T00:00:00Z"), timestamp("2024-01-01T00:00:00.5Z"), duration("1h"), duration("1.5s"), b"abc", 1u]', [])
    assert.deepEqual(mutationValueToJson(value), ['2024-01-01T00:00:00Z', '2024-01-01T00:00:00.5Z', '3600s', '1.5s', 'YWJj', 1])
  })

  it("refuses what cel-go's checker refuses, pointing into the expression as written", () => {
    assert.equal(compileError('[JSONPatch{foo: 1, path: "/x"}]', []).message, "compilation failed: ERROR: <input>:1:12: undefined field 'foo'\n | [JSONPatch{foo: 1, path: \"/x\"}]\n | ...........^")
    assert.equal(compileError('[Foo{a: 1}]', []).message, "compilation failed: ERROR: <input>:1:2: undeclared reference to 'Foo' (in container '')\n | [Foo{a: 1}]\n | .^")
    assert.match(compileError('[JSONPatch{op: 1}]', []).message, /expected type of field 'op' is 'string' but provided type is 'int'/)
    assert.match(compileError('Object{spec: Object.spec{replicas: 1 +}}', []).message, /^compilation failed: ERROR: <input>:1:39: Unexpected token/)
  })

  it('leaves strings, maps and selections that only look like constructions alone', () => {
    const source = 'object.spec == "Object{x: 1}" && {"a": 1}.a == 1 && [1].size() == 1'
    assert.equal(rewriteConstructions(`"Object{x: 1}" + r'JSONPatch{'`).text, `"Object{x: 1}" + r'JSONPatch{'`)
    assert.equal(rewriteConstructions('{"x": Object{a: 1}}').text, '{"x": __new_0({"a": 1})}')
    assert.equal(rewriteConstructions(source).constructions.length, 0)
  })
})
