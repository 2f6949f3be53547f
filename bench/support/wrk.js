// wrk (HTTP load generator, Debian package `wrk`) for benches: one run against a URL, its
// figures, and a loud failure when any answer was not 2xx (wrk counts them but keeps going,
// and a bench must not measure error answers).
import { spawnSync } from 'node:child_process'
import { toolCommand, whyMissing } from './tools.js'

/** Exits with the reason when wrk cannot run here. */
export function requireWrk() {
  const missing = whyMissing('wrk')
  if (missing) {
    console.error(missing)
    process.exit(1)
  }
}

/** Runs wrk; `headers` are added to every request (`Authorization: Bearer ...`). */
export function wrk(url, { seconds = 5, connections = 16, headers = {} } = {}) {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency']
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`)
  const run = spawnSync(toolCommand('wrk'), [...args, url], { encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`wrk ${url} exited ${run.status}: ${run.stderr}`)
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(run.stdout)?.[1])
  const p50 = /50%\s+([\d.]+\w+)/.exec(run.stdout)?.[1]
  const p99 = /99%\s+([\d.]+\w+)/.exec(run.stdout)?.[1]
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(run.stdout)?.[1] ?? 0)
  const socketErrors = /Socket errors: (.*)/.exec(run.stdout)?.[1]
  if (non2xx > 0) throw new Error(`wrk ${url}: ${non2xx} answers were not 2xx (of ${/(\d+) requests in/.exec(run.stdout)?.[1]}); the figure would measure errors`)
  if (!Number.isFinite(rps) || rps === 0) throw new Error(`wrk ${url}: no requests/s in its output:\n${run.stdout}${run.stderr}`)
  return { rps, p50, p99, socketErrors }
}
