/**
 * The handlers of `/<word>` (the aggregate report) and `/<word>/<checkName>` (one check),
 * byte for byte as the reference's healthz package answers, with the spec's last line
 * `healthz check passed` on every word.
 *
 * Paths match exactly on the decoded path of the raw request target (Go's r.URL.Path): no
 * cleaning, no trailing-slash redirect; `%2F` decodes to `/`. Unknown paths are not
 * answered: `serve` resolves false and the caller answers 404.
 */
import { performance } from 'node:perf_hooks'
import { httpError, textResponse } from '../http/respond.js'
import type { MaybePromise } from '../http/maybe-promise.js'
import type { Request, Response } from '../http/types.js'
import type { Signal } from '../lifecycle/signals.js'
import { errorText, ping, type HealthCheck } from './check.js'
import { formatQuoted, goParseQuery, goUnescape, toByteString } from './go-url.js'
import { HEALTH_WORDS, type HealthWord } from './registry.js'
import { CheckResults, type CheckResult } from './results.js'

/** `level` is the klog verbosity the reference logs the message at. */
export type HealthLog = (level: number, message: string) => void

export interface CheckSource {
  checksFor(word: HealthWord): readonly HealthCheck[]
}

interface HealthHandlerOptions {
  log?: HealthLog
  /** `hasBeenReady` is signalled the first time /readyz passes. */
  signals?: { readonly hasBeenReady: Signal }
  results?: CheckResults
}

/** The request's URL, or its context (whose URL is only parsed if the raw target cannot serve). */
export type UrlSource = URL | { readonly url: URL }

export interface HealthHandlers {
  /**
   * Serves `/<word>` and `/<word>/<checkName>`. Resolves true once the response has been
   * written; false, without writing anything, when the path is not one of the word's.
   */
  serve(word: HealthWord, req: Request, res: Response, url: UrlSource): Promise<boolean>
  /** `serve` for whichever word the path starts with. */
  handle(req: Request, res: Response, url: UrlSource): Promise<boolean>
  /** `handle`, answering at once (no promise) when every check does: what the request path calls. */
  handleNow(req: Request, res: Response, url: UrlSource): MaybePromise<boolean>
  /** Every path served, for the root listing. */
  paths(): string[]
  lastResults(): CheckResult[]
}

/** The same word is printed on success for every endpoint (spec 2.2, 4.1 rule 2). */
export const PASSED_LINE = 'healthz check passed\n'

const NO_PARAMS: ReadonlyMap<string, string[]> = new Map()
const PING_ONLY: readonly HealthCheck[] = Object.freeze([ping])
/** `/healthz`, `/livez`, `/readyz`: the aggregate reports, by path. */
const REPORT_PATHS: ReadonlyMap<string, HealthWord> = new Map(HEALTH_WORDS.map((w) => [`/${w}`, w]))
const TRUE = Promise.resolve(true)

/** The raw request target split into decoded path (byte string, null if undecodable) and raw query. */
function target(req: Request, source: UrlSource): { path: string | null; query: string } {
  let raw: string
  if (typeof req.url === 'string' && req.url.startsWith('/')) raw = req.url
  else {
    const url = source instanceof URL ? source : source.url
    raw = `${url.pathname}${url.search}`
  }
  const q = raw.indexOf('?')
  const rawPath = q < 0 ? raw : raw.slice(0, q)
  return { path: goUnescape(rawPath, 'path'), query: q < 0 ? '' : raw.slice(q + 1) }
}

export function healthHandlers(registry: CheckSource, options: HealthHandlerOptions = {}): HealthHandlers {
  const endpoints = new HealthEndpoints(registry, options)
  // Plain functions: callers spread and pass them around without their object.
  return {
    serve: (word, req, res, url) => endpoints.serve(word, req, res, url),
    handle: (req, res, url) => endpoints.handle(req, res, url),
    handleNow: (req, res, url) => endpoints.handleNow(req, res, url),
    paths: () => endpoints.paths(),
    lastResults: () => endpoints.lastResults(),
  }
}

/** One aggregate report under way: each check's line, failure or pending run, by position. */
interface Report {
  readonly word: HealthWord
  readonly params: ReadonlyMap<string, string[]>
  readonly excluded: ReadonlySet<string>
  readonly checks: readonly HealthCheck[]
  /** The line of an excluded check. */
  readonly lines: string[]
  /** A check's failure text; undefined when it passed. */
  readonly errors: Array<string | undefined>
  /** The names in `exclude` that matched a check or a group. */
  readonly matched: Set<string>
}

class HealthEndpoints implements HealthHandlers {
  private readonly results: CheckResults
  private readonly log: HealthLog

  constructor(
    private readonly registry: CheckSource,
    private readonly options: HealthHandlerOptions,
  ) {
    this.results = options.results ?? new CheckResults()
    this.log = options.log ?? (() => {})
  }

  private checksOf(word: HealthWord): readonly HealthCheck[] {
    const checks = this.registry.checksFor(word)
    return checks.length > 0 ? checks : PING_ONLY
  }

  /** Runs one check; resolves with its failure text, or undefined when it passed. */
  private async run(word: HealthWord, check: HealthCheck): Promise<string | undefined> {
    const start = performance.now()
    let error: string | undefined
    try {
      await check.check()
    } catch (err) {
      error = errorText(err)
    }
    this.results.record(word, check.name, error, performance.now() - start)
    return error
  }

  /**
   * A plain probe (no query): when every check answers at once and passes, their results are
   * recorded (with one clock reading) and true is returned; else nothing is recorded and the
   * full report runs (checks that answer at once are cheap to ask again).
   */
  private passesAtOnce(word: HealthWord): boolean {
    const checks = this.checksOf(word)
    for (let i = 0; i < checks.length; i++) if (checks[i]!.immediate?.() !== null) return false
    this.results.recordPassed(word, checks, this.results.clock())
    return true
  }

  /** A passing report: the first passing /readyz marks the server as having been ready. */
  private passed(word: HealthWord, res: Response, body: string): void {
    if (word === 'readyz') this.options.signals?.hasBeenReady.signal()
    textResponse(res, 200, body)
  }

  /** The report of `word`: synchronous when every check answers at once (the usual case). */
  private aggregate(word: HealthWord, res: Response, query: string): void | Promise<void> {
    if (query === '' && this.passesAtOnce(word)) return this.passed(word, res, 'ok')
    const params = query === '' ? NO_PARAMS : goParseQuery(query)
    const report: Report = { word, params, excluded: new Set(params.get('exclude') ?? []), checks: this.checksOf(word), lines: [], errors: [], matched: new Set() }
    const pending = this.startChecks(report)
    if (pending.length === 0) return this.writeReport(report, res)
    return Promise.all(pending).then(() => this.writeReport(report, res))
  }

  /** Excluded checks are not run; the others all start at once and report in order. */
  private startChecks(report: Report): Array<Promise<void>> {
    const { word, excluded, matched, lines, errors } = report
    const pending: Array<Promise<void>> = []
    report.checks.forEach((check, i) => {
      if (excluded.size > 0) {
        const name = toByteString(check.name)
        if (excluded.has(name)) {
          matched.add(name)
          lines[i] = `[+]${check.name} excluded: ok\n`
          return
        }
        if (check.group !== undefined && excluded.has(toByteString(check.group))) {
          matched.add(toByteString(check.group))
          lines[i] = `[+]${check.name} excluded with ${check.group}: ok\n`
          return
        }
      }
      const now = check.immediate?.()
      if (now !== undefined) {
        this.results.record(word, check.name, now ?? undefined, 0)
        errors[i] = now ?? undefined
        return
      }
      pending.push(this.run(word, check).then((error) => void (errors[i] = error)))
    })
    return pending
  }

  private writeReport(report: Report, res: Response): void {
    const { word, params, excluded, matched, lines, errors } = report
    // A plain probe that passes answers `ok`: the listing is only written when it is shown.
    if (!params.has('verbose') && excluded.size === 0 && errors.every((e) => e === undefined)) return this.passed(word, res, 'ok')
    let listing = ''
    const failed: Array<{ name: string; error: string }> = []
    report.checks.forEach((check, i) => {
      if (lines[i] !== undefined) listing += lines[i]
      else if (errors[i] === undefined) listing += `[+]${check.name} ok\n`
      else {
        listing += `[-]${check.name} failed: reason withheld\n`
        failed.push({ name: check.name, error: errors[i]! })
      }
    })

    const unknown = [...excluded].filter((name) => !matched.has(name))
    if (unknown.length > 0) {
      const list = formatQuoted(unknown)
      listing += `warn: some health checks cannot be excluded: no matches for ${list}\n`
      this.log(6, `cannot exclude some health checks, no health checks are installed matching ${list}`)
    }

    if (failed.length > 0) {
      const details = failed.map((f) => `[-]${f.name} failed: ${f.error}\n`).join('')
      this.log(2, `${failed.map((f) => f.name).join(',')} check failed: ${word}\n${details}`)
      httpError(res, 500, `${listing}${word} check failed`)
      return
    }
    this.passed(word, res, params.has('verbose') ? `${listing}${PASSED_LINE}` : 'ok')
  }

  private async individual(word: HealthWord, check: HealthCheck, res: Response): Promise<void> {
    const error = await this.run(word, check)
    if (error !== undefined) httpError(res, 500, `internal server error: ${error}`)
    else textResponse(res, 200, 'ok', false)
  }

  async serve(word: HealthWord, req: Request, res: Response, url: UrlSource): Promise<boolean> {
    const { path, query } = target(req, url)
    if (path === null) return false
    if (path === `/${word}`) {
      await this.aggregate(word, res, query)
      return true
    }
    return this.serveOne(word, path, res)
  }

  private async serveOne(word: HealthWord, path: string, res: Response): Promise<boolean> {
    const root = `/${word}`
    if (!path.startsWith(`${root}/`)) return false
    const name = path.slice(root.length + 1)
    const check = this.checksOf(word).find((c) => toByteString(c.name) === name)
    if (!check) return false
    await this.individual(word, check, res)
    return true
  }

  handleNow(req: Request, res: Response, url: UrlSource): MaybePromise<boolean> {
    const { path, query } = target(req, url)
    if (path === null) return false
    const report = REPORT_PATHS.get(path)
    const word = report ?? HEALTH_WORDS.find((w) => path.startsWith(`/${w}/`))
    if (!word) return false
    // The report itself (what probes ask for) is answered without a turn of the event loop when it can be.
    if (report) {
      const done = this.aggregate(word, res, query)
      return done ? done.then(() => true) : true
    }
    return this.serveOne(word, path, res)
  }

  handle(req: Request, res: Response, url: UrlSource): Promise<boolean> {
    const handled = this.handleNow(req, res, url)
    return typeof handled === 'boolean' ? (handled ? TRUE : Promise.resolve(false)) : handled
  }

  paths(): string[] {
    return HEALTH_WORDS.flatMap((word) => [`/${word}`, ...this.checksOf(word).map((c) => `/${word}/${c.name}`)])
  }

  lastResults(): CheckResult[] {
    return this.results.lastResults()
  }
}
