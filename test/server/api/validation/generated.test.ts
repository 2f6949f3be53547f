/**
 * Invalid objects derived from the upstream OpenAPI document's constraints by
 * scripts/generate-validation-cases.mjs (the fixture test/fixtures/validation/generated-cases.json;
 * rerun the script to re-create it): a required property removed, a prose-enumerated value
 * replaced by one outside the list, an int32 past its range and an int64 with a fraction. The
 * expected answers are the document's constraint in the reference's words (Required value;
 * Unsupported value with the reference's supported list; encoding/json's decoding error); the
 * fields where the reference answers otherwise are listed in the fixture as skipped, with why.
 * Validation cases run through the kind's create preparation and validation as the generic
 * store does (support.ts); decoding cases through the request decoder (schema/decode.ts).
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import type { Response } from '../../../../src/server/http/types.js'
import { decodeRequestObject } from '../../../../src/server/api/schema/decode.js'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import type { Strategy } from '../../../../src/server/api/registry/strategy.js'
import { recordCases } from './case-registry.js'
import { createAnswer, strategyOf } from './support.js'

interface Kind {
  group: string
  version: string
  resource: string
  kind: string
  object: Record<string, unknown>
}

interface GeneratedCase {
  kind: number
  constraint: 'required' | 'enum' | 'int32' | 'int64'
  definition: string
  op: 'remove' | 'set'
  path: Array<string | number>
  value?: unknown
  expected?: Array<[string, string, string]>
  decodeError?: string
}

interface Fixture {
  kinds: Kind[]
  cases: GeneratedCase[]
  skipped: Array<{ constraint: string; field: string; reason: string }>
}

const fixture = JSON.parse(readFileSync(new URL('../../../fixtures/validation/generated-cases.json', import.meta.url), 'utf8')) as Fixture

/** The base object with the case's change: `[key]` steps are map keys, numbers list indexes. */
function changed(base: Record<string, unknown>, c: GeneratedCase): Record<string, unknown> {
  const o = structuredClone(base)
  let at: any = o
  const steps = c.path.map((p) => (typeof p === 'string' && p.startsWith('[') ? p.slice(1, -1) : p))
  for (const step of steps.slice(0, -1)) at = at[step]
  const last = steps[steps.length - 1]!
  if (c.op === 'remove') delete at[last]
  else at[last] = c.value
  return o
}

const qualified = (k: Kind) => (k.group === '' ? k.kind : `${k.kind}.${k.group}`)
const label = (c: GeneratedCase) => `${c.constraint} ${c.definition} at ${c.path.join('/')}`
const noResponse = {} as Response

describe('validation: cases generated from the OpenAPI document', () => {
  const strategies = new Map<Kind, Strategy>()
  const strategy = (k: Kind) => {
    let s = strategies.get(k)
    if (!s) strategies.set(k, (s = strategyOf(k.group, k.version, k.resource)))
    return s
  }

  it('the fixture holds the generated cases and the skipped fields with their reasons', () => {
    assert.ok(fixture.cases.length >= 400, `${fixture.cases.length} cases`)
    for (const s of fixture.skipped) assert.ok(s.reason.length > 10, `${s.field} has no reason`)
  })

  for (const kind of fixture.kinds) {
    const mine = fixture.cases.filter((c) => fixture.kinds[c.kind] === kind)
    const validation = mine.filter((c) => c.expected)
    recordCases(strategyOf(kind.group, kind.version, kind.resource), validation.length, 1)
    describe(`${qualified(kind)} ${kind.version}`, () => {
      it('accepts the base object', async () => {
        assert.equal(createAnswer(strategy(kind), kind.object), undefined)
        await decodeRequestObject(strategy(kind), structuredClone(kind.object) as KubeObject, 'Strict', noResponse)
      })
      for (const c of validation) {
        it(`refuses: ${label(c)}`, () => {
          const got = createAnswer(strategy(kind), changed(kind.object, c))
          assert.ok(got, 'expected a 422, the object was accepted')
          assert.deepEqual(got.causes.map((x) => [x.field, x.reason, x.message]), c.expected)
          // NewInvalid's message: the aggregate of the distinct errors, in brackets when more than one.
          const distinct = [...new Set(c.expected!.map(([field, , message]) => `${field}: ${message}`))]
          const aggregate = distinct.length === 1 ? distinct[0] : `[${distinct.join(', ')}]`
          const objectName = String((changed(kind.object, c).metadata as { name?: string } | undefined)?.name ?? '')
          assert.equal(got.message, `${qualified(kind)} "${objectName}" is invalid: ${aggregate}`)
        })
      }
      for (const c of mine.filter((x) => x.decodeError)) {
        it(`cannot decode: ${label(c)}`, async () => {
          const body = changed(kind.object, c) as KubeObject
          await assert.rejects(decodeRequestObject(strategy(kind), body, 'Ignore', noResponse), (err: any) => {
            assert.equal(err.status?.code, 400)
            assert.equal(err.status?.message, `${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: ${c.decodeError}`)
            return true
          })
        })
      }
    })
  }
})
