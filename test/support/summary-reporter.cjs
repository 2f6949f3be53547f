// The spec reporter, plus the plain closing line CI reads: `N passed, N failed`.
const Mocha = require('mocha')
const { Spec } = Mocha.reporters
const { EVENT_RUN_END } = Mocha.Runner.constants

class SummaryReporter extends Spec {
  constructor(runner, options) {
    super(runner, options)
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats
      const line = `${s.passes} passed, ${s.failures} failed` + (s.pending ? `, ${s.pending} skipped` : '')
      // Printed after the spec reporter's epilogue.
      process.nextTick(() => console.log(line))
    })
  }
}

module.exports = SummaryReporter
