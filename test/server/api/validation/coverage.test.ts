/**
 * Every kind the server can serve has its validation table: at least ten invalid objects or
 * updates with their expected errors, and at least one valid object accepted. The counts come
 * from the tables themselves (each table helper records its cases under its kind, see
 * case-registry.ts), so this file loads every table file of this folder first.
 *
 * The kinds are those of the registry of resources: the GA ones served by default, and the
 * beta and alpha ones `--runtime-config` (with their feature gates) can switch on. Kinds the
 * reference does not validate are listed by name with the reason; beta and alpha kinds whose
 * validation is not built yet are listed too, so the list has to shrink as tables are added.
 */
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { KINDS } from '../../../../src/server/api/kinds/index.js'
import { enabledKinds } from '../../../../src/server/api/runtime-config.js'
import { type KindCases, kindKey, recordedCases } from './case-registry.js'

// Loaded the way mocha loads test files (require, through tsx), so a file mocha loads as well is
// the same module: its suites are defined once and its cases counted once.
const here = new URL('.', import.meta.url)
const load = createRequire(import.meta.url)
for (const file of readdirSync(here).filter((f) => f.endsWith('.test.ts') && f !== 'coverage.test.ts').sort()) load(`./${file}`)

const MIN_INVALID = 10

/** Kinds whose objects the reference does not validate beyond what this says. */
const NOT_VALIDATED: Record<string, string> = {
  'authentication.k8s.io/tokenreviews': 'a review: created, answered and never stored; the reference has no ValidateTokenReview',
  'authentication.k8s.io/selfsubjectreviews': 'a review: its answer is computed from the requester, nothing of the body is validated',
  'authorization.k8s.io/subjectaccessreviews': 'a review, never stored (its few spec checks are the authorization suites)',
  'authorization.k8s.io/localsubjectaccessreviews': 'a review, never stored (its few spec checks are the authorization suites)',
  'authorization.k8s.io/selfsubjectaccessreviews': 'a review, never stored (its few spec checks are the authorization suites)',
  'authorization.k8s.io/selfsubjectrulesreviews': 'a review, never stored; the reference has no validation for it',
  'core/bindings': "not stored: a pod's binding, checked by the pod binding REST (target name), not by a validation table",
  'core/componentstatuses': 'read-only: computed by the server, never written',
}

/**
 * Kinds of the registry with fewer cases than required, each with the reason. A kind listed
 * here and covered fails the test too, so the list stays true.
 */
const NOT_YET_COVERED: Record<string, string> = {}

const exempt = (k: string) => k in NOT_VALIDATED || k in NOT_YET_COVERED

const allKinds = enabledKinds(KINDS, [{ key: 'api/all', value: 'true' }], new Map(KINDS.filter((k) => k.featureGate).map((k) => [k.featureGate!, true])))
const ga = new Set(KINDS.filter((k) => /^v\d+$/.test(k.version)).map((k) => kindKey(k.group, k.resource)))
const keys = [...new Set(allKinds.map((k) => kindKey(k.group, k.resource)))].sort()

function short(c: KindCases | undefined): string | undefined {
  if (!c) return 'no table'
  if (c.invalid < MIN_INVALID) return `${c.invalid} invalid cases`
  if (c.valid < 1) return 'no valid object'
  return undefined
}

describe('validation: every served kind has its table (at least 10 invalid cases and a valid object)', () => {
  it('the registry lists the kinds (GA and those --runtime-config enables)', () => {
    assert.ok(keys.length > 60, `${keys.length} kinds`)
    assert.ok(keys.includes('apps/deployments') && keys.includes('coordination.k8s.io/leasecandidates'))
  })

  it('every GA kind, unless the reference does not validate it', () => {
    const missing = keys.filter((k) => ga.has(k) && !exempt(k)).map((k) => [k, short(recordedCases().get(k))] as const).filter(([, why]) => why)
    assert.deepEqual(missing, [])
  })

  it('every beta and alpha kind, or listed with the reason', () => {
    const missing = keys.filter((k) => !ga.has(k) && !exempt(k)).map((k) => [k, short(recordedCases().get(k))] as const).filter(([, why]) => why)
    assert.deepEqual(missing, [])
  })

  it('the lists name served kinds only, and no covered kind is listed as not covered', () => {
    for (const k of [...Object.keys(NOT_VALIDATED), ...Object.keys(NOT_YET_COVERED)]) assert.ok(keys.includes(k), `${k} is not served`)
    const coveredButListed = Object.keys(NOT_YET_COVERED).filter((k) => !short(recordedCases().get(k)))
    assert.deepEqual(coveredButListed, [])
  })

  it("issue 17's acceptance: at least 400 invalid objects and updates in all, the generated ones among them", () => {
    const invalid = [...recordedCases().values()].reduce((sum, c) => sum + c.invalid, 0)
    assert.ok(invalid >= 400, `${invalid} invalid cases`)
  })
})
