/**
 * Table-driven validation tests of built-in kinds: an object goes through its strategy's
 * create preparation (defaulting) and validation, or an update of a created object through
 * update preparation and validation, as the generic store does; the result is the list of
 * `<field>: <message>` texts, in order, and the 422's message.
 */
import { BUILTIN_KINDS } from '../../../../src/server/api/kinds/builtin.js'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { type Strategy, validateForCreate, validateForUpdate } from '../../../../src/server/api/registry/strategy.js'
import { aggregateMessage } from '../../../../src/server/api/validation/field/index.js'
import { recordCases } from './case-registry.js'

export type Json = Record<string, any>

/** A kind's strategy: its first (GA) version, or the given one. */
export function strategyOf(group: string, resource: string, version?: string): Strategy {
  const s = BUILTIN_KINDS.find((k) => k.group === group && k.resource === resource && (version === undefined || k.version === version))
  if (!s) throw new Error(`no strategy for ${group}/${version ?? ''}/${resource}`)
  return s
}

function withMeta(strategy: Strategy, o: Json): KubeObject {
  const copy = structuredClone(o) as KubeObject
  // The generic store gives every new object its uid before preparing it.
  copy.metadata = { name: 'x', uid: 'UID', ...(strategy.namespaced ? { namespace: 'default' } : {}), ...(copy.metadata ?? {}) }
  return copy
}

export function created(strategy: Strategy, o: Json): KubeObject {
  const obj = withMeta(strategy, o)
  strategy.prepareForCreate(obj)
  return obj
}

/** The field errors of creating `o`, as `<field>: <message>`. */
export function createErrors(strategy: Strategy, o: Json): string[] {
  return validateForCreate(strategy, created(strategy, o)).map((c) => `${c.field}: ${c.message}`)
}

/** The field errors of updating the created `old` to `update(copy of it)`; status updates with subresource 'status'. */
export function updateErrors(strategy: Strategy, old: Json, update: (o: Json) => void, subresource?: string): string[] {
  const before = created(strategy, old)
  before.metadata.resourceVersion = '1'
  before.metadata.uid = 'u'
  before.metadata.creationTimestamp = '2024-01-01T00:00:00Z'
  const after = structuredClone(before) as Json
  update(after)
  if (subresource === 'status') strategy.prepareForStatusUpdate?.(after as KubeObject, before)
  else strategy.prepareForUpdate(after as KubeObject, before)
  return validateForUpdate(strategy, after as KubeObject, before, subresource).map((c) => `${c.field}: ${c.message}`)
}

/** The 422's message part after `<Kind> "<name>" is invalid: ` (ToAggregate). */
export function aggregate(strategy: Strategy, o: Json): string {
  return aggregateMessage(validateForCreate(strategy, created(strategy, o)))
}

export type Case = [string, (o: Json) => void, string[]]

/**
 * One kind's table: the valid object is accepted and left as its defaults make it (created
 * twice, the same), and each case's mutation gives exactly the expected errors, in order.
 */
export function kindTable(strategy: Strategy, base: () => Json, cases: Case[], check: (name: string, fn: () => void) => void): void {
  recordCases(strategy, cases.filter(([, , expected]) => expected.length > 0).length, 1 + cases.filter(([, , expected]) => expected.length === 0).length)
  check('accepts the valid object unchanged (apart from the defaults)', () => {
    const errs = createErrors(strategy, base())
    if (errs.length > 0) throw new Error(`unexpected errors: ${errs.join('; ')}`)
    const once = created(strategy, base())
    const twice = created(strategy, structuredClone(once) as Json)
    if (JSON.stringify(twice) !== JSON.stringify(once)) throw new Error('defaulting is not idempotent')
  })
  for (const [name, mutate, expected] of cases) {
    check(name, () => {
      const o = base()
      mutate(o)
      const got = createErrors(strategy, o)
      if (JSON.stringify(got) !== JSON.stringify(expected)) throw new Error(`expected\n  ${expected.join('\n  ')}\ngot\n  ${got.join('\n  ')}`)
    })
  }
}

/**
 * One kind's update table: each case changes a created copy of `old` (through the status
 * subresource when given) and gives exactly the expected errors, in order; an empty list is
 * an update that is accepted.
 */
export function updateTable(strategy: Strategy, old: () => Json, cases: Case[], check: (name: string, fn: () => void) => void, subresource?: string): void {
  recordCases(strategy, cases.filter(([, , expected]) => expected.length > 0).length, cases.filter(([, , expected]) => expected.length === 0).length)
  for (const [name, mutate, expected] of cases) {
    check(`update: ${name}`, () => {
      const got = updateErrors(strategy, old(), mutate, subresource)
      if (JSON.stringify(got) !== JSON.stringify(expected)) throw new Error(`expected\n  ${expected.join('\n  ')}\ngot\n  ${got.join('\n  ')}`)
    })
  }
}
