/**
 * Table-driven validation tests at the strategy level: an object goes through the kind's
 * create (or update) preparation and defaulting, then the generic store's validation; the
 * answer is the 422 Status the server would send (message and causes), or none.
 */
import assert from 'node:assert/strict'
import { KINDS } from '../../../../src/server/api/kinds/index.js'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { type Strategy, validateForCreate, validateForUpdate } from '../../../../src/server/api/registry/strategy.js'
import { errors } from '../../../../src/server/api/status-errors.js'
import { recordCases } from './case-registry.js'

export function strategyOf(group: string, version: string, resource: string): Strategy {
  const s = KINDS.find((k) => k.group === group && k.version === version && k.resource === resource)
  if (!s) throw new Error(`no strategy for ${group}/${version}/${resource}`)
  return s
}

/** The object as the store prepares it on create: server metadata, defaults, cleared status. */
export function prepared(strategy: Strategy, input: Record<string, unknown>): KubeObject {
  const o = structuredClone(input) as KubeObject
  o.metadata = { ...(o.metadata ?? {}) }
  if (strategy.namespaced) o.metadata.namespace ??= 'default'
  o.metadata.uid = '6b0c3a9e-0000-4000-8000-000000000001'
  o.metadata.creationTimestamp = '2026-01-01T00:00:00Z'
  if (strategy.generation) o.metadata.generation = 1
  strategy.prepareForCreate(o)
  return o
}

export interface Answer {
  message: string
  causes: Array<{ reason: string; message: string; field: string }>
}

function answer(strategy: Strategy, name: string, causes: ReturnType<typeof validateForCreate>): Answer | undefined {
  if (causes.length === 0) return undefined
  const status = errors.invalid(strategy.group, strategy.kind, name, causes).status
  return { message: status.message, causes: status.details!.causes as Answer['causes'] }
}

export function createAnswer(strategy: Strategy, input: Record<string, unknown>): Answer | undefined {
  const o = prepared(strategy, input)
  return answer(strategy, o.metadata.name ?? '', validateForCreate(strategy, o))
}

/** An update of a valid stored object (`old`, prepared as on create) to `change(old)`. */
export function updateAnswer(strategy: Strategy, oldInput: Record<string, unknown>, change: (o: KubeObject) => void, subresource?: string): Answer | undefined {
  const old = prepared(strategy, oldInput)
  old.metadata.resourceVersion = '5'
  const o = structuredClone(old)
  change(o)
  if (subresource === undefined) strategy.prepareForUpdate(o, old)
  else if (subresource === 'status') strategy.prepareForStatusUpdate?.(o, old)
  return answer(strategy, o.metadata.name ?? '', validateForUpdate(strategy, o, old, subresource))
}

export interface Case {
  name: string
  /** The object (or a change of the valid object) and the expected answer. */
  object: Record<string, unknown>
  message: string
  /** The causes as [field, reason, message] (the reference's order); omitted: one cause from the message. */
  causes?: Array<[string, string, string]>
}

/** Runs invalid create cases: each must answer exactly the message and causes. */
export function invalidCreates(strategy: () => Strategy, cases: Case[]): void {
  recordCases(strategy(), cases.length, 0)
  for (const c of cases) {
    it(`refuses: ${c.name}`, () => {
      const got = createAnswer(strategy(), c.object)
      assert.ok(got, 'expected a 422, the object was accepted')
      assert.equal(got.message, c.message)
      if (c.causes) assert.deepEqual(got.causes.map((x) => [x.field, x.reason, x.message]), c.causes)
    })
  }
}

export function validCreates(strategy: () => Strategy, objects: Array<[string, Record<string, unknown>]>): void {
  recordCases(strategy(), 0, objects.length)
  for (const [name, object] of objects) {
    it(`accepts: ${name}`, () => {
      assert.equal(createAnswer(strategy(), object), undefined)
    })
  }
}
