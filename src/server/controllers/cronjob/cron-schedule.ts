/**
 * A CronJob's schedule as the reference's controller reads it: github.com/robfig/cron/v3
 * ParseStandard (five fields, the @yearly/@monthly/@weekly/@daily/@midnight/@hourly
 * descriptors, `@every <duration>`, an optional `TZ=`/`CRON_TZ=` prefix) and its Next: the
 * first matching minute after a time, in the schedule's time zone (IANA names through Intl;
 * the controller prefixes `TZ=<spec.timeZone>`, as formatSchedule does). As robfig, day of month
 * and day of week are both required to match when either is `*` or `?`, either otherwise.
 * The syntax errors are the validation's (../../api/validation/cron.ts), which refuses bad
 * schedules before they reach the controller.
 */
import { parseStandardError } from '../../api/validation/cron.js'

export interface Schedule {
  /** The first activation strictly after `ms` (milliseconds since the epoch), or undefined when none within five years. */
  next(ms: number): number | undefined
}

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
}
const MONTH_NAMES: Record<string, number> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 }
const DOW_NAMES: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 }

interface Field {
  values: Set<number>
  /** The field was `*` or `?` (robfig's starBit). */
  star: boolean
}

function parseField(text: string, min: number, max: number, names: Record<string, number> = {}): Field {
  const values = new Set<number>()
  let star = false
  const value = (s: string) => names[s.toLowerCase()] ?? Number(s)
  for (const expr of text.split(',').filter((x) => x !== '')) {
    const [range, stepText] = expr.split('/')
    const [low, high] = range!.split('-')
    let start: number
    let end: number
    if (low === '*' || low === '?') {
      start = min
      end = max
      if (stepText === undefined) star = true
    } else {
      start = value(low!)
      end = high === undefined ? (stepText === undefined ? start : max) : value(high)
    }
    const step = stepText === undefined ? 1 : Number(stepText)
    for (let v = start; v <= end; v += step) values.add(v)
  }
  return { values, star }
}

/** Go's time.ParseDuration, in milliseconds. */
function parseGoDuration(text: string): number {
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 }
  let total = 0
  for (const [, n, unit] of text.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) total += Number(n) * units[unit!]!
  return text.startsWith('-') ? -total : total
}

/** The wall-clock fields of an instant in a zone. */
function wallClock(ms: number, zone: string): { year: number; month: number; day: number; hour: number; minute: number } {
  if (zone === 'UTC') {
    const d = new Date(ms)
    return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes() }
  }
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' })
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  )
  return { year: Number(parts.year), month: Number(parts.month), day: Number(parts.day), hour: Number(parts.hour) % 24, minute: Number(parts.minute) }
}

/** The zone's offset from UTC at an instant, in milliseconds. */
export function zoneOffset(ms: number, zone: string): number {
  if (zone === 'UTC') return 0
  const w = wallClock(ms, zone)
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute)
  return asUtc - (ms - (((ms % 60_000) + 60_000) % 60_000))
}

/**
 * The instant of a wall-clock time in a zone; a time a transition skips reads as the instant
 * after the gap (2:30 becomes 3:30 when clocks go from 2:00 to 3:00), as Go's time.Date does.
 */
function instantOf(wallAsUtc: number, zone: string): number {
  const first = wallAsUtc - zoneOffset(wallAsUtc, zone)
  const second = wallAsUtc - zoneOffset(first, zone)
  for (const guess of [second, first]) {
    const w = wallClock(guess, zone)
    if (Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute) === wallAsUtc) return guess
  }
  return Math.max(first, second)
}

class FieldSchedule implements Schedule {
  constructor(
    private readonly minute: Field,
    private readonly hour: Field,
    private readonly dom: Field,
    private readonly month: Field,
    private readonly dow: Field,
    private readonly zone: string,
  ) {}

  private dayMatches(wall: Date): boolean {
    const domMatch = this.dom.values.has(wall.getUTCDate())
    const dowMatch = this.dow.values.has(wall.getUTCDay()) || (wall.getUTCDay() === 0 && this.dow.values.has(7))
    return this.dom.star || this.dow.star ? domMatch && dowMatch : domMatch || dowMatch
  }

  next(ms: number): number | undefined {
    // Work on the zone's wall clock (a Date read through its UTC fields), from the next whole minute.
    const w = wallClock(ms, this.zone)
    const wall = new Date(Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute) + 60_000)
    const limit = wall.getUTCFullYear() + 5
    while (wall.getUTCFullYear() <= limit) {
      if (!this.month.values.has(wall.getUTCMonth() + 1)) {
        wall.setUTCMonth(wall.getUTCMonth() + 1, 1)
        wall.setUTCHours(0, 0, 0, 0)
        continue
      }
      if (!this.dayMatches(wall)) {
        wall.setUTCDate(wall.getUTCDate() + 1)
        wall.setUTCHours(0, 0, 0, 0)
        continue
      }
      if (!this.hour.values.has(wall.getUTCHours())) {
        wall.setUTCHours(wall.getUTCHours() + 1, 0, 0, 0)
        continue
      }
      if (!this.minute.values.has(wall.getUTCMinutes())) {
        wall.setUTCMinutes(wall.getUTCMinutes() + 1, 0, 0)
        continue
      }
      const at = instantOf(wall.getTime(), this.zone)
      // A wall time skipped by a transition lands before `ms` or repeats: look further.
      if (at > ms) return at
      wall.setUTCMinutes(wall.getUTCMinutes() + 1, 0, 0)
    }
    return undefined
  }
}

/** robfig's ConstantDelaySchedule: every whole-second delay (at least one second) from the given time. */
class EverySchedule implements Schedule {
  constructor(private readonly delayMs: number) {}
  next(ms: number): number {
    return ms - (((ms % 1000) + 1000) % 1000) + this.delayMs
  }
}

/** ParseStandard; throws the parser's error text for a schedule the validation would refuse. */
export function parseSchedule(schedule: string, defaultZone = 'UTC'): Schedule {
  const error = parseStandardError(schedule)
  if (error) throw new Error(error)
  let spec = schedule.trim()
  let zone = defaultZone
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ')
    zone = spec.slice(spec.indexOf('=') + 1, space)
    spec = spec.slice(space).trim()
  }
  if (zone === '' || zone === 'Local') zone = 'UTC'
  if (spec.startsWith('@every ')) {
    const delay = parseGoDuration(spec.slice('@every '.length))
    return new EverySchedule(Math.max(1000, delay - (delay % 1000)))
  }
  const fields = (DESCRIPTORS[spec] ?? spec).split(/\s+/)
  return new FieldSchedule(
    parseField(fields[0]!, 0, 59),
    parseField(fields[1]!, 0, 23),
    parseField(fields[2]!, 1, 31),
    parseField(fields[3]!, 1, 12, MONTH_NAMES),
    parseField(fields[4]!, 0, 6, DOW_NAMES),
    zone,
  )
}

/** time.Format(time.RFC3339) of an instant in a zone: `Z` for UTC, the offset otherwise. */
export function rfc3339In(ms: number, zone: string): string {
  const offset = zone === 'UTC' ? 0 : zoneOffset(ms, zone)
  const local = new Date(ms + offset).toISOString().replace(/\.\d{3}Z$/, '')
  if (offset === 0 && zone === 'UTC') return `${local}Z`
  const sign = offset < 0 ? '-' : '+'
  const minutes = Math.abs(offset) / 60_000
  return `${local}${sign}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`
}

/** time.RFC1123Z of an instant in UTC (`Mon, 02 Jan 2006 15:04:05 +0000`), as the MissSchedule event writes it. */
export function rfc1123z(ms: number): string {
  return new Date(ms).toUTCString().replace('GMT', '+0000')
}
