/** Reports and states for the tests of `client health watch` (model, lines, loop, view). */
import type { CheckState, HealthEndpoint, HealthReport } from '../../../src/core/health/report.js'
import { probePath } from '../../../src/core/health/report.js'
import { type WatchState, applyReport, createWatchState } from '../../../src/core/health/watch-model.js'
import { SPEC_CHECKS, SPEC_READYZ_CHECKS } from '../../support/spec-checks.js'

/** 2026-11-22T00:14:03Z */
export const T0 = Date.UTC(2026, 10, 22, 0, 14, 3)

export const READYZ = SPEC_READYZ_CHECKS
export const LIVEZ = SPEC_CHECKS

export interface ReportOptions {
  at?: number
  /** Checks whose state is not ok. */
  states?: Record<string, CheckState>
  statusCode?: number
  latencyMs?: number
  exclude?: string[]
}

/** A verbose report listing `names` (ok unless `states` says otherwise); 500 when a check failed. */
export function report(endpoint: HealthEndpoint, names: readonly string[], options: ReportOptions = {}): HealthReport {
  const checks = names.map((name) => ({ name, state: options.states?.[name] ?? ('ok' as CheckState) }))
  const failed = checks.some((c) => c.state === 'failed')
  const statusCode = options.statusCode ?? (failed ? 500 : 200)
  const body = checks.map((c) => (c.state === 'ok' ? `[+]${c.name} ok` : c.state === 'excluded' ? `[+]${c.name} excluded: ok` : `[-]${c.name} failed: reason withheld`)).join('\n')
  return {
    endpoint,
    path: probePath(endpoint, { exclude: options.exclude }),
    statusCode,
    verdict: statusCode >= 200 && statusCode < 300 ? 'healthy' : 'unhealthy',
    checks,
    warnings: [],
    body: body + (failed ? `\nreadyz check failed\n` : '\nhealthz check passed\n'),
    latencyMs: options.latencyMs ?? 3,
    at: options.at ?? T0,
  }
}

export function unreachable(endpoint: HealthEndpoint, at: number, error = 'connect ECONNREFUSED 127.0.0.1:6443'): HealthReport {
  return { endpoint, path: probePath(endpoint), verdict: 'unreachable', checks: [], warnings: [], body: '', error, latencyMs: 1, at }
}

/** A state watching livez and readyz (readyz shown first unless `active`), with the given reports applied. */
export function stateWith(reports: HealthReport[], options: { intervalMs?: number; active?: HealthEndpoint; endpoints?: HealthEndpoint[] } = {}): WatchState {
  let state = createWatchState({
    endpoints: options.endpoints ?? ['livez', 'readyz'],
    intervalMs: options.intervalMs ?? 2000,
    active: options.active ?? 'readyz',
    now: T0,
  })
  for (const r of reports) state = applyReport(state, r)
  return state
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001B\[[0-9;?]*[ -/]*[@-~]/g

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '')
}

/** The lines of a frame without colors. */
export function frameLines(frame: string | undefined): string[] {
  return stripAnsi(frame ?? '').split('\n')
}

export function width(line: string): number {
  return [...line].length
}

export const delay = (ms = 0) => new Promise<void>((resolve) => setTimeout(resolve, ms))
