/**
 * /debug/api_priority_and_fairness/dump_priority_levels, dump_queues and dump_requests: the
 * reference's three text tables (apf_controller_debug.go), one row per priority level, per
 * queue and per request, with its column names, its comma-and-tab separated cells aligned as
 * Go's tabwriter (minimum width 8, padding 1) aligns them, and `?includeRequestDetails=1`
 * adding who asked for what. They are non-resource paths, so authorization decides who reads them.
 */
import type { Handler } from '../http/types.js'
import type { FlowController, LevelState } from './controller.js'
import type { Entry } from './queue-set.js'

export const DEBUG_PATHS = {
  priorityLevels: '/debug/api_priority_and_fairness/dump_priority_levels',
  queues: '/debug/api_priority_and_fairness/dump_queues',
  requests: '/debug/api_priority_and_fairness/dump_requests',
}

/** Go's text/tabwriter with minwidth 8, tabwidth 0, padding 1, padded with spaces, no flags. */
export function tabwrite(lines: string[][]): string {
  const widths: number[] = []
  for (const cells of lines) {
    // Every cell but the last of a line ends with a tab and is a column cell.
    cells.slice(0, -1).forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 8, [...cell].length + 1)))
  }
  return lines.map((cells) => cells.map((cell, i) => (i < cells.length - 1 ? cell + ' '.repeat(widths[i]! - [...cell].length) : cell)).join('') + '\n').join('')
}

/** A row of the reference's tables: cells joined by ",\t" (the comma stays in the cell). */
const row = (...columns: string[]) => columns.map((c, i) => (i < columns.length - 1 ? `${c},` : c))

/** Go's time.RFC3339Nano in UTC: fraction digits without trailing zeros, none when zero. */
export function rfc3339Nano(ms: number | undefined): string {
  if (ms === undefined) return '0001-01-01T00:00:00Z'
  const iso = new Date(ms).toISOString()
  const [whole, fraction] = [iso.slice(0, 19), iso.slice(20, 23).replace(/0+$/, '')]
  return `${whole}${fraction ? `.${fraction}` : ''}Z`
}

/** Go's fixed-point seat-seconds formatting (8 decimals and the `ss` unit). */
export function seatSeconds(value: number): string {
  const units = BigInt(Math.round(value * 1e8))
  return `${units / 100_000_000n}.${String(units % 100_000_000n).padStart(8, '0')}ss`
}

function sortedLevels(controller: FlowController): LevelState[] {
  return [...controller.levels.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

function send(res: Parameters<Handler>[1], text: string): void {
  res.statusCode = 200
  res.setHeader('Content-Type', 'text/plain; charset=utf-8')
  res.end(text)
}

export function dumpPriorityLevels(controller: FlowController): Handler {
  return (_req, res) => {
    const lines = [row('PriorityLevelName', 'ActiveQueues', 'IsIdle', 'IsQuiescing', 'WaitingRequests', 'ExecutingRequests', 'DispatchedRequests', 'RejectedRequests', 'TimedoutRequests', 'CancelledRequests')]
    for (const level of sortedLevels(controller)) {
      const qs = level.queueSet
      const t = qs.totals
      lines.push(row(level.name, String(qs.queues.filter((q) => q.waiting.length > 0).length), String(qs.idle), String(level.quiescing), String(t.waiting), String(t.executing), String(t.dispatched), String(t.rejected), String(t.timedout), String(t.cancelled)))
    }
    send(res, tabwrite(lines))
  }
}

export function dumpQueues(controller: FlowController): Handler {
  return (_req, res) => {
    const lines = [row('PriorityLevelName', 'Index', 'PendingRequests', 'ExecutingRequests', 'SeatsInUse', 'NextDispatchR', 'InitialSeatsSum', 'MaxSeatsSum', 'TotalWorkSum')]
    for (const level of sortedLevels(controller)) {
      for (const q of level.queueSet.queues) {
        const seats = q.waiting.reduce((sum, e) => sum + e.meta.seats, 0)
        const work = q.waiting.reduce((sum, e) => sum + (e.finishR - e.startR), 0)
        const nextR = q.waiting[0]?.startR ?? q.lastFinishR
        lines.push(row(level.name, String(q.index), String(q.waiting.length), String(q.executing.size), String(q.seatsInUse), seatSeconds(nextR), String(seats), String(seats), seatSeconds(work)))
      }
    }
    send(res, tabwrite(lines))
  }
}

export function dumpRequests(controller: FlowController): Handler {
  return (_req, res, ctx) => {
    const details = (ctx.url.searchParams.get('includeRequestDetails') ?? '').length > 0
    const header = row('PriorityLevelName', 'FlowSchemaName', 'QueueIndex', 'RequestIndexInQueue', 'FlowDistingsher', 'ArriveTime', 'InitialSeats', 'FinalSeats', 'AdditionalLatency', 'StartTime')
    const detailHeader = row('UserName', 'Verb', 'APIPath', 'Namespace', 'Name', 'APIVersion', 'Resource', 'SubResource')
    // The details continue the line: the last cell of the first part gets its comma and tab.
    const join = (first: string[], second: string[]) => [...first.slice(0, -1), `${first.at(-1)},`, ...second]
    const lines = [details ? join(header, detailHeader) : header]
    const add = (level: string, queueIndex: number, indexInQueue: number, e: Entry) => {
      const m = e.meta
      const cells = row(level, m.flowSchema, String(queueIndex), String(indexInQueue), m.distinguisher, rfc3339Nano(e.arrivedAt), String(m.seats), '0', '0s', rfc3339Nano(e.startedAt))
      if (!details) return lines.push(cells)
      const groupVersion = m.apiGroup ? `${m.apiGroup}/${m.apiVersion}` : m.apiVersion
      lines.push(join(cells, row(m.userName, m.verb, m.path, m.namespace, m.name, groupVersion, m.resource, m.subresource)))
    }
    for (const level of sortedLevels(controller)) {
      for (const q of level.queueSet.queues) {
        q.waiting.forEach((e, i) => add(level.name, q.index, i, e))
        for (const e of q.executing) add(level.name, q.index, -1, e)
      }
      for (const e of level.queueSet.queueless) add(level.name, -1, -1, e)
    }
    send(res, tabwrite(lines))
  }
}
