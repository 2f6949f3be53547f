/**
 * The cron schedule syntax a CronJob's `spec.schedule` must have, as the reference parses it:
 * github.com/robfig/cron/v3 ParseStandard (five fields or a descriptor, an optional TZ= or
 * CRON_TZ= prefix), returning that parser's error text.
 */

interface Bounds {
  min: number
  max: number
  names?: Record<string, number>
}

const MINUTES: Bounds = { min: 0, max: 59 }
const HOURS: Bounds = { min: 0, max: 23 }
const DOM: Bounds = { min: 1, max: 31 }
const MONTHS: Bounds = { min: 1, max: 12, names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 } }
const DOW: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } }

const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'])

/** Whether Go's time.LoadLocation knows the zone (the IANA database; "" and UTC are UTC). */
export function loadLocationError(zone: string): string | undefined {
  if (zone === '' || zone === 'UTC' || zone === 'Local') return undefined
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return undefined
  } catch {
    return `unknown time zone ${zone}`
  }
}

/** strconv.Atoi's acceptance: an optional sign and decimal digits. */
function atoi(expr: string): number | string {
  if (!/^[+-]?\d+$/.test(expr)) return `failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`
  const n = Number.parseInt(expr, 10)
  if (!Number.isSafeInteger(n)) return `failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: value out of range`
  return n
}

function mustParseInt(expr: string): number | string {
  const n = atoi(expr)
  if (typeof n === 'string') return n
  if (n < 0) return `negative number (${n}) not allowed: ${expr}`
  return n
}

function parseIntOrName(expr: string, r: Bounds): number | string {
  const named = r.names?.[expr.toLowerCase()]
  return named !== undefined ? named : mustParseInt(expr)
}

function getRange(expr: string, r: Bounds): string | undefined {
  const rangeAndStep = expr.split('/')
  const lowAndHigh = rangeAndStep[0]!.split('-')
  const singleDigit = lowAndHigh.length === 1
  let start: number
  let end: number
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min
    end = r.max
  } else {
    const s = parseIntOrName(lowAndHigh[0]!, r)
    if (typeof s === 'string') return s
    start = s
    if (lowAndHigh.length === 1) end = start
    else if (lowAndHigh.length === 2) {
      const e = parseIntOrName(lowAndHigh[1]!, r)
      if (typeof e === 'string') return e
      end = e
    } else return `too many hyphens: ${expr}`
  }
  let step = 1
  if (rangeAndStep.length === 2) {
    const s = mustParseInt(rangeAndStep[1]!)
    if (typeof s === 'string') return s
    step = s
    if (singleDigit) end = r.max
  } else if (rangeAndStep.length > 2) return `too many slashes: ${expr}`
  if (start < r.min) return `beginning of range (${start}) below minimum (${r.min}): ${expr}`
  if (end > r.max) return `end of range (${end}) above maximum (${r.max}): ${expr}`
  if (start > end) return `beginning of range (${start}) beyond end of range (${end}): ${expr}`
  if (step === 0) return `step of range should be a positive number: ${expr}`
  return undefined
}

function getField(field: string, r: Bounds): string | undefined {
  for (const expr of field.split(',').filter((x) => x !== '')) {
    const err = getRange(expr, r)
    if (err) return err
  }
  return undefined
}

/** Go's time.ParseDuration acceptance (for `@every`). */
function isGoDuration(s: string): boolean {
  return s === '0' || /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/.test(s)
}

/** The error of cron.ParseStandard for `spec`, or undefined when it parses. */
export function parseStandardError(schedule: string): string | undefined {
  let spec = schedule
  if (spec.length === 0) return 'empty spec string'
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const i = spec.indexOf(' ')
    const eq = spec.indexOf('=')
    const zone = i < 0 ? spec.slice(eq + 1) : spec.slice(eq + 1, i)
    const err = loadLocationError(zone)
    if (err) return `provided bad location ${zone}: ${err}`
    spec = i < 0 ? '' : spec.slice(i).trim()
  }
  if (spec.startsWith('@')) {
    if (DESCRIPTORS.has(spec)) return undefined
    if (spec.startsWith('@every ')) {
      const d = spec.slice('@every '.length)
      return isGoDuration(d) ? undefined : `failed to parse duration ${spec}: time: invalid duration ${JSON.stringify(d)}`
    }
    return `unrecognized descriptor: ${spec}`
  }
  const fields = spec.split(/[\t\n\v\f\r ]+/).filter((f) => f !== '')
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`
  const bounds = [MINUTES, HOURS, DOM, MONTHS, DOW]
  for (const [i, f] of fields.entries()) {
    const err = getField(f, bounds[i]!)
    if (err) return err
  }
  return undefined
}
