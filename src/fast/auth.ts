/**
 * `client auth can-i` and `client auth who-can` without oclif: both parse their own command
 * line (pflag's rules), so nothing of the framework is needed to run them. Help goes back to
 * oclif, whose help plugin prints it.
 */
import { offlineAuthDeps } from '../cli/offline-auth-deps.js'
import { runCanI } from '../core/auth-can-i/run.js'
import { runWhoCan } from '../core/auth-can-i/run-who-can.js'
import { processIO } from '../core/patch-command/process-io.js'
import { allWrittenDirectly } from '../core/util/direct-output.js'
import type { FastContext, FastOutcome } from './outcome.js'

/** `argv` starts with the subcommand: `can-i ...` or `who-can ...`. */
export async function run(argv: readonly string[], context: FastContext): Promise<FastOutcome> {
  const [subcommand, ...rest] = argv
  const runner = subcommand === 'can-i' ? runCanI : subcommand === 'who-can' ? runWhoCan : undefined
  if (!runner) return { fallback: ['auth', ...argv] }
  const result = await runner(rest, context.bin, processIO(), offlineAuthDeps())
  if (result.help) return { fallback: ['help', 'auth', subcommand!] }
  process.exitCode = result.exitCode
  // The output is written (synchronously, to the descriptors): ending the process now spares
  // Node's teardown of the heap.
  return allWrittenDirectly() ? { exit: result.exitCode } : 'done'
}
