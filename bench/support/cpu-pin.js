// CPU pinning for benches that compare a server with a baseline under a load generator.
//
// Why: on this 2-core machine the scheduler moves the server, its baseline and the load
// generator between the cores, and two back-to-back runs of the same bare Node HTTPS server
// under wrk measured 15,000 and 29,000 requests/s (load average about 1). With the server (or
// the baseline in its turn) on the first half of the CPUs and the load generator on the rest,
// three pairs of runs measured 32.2k/30.3k, 32.3k/29.8k and 28.1k/26.9k: the comparison the
// ratio rests on holds. Both sides of a ratio get the same CPUs, so pinning is fair to both.
//
// `BENCH_PIN=0` turns it off; it is also off with fewer than 2 CPUs or without `taskset`
// (util-linux).
import { spawnSync } from 'node:child_process'
import { availableParallelism } from 'node:os'

const cpus = availableParallelism()
const hasTaskset = spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0
/** Whether benches pin their processes. */
export const pinning = process.env.BENCH_PIN !== '0' && cpus >= 2 && hasTaskset

const half = Math.max(1, Math.floor(cpus / 2))
const range = (from, to) => (from === to ? `${from}` : `${from}-${to}`)
/** The CPU list (taskset's syntax) of each role: the measured process, and what loads it. */
export const CPU_SETS = { server: range(0, half - 1), load: range(half, cpus - 1) }

/**
 * `[command, args]` that run `command args` pinned to the CPUs of `role` ('server' for the
 * process measured or its baseline, 'load' for the load generator). taskset execs the
 * command, so a spawned child's pid is the command's own.
 */
export function pinned(command, args, role) {
  if (!pinning) return [command, args]
  return ['taskset', ['-c', CPU_SETS[role], command, ...args]]
}

/** Pins a running process and all its threads (threads it starts later inherit it). */
export function pinPid(pid, role) {
  if (!pinning) return
  const run = spawnSync('taskset', ['-a', '-p', '-c', CPU_SETS[role], String(pid)], { stdio: 'ignore' })
  if (run.status !== 0) throw new Error(`taskset could not pin process ${pid} to CPUs ${CPU_SETS[role]}`)
}

/** A line for a bench's header saying how its processes were placed. */
export function pinningNote() {
  return pinning
    ? `measured process and its baseline on CPU ${CPU_SETS.server}, the load generator on CPU ${CPU_SETS.load} (BENCH_PIN=0 turns this off)`
    : 'processes not pinned to CPUs'
}

/** Lets a process pinned by `pinPid` (and all its threads) run on every CPU again. */
export function unpinPid(pid) {
  if (!pinning) return
  const run = spawnSync('taskset', ['-a', '-p', '-c', range(0, cpus - 1), String(pid)], { stdio: 'ignore' })
  if (run.status !== 0) throw new Error(`taskset could not unpin process ${pid}`)
}
