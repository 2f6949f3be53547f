import assert from 'node:assert/strict'
import { computeConcurrencyAllocation, currentLimits, goRound, nominalLimits, type AllocationItem } from '../../../src/server/flowcontrol/concurrency-limits.js'
import { prng } from '../fuzz/hostile-requests.js'

/** The reference's default levels (shares, lendablePercent) at its default 400 + 200 seats. */
const DEFAULT_LEVELS = [
  { name: 'exempt', exempt: true, nominalConcurrencyShares: 0, lendablePercent: 0 },
  { name: 'catch-all', exempt: false, nominalConcurrencyShares: 5, lendablePercent: 0 },
  { name: 'system', exempt: false, nominalConcurrencyShares: 30, lendablePercent: 33 },
  { name: 'node-high', exempt: false, nominalConcurrencyShares: 40, lendablePercent: 25 },
  { name: 'leader-election', exempt: false, nominalConcurrencyShares: 10, lendablePercent: 0 },
  { name: 'workload-high', exempt: false, nominalConcurrencyShares: 40, lendablePercent: 50 },
  { name: 'workload-low', exempt: false, nominalConcurrencyShares: 100, lendablePercent: 90 },
  { name: 'global-default', exempt: false, nominalConcurrencyShares: 20, lendablePercent: 50 },
]

const random = prng

describe('flow control: concurrency limits', () => {
  it('nominal limits of the default levels at 600 seats are the ones a default kube-apiserver reports', () => {
    const limits = nominalLimits(600, DEFAULT_LEVELS)
    const nominal = Object.fromEntries([...limits].map(([name, l]) => [name, l.nominalCL]))
    // apiserver_flowcontrol_nominal_limit_seats of a kube-apiserver with the default flags.
    assert.deepEqual(nominal, { exempt: 0, 'catch-all': 13, system: 74, 'node-high': 98, 'leader-election': 25, 'workload-high': 98, 'workload-low': 245, 'global-default': 49 })
    // lendable = round(nominal × lendablePercent / 100); lower bound = nominal − lendable.
    assert.equal(limits.get('workload-low')!.minCL, 245 - 221)
    assert.equal(limits.get('system')!.minCL, 74 - 24)
    assert.equal(limits.get('global-default')!.lendableCL, 25, 'round half away from zero, as Go: 24.5 → 25')
    // No borrowingLimitPercent: may borrow up to the whole server limit.
    assert.equal(limits.get('catch-all')!.maxCL, 13 + 600)
    // The level starts at nominal − lendable/2 (integer division).
    assert.equal(limits.get('workload-low')!.initialCL, 245 - 110)
  })

  it('a level with a borrowing limit and the lendable share of a small server', () => {
    const limits = nominalLimits(150, [...DEFAULT_LEVELS, { name: 'mine', exempt: false, nominalConcurrencyShares: 1, lendablePercent: 0, borrowingLimitPercent: 0 }])
    assert.deepEqual({ ...limits.get('mine')! }, { nominalCL: 1, lendableCL: 0, borrowingCL: 0, minCL: 1, maxCL: 1, initialCL: 1 })
    assert.equal(limits.get('workload-low')!.nominalCL, Math.ceil((150 * 100) / 246))
  })

  it('goRound rounds halves away from zero like Go', () => {
    assert.deepEqual([goRound(2.5), goRound(-2.5), goRound(2.4), goRound(0)], [3, -3, 2, 0])
  })

  it('allocation: random problems as the reference tests them, each share proportional to its target within its bounds', () => {
    const rand = random(1234567890)
    for (let n = 0; n < 5000; n++) {
      const probLen = [0, 1, 2, 3, 4, 6, 9][Math.floor(rand() * 7)]!
      const items: AllocationItem[] = []
      let lowSum = 0
      let highSum = 0
      for (let j = 0; j < probLen; j++) {
        const x = Math.max(0, rand() * 5 - 1)
        const item = { lowerBound: x, target: x + 2 * rand(), upperBound: x + 3 * rand() }
        items.push(item)
        lowSum += item.lowerBound
        highSum += item.upperBound
      }
      if (rand() < 0.25) {
        const item = { target: 0, lowerBound: 0, upperBound: rand() + 0.00001 }
        items.push(item)
        highSum += item.upperBound
      }
      const requiredSum = Math.round(lowSum + (highSum - lowSum) * rand())
      const expectError = lowSum - requiredSum > 1e-10 || requiredSum - highSum > 1e-10
      let result: ReturnType<typeof computeConcurrencyAllocation>
      try {
        result = computeConcurrencyAllocation(requiredSum, items)
      } catch (err) {
        assert.ok(expectError, `unexpected error for ${requiredSum} ${JSON.stringify(items)}: ${err}`)
        continue
      }
      assert.ok(!expectError, `expected an error for ${requiredSum} ${JSON.stringify(items)}`)
      const sum = result.allocs.reduce((a, b) => a + b, 0)
      assert.ok(Math.abs(sum - requiredSum) <= 1e-9 * Math.max(1, requiredSum), `sum ${sum} ≠ ${requiredSum}`)
      items.forEach((item, i) => {
        const proportional = result.fairProp * Math.max(item.target, 0.001)
        const expected = Math.max(item.lowerBound, Math.min(item.upperBound, proportional))
        assert.ok(Math.abs(result.allocs[i]! - expected) <= 1e-9 * Math.max(1, expected), `item ${i}: ${result.allocs[i]} ≠ ${expected}`)
      })
    }
  })

  it('allocation: the bounds decide when they leave no room, and impossible bounds are an error', () => {
    assert.deepEqual(computeConcurrencyAllocation(3, [{ lowerBound: 1, target: 5, upperBound: 9 }, { lowerBound: 2, target: 2, upperBound: 2 }]).allocs, [1, 2])
    assert.deepEqual(computeConcurrencyAllocation(11, [{ lowerBound: 1, target: 5, upperBound: 9 }, { lowerBound: 2, target: 2, upperBound: 2 }]).allocs, [9, 2])
    assert.deepEqual(computeConcurrencyAllocation(6, [{ lowerBound: 0, target: 1, upperBound: 10 }, { lowerBound: 0, target: 2, upperBound: 10 }]).allocs, [2, 4])
    assert.throws(() => computeConcurrencyAllocation(1, [{ lowerBound: 2, target: 2, upperBound: 3 }]), /lower bounds sum to 2, which is higher than the required sum of 1/)
  })

  it('current limits: idle levels share the nominal sum by their lower bounds; a busy one borrows up to its limit', () => {
    const limits = nominalLimits(600, DEFAULT_LEVELS)
    const idle = { avg: 0, stdDev: 0, highWatermark: 0, smoothed: 0 }
    const levels = DEFAULT_LEVELS.map((l) => ({ name: l.name, exempt: l.exempt, limits: limits.get(l.name)!, demand: { ...idle }, currentCL: limits.get(l.name)!.initialCL }))
    const nominalSum = [...limits.values()].reduce((s, l) => s + l.nominalCL, 0)
    const atRest = currentLimits(nominalSum, levels)
    assert.equal(atRest.get('exempt'), 0)
    // Every non-exempt level gets at least its lower bound, and together they use the whole sum (give or take rounding).
    for (const l of levels.filter((l) => !l.exempt)) assert.ok(atRest.get(l.name)! >= l.limits.minCL, l.name)
    const total = [...atRest.values()].reduce((a, b) => a + b, 0)
    assert.ok(Math.abs(total - nominalSum) <= levels.length, `${total} vs ${nominalSum}`)
    // global-default is busy: it borrows what the others can lend.
    const busy = levels.map((l) => (l.name === 'global-default' ? { ...l, demand: { avg: 300, stdDev: 0, highWatermark: 300, smoothed: 300 } } : l))
    const borrowed = currentLimits(nominalSum, busy)
    assert.ok(borrowed.get('global-default')! > limits.get('global-default')!.nominalCL, `global-default got ${borrowed.get('global-default')}`)
    assert.ok(borrowed.get('workload-low')! >= limits.get('workload-low')!.minCL)
    assert.ok(borrowed.get('leader-election')! >= 25, 'a level that lends nothing never goes under its nominal limit')
  })
})
