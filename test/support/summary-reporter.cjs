// The spec reporter, plus the suite's wall time and the plain closing line CI reads:
// `N passed, N failed` (alone on the last line).
const Mocha = require('mocha')
const { Spec } = Mocha.reporters
const { EVENT_RUN_BEGIN, EVENT_RUN_END } = Mocha.Runner.constants

/** 754000 -> "12m34s". */
function minutesAndSeconds(ms) {
  const s = Math.round(ms / 1000)
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
}

class SummaryReporter extends Spec {
  constructor(runner, options) {
    super(runner, options)
    // .ci/run sets SUITE_STARTED_AT_MS before `npm test`, so the time includes the build.
    const fromEnv = Number(process.env.SUITE_STARTED_AT_MS)
    const includesBuild = Number.isFinite(fromEnv) && fromEnv > 0
    let started = includesBuild ? fromEnv : Date.now()
    runner.once(EVENT_RUN_BEGIN, () => {
      if (!includesBuild) started = Date.now()
    })
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats
      const line = `${s.passes} passed, ${s.failures} failed` + (s.pending ? `, ${s.pending} skipped` : '')
      const wall = `suite wall time: ${minutesAndSeconds(Date.now() - started)}${includesBuild ? ' (build and tests)' : ''}`
      // Printed after the spec reporter's epilogue.
      process.nextTick(() => {
        console.log(wall)
        console.log(line)
      })
    })
  }
}

module.exports = SummaryReporter
