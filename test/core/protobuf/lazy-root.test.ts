/**
 * The lazily built message types must be the ones protobufjs builds from the whole descriptor:
 * for every kind the descriptor registers, the same fields (names, numbers, rules, map keys)
 * resolving to message types of the same names, all the way down.
 */
import assert from 'node:assert/strict'
import protobuf from 'protobufjs/light.js'
import type { Type } from 'protobufjs'
import descriptor from '../../../src/core/protobuf/generated/k8s-descriptor.json' with { type: 'json' }
import { LazyRoot } from '../../../src/core/protobuf/lazy-root.js'

type Shape = Record<string, string>

function shape(type: Type, seen: Map<string, Shape>): void {
  if (seen.has(type.fullName)) return
  const fields: Shape = {}
  seen.set(type.fullName, fields)
  for (const field of type.fieldsArray) {
    const resolved = field.resolvedType as Type | null
    const keyType = (field as unknown as { keyType?: string }).keyType ?? ''
    fields[field.name] = `${field.id} ${field.repeated ? 'repeated ' : ''}${keyType ? `map<${keyType}> ` : ''}${resolved ? resolved.fullName : field.type}`
    if (resolved) shape(resolved, seen)
  }
}

describe('protobuf lazy root', () => {
  const messages = [...new Set([...Object.values(descriptor.kinds), ...Object.values(descriptor.anyGroup)])] as string[]

  it('builds every registered message as the whole descriptor does', () => {
    const whole = protobuf.Root.fromJSON(descriptor.proto as protobuf.INamespace)
    whole.resolveAll()
    const lazy = new LazyRoot(protobuf, descriptor.proto as protobuf.INamespace)
    assert.ok(messages.length > 100)
    for (const message of messages) {
      const expected = new Map<string, Shape>()
      const actual = new Map<string, Shape>()
      shape(whole.lookupType(message), expected)
      shape(lazy.lookupType(message), actual)
      assert.deepEqual(Object.fromEntries(actual), Object.fromEntries(expected), message)
    }
  })

  it('builds only what a message needs', () => {
    const lazy = new LazyRoot(protobuf, descriptor.proto as protobuf.INamespace)
    const configMap = lazy.lookupType('k8s.io.api.core.v1.ConfigMap')
    assert.equal(configMap.fields.metadata.resolvedType?.fullName, '.k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta')
    assert.throws(() => (configMap.root as protobuf.Root).lookupType('k8s.io.api.core.v1.Pod'), /no such type/)
  })

  it('reports an unknown message as protobufjs does', () => {
    assert.throws(() => new LazyRoot(protobuf, descriptor.proto as protobuf.INamespace).lookupType('k8s.io.api.core.v1.Nope'), /no such type/)
  })
})
