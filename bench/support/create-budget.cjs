// Preloaded into a server (NODE_OPTIONS=--require) by bench/create-budget.bench.js: where a
// create's time goes. It records each POST from request start to response finish
// (diagnostics_channel) and each WAL sync of the embedded store (fs.fdatasync, which runs on
// the thread pool), and on SIGUSR2 writes to $CREATE_BUDGET_OUT, for the requests since the
// previous SIGUSR2: the mean latency split into the time before the request's own sync started
// (handler and queue), the part of it spent waiting for a sync already running (group commit),
// the request's own sync, and the time from the sync's end to the response; the syncs' count
// and mean duration. A request's own sync is the last one that started after the request
// and ended before its response.
'use strict'
if (process.argv.includes('server') && process.env.CREATE_BUDGET_OUT) {
  const fs = require('node:fs')
  const dc = require('node:diagnostics_channel')
  const now = () => Number(process.hrtime.bigint()) / 1e3
  let syncs = []
  let done = []
  const started = new WeakMap()
  const fdatasync = fs.fdatasync
  fs.fdatasync = function (fd, callback) {
    const sync = { start: now(), end: undefined }
    syncs.push(sync)
    return fdatasync.call(fs, fd, (err) => {
      sync.end = now()
      callback(err)
    })
  }
  dc.subscribe('http.server.request.start', ({ request }) => {
    if (request.method === 'POST') started.set(request, now())
  })
  dc.subscribe('http.server.response.finish', ({ request }) => {
    const start = started.get(request)
    if (start !== undefined) done.push({ start, end: now() })
  })
  process.on('SIGUSR2', () => {
    const requests = done
    const finished = syncs.filter((s) => s.end !== undefined)
    done = []
    syncs = syncs.filter((s) => s.end === undefined)
    const budget = { creates: requests.length, syncs: finished.length, meanSyncUs: 0, meanLatencyUs: 0, beforeSyncUs: 0, waitingForRunningSyncUs: 0, ownSyncUs: 0, afterSyncUs: 0 }
    if (requests.length > 0 && finished.length > 0) {
      let counted = 0
      for (const r of requests) {
        budget.meanLatencyUs += r.end - r.start
        let own
        for (const s of finished) if (s.start >= r.start && s.end <= r.end && (!own || s.start > own.start)) own = s
        if (!own) continue
        let running
        for (const s of finished) if (s.start < own.start && s.end > r.start && (!running || s.start > running.start)) running = s
        const waited = running ? Math.max(0, Math.min(running.end, own.start) - Math.max(running.start, r.start)) : 0
        budget.waitingForRunningSyncUs += waited
        budget.beforeSyncUs += own.start - r.start - waited
        budget.ownSyncUs += own.end - own.start
        budget.afterSyncUs += r.end - own.end
        counted++
      }
      budget.meanLatencyUs /= requests.length
      for (const k of ['waitingForRunningSyncUs', 'beforeSyncUs', 'ownSyncUs', 'afterSyncUs']) budget[k] /= Math.max(1, counted)
      budget.meanSyncUs = finished.reduce((sum, s) => sum + (s.end - s.start), 0) / finished.length
    }
    fs.writeFileSync(process.env.CREATE_BUDGET_OUT, `${JSON.stringify(budget)}\n`)
  })
}
