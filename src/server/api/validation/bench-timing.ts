/**
 * Validation timed inside a serving server, for bench/validation.bench.js only: with
 * CLIENT_BENCH_VALIDATION_TIMES=<file> the generic store times each create's validation and
 * appends, per 50 validations of a kind, a line `<kind> <count> <median µs> <p90 µs>` to the
 * file. A validation in a loop costs a fraction of what it costs among real requests (the
 * caches are cold between two of them), so the cost that matters is measured where it is paid.
 * Unset (always, outside that bench), the store does not call into this file.
 */
import fs from 'node:fs'

/** The file the timings go to; undefined (the server as built) times nothing. */
export const VALIDATION_TIMES_FILE = process.env.CLIENT_BENCH_VALIDATION_TIMES || undefined

const BATCH = 50
const byKind = new Map<string, number[]>()

/** Runs `validate`, timing it (wall clock of the main thread, in µs). */
export function timedValidation<T>(kind: string, validate: () => T): T {
  const start = process.hrtime.bigint()
  const out = validate()
  const micros = Number(process.hrtime.bigint() - start) / 1e3
  let list = byKind.get(kind)
  if (list === undefined) byKind.set(kind, (list = []))
  list.push(micros)
  if (list.length === BATCH) {
    list.sort((a, b) => a - b)
    const median = (list[BATCH / 2 - 1]! + list[BATCH / 2]!) / 2
    fs.appendFileSync(VALIDATION_TIMES_FILE!, `${kind} ${BATCH} ${median.toFixed(1)} ${list[Math.floor(BATCH * 0.9)]!.toFixed(1)}\n`)
    list.length = 0
  }
  return out
}
