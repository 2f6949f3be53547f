/**
 * What an audit backend implements (the reference's `k8s.io/apiserver/pkg/audit` Backend and
 * Sink): given the events of each request, run before the first and shut down at the end. The
 * log and webhook backends (`--audit-log-*`, `--audit-webhook-*`) will each be one file of
 * this folder; the audit filter (`src/server/filters/audit.ts`) hands them every event the
 * policy lets through.
 */
import { type MaybePromise, isPromise } from '../http/maybe-promise.js'
import type { AuditEvent } from './event.js'

export interface AuditBackend {
  /**
   * Takes events (up to one per stage of a request). The caller reuses an event after the
   * call, so a backend that keeps one copies it: the audit filter only ever replaces an
   * event's top-level fields, so a shallow copy is enough. False when they could not be handled. A
   * backend that must wait (a blocking webhook) answers with a promise; the log backend
   * writes at once and answers now.
   */
  processEvents(...events: AuditEvent[]): MaybePromise<boolean>
  /** Starts the backend's work (batching, delivery) before the first event; never blocks. */
  run(): void
  /** Delivers what is pending, then stops. */
  shutdown(): Promise<void>
  /** The backend's name (`log`, `webhook`), for messages and metrics. */
  readonly name: string
}

/** Whether every one of several backends' answers is true: now when all are there, else once they are. */
export function allProcessed(answers: readonly MaybePromise<boolean>[]): MaybePromise<boolean> {
  if (!answers.some(isPromise)) return answers.every((ok) => ok === true)
  return Promise.all(answers).then((oks) => oks.every((ok) => ok))
}
