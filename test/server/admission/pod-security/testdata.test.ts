/**
 * The evaluator against the pods the reference generates from its fixtures
 * (k8s.io/pod-security-admission test/testdata/<level>/v1.<minor>/<pass|fail>/*.yaml, copied
 * by scripts/import-pod-security-fixtures.mjs into test/fixtures/pod-security/testdata.json):
 * at its level and version, every pass pod is allowed by every check and every fail pod is
 * refused by at least one; a fail pod of baseline is allowed at privileged, as the reference's
 * run.go checks. The reference sends them to a server, so each pod gets the server's pod
 * defaults first (a volume without a source is an emptyDir: the fixtures' "implicit empty dir"),
 * as PodSecurity, a validating plugin, sees it here too. One test per level and version, naming
 * each pod that goes the wrong way.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { AggregateCheckResult, Evaluator } from '../../../../src/server/admission/pod-security/evaluator.js'
import type { PodLike } from '../../../../src/server/admission/pod-security/check.js'
import { type Level, majorMinor } from '../../../../src/server/admission/pod-security/levels.js'
import { defaultPodSpec } from '../../../../src/server/api/kinds/pod-defaults.js'

type Case = [level: Level, minor: number, expect: 'pass' | 'fail', name: string, pod: number]
const testdata = JSON.parse(readFileSync(new URL('../../../fixtures/pod-security/testdata.json', import.meta.url), 'utf8')) as { cases: Case[]; pods: PodLike[] }

describe('admission: PodSecurity against the reference testdata', () => {
  const evaluator = new Evaluator()

  it('holds the reference testdata: both levels, every minor from 0, pass and fail pods', () => {
    const minors = new Set(testdata.cases.map((c) => c[1]))
    assert.ok(minors.has(0) && minors.has(35), `minors ${[...minors].join(',')}`)
    assert.ok(testdata.cases.length > 4000, `${testdata.cases.length} cases`)
  })

  const groups = new Map<string, Case[]>()
  for (const c of testdata.cases) {
    const key = `${c[0]} v1.${c[1]}`
    groups.set(key, [...(groups.get(key) ?? []), c])
  }
  for (const [key, cases] of groups) {
    it(`${key}: ${cases.filter((c) => c[2] === 'pass').length} pass and ${cases.filter((c) => c[2] === 'fail').length} fail pods`, () => {
      const wrong: string[] = []
      for (const [level, minor, expect, name, index] of cases) {
        const pod = structuredClone(testdata.pods[index]!)
        defaultPodSpec(pod.spec as Record<string, unknown>)
        const result = new AggregateCheckResult(evaluator.evaluatePod({ level, version: majorMinor(minor) }, pod))
        if (expect === 'pass' && !result.allowed) wrong.push(`${name}: refused: ${result.forbiddenDetail()}`)
        if (expect === 'fail' && result.allowed) wrong.push(`${name}: allowed`)
        if (expect === 'fail' && level === 'baseline' && !new AggregateCheckResult(evaluator.evaluatePod({ level: 'privileged', version: majorMinor(minor) }, pod)).allowed) {
          wrong.push(`${name}: refused at privileged`)
        }
      }
      assert.deepEqual(wrong, [])
    })
  }
})
