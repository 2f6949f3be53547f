/**
 * `client patch` without oclif: the command parses its own command line (pflag's rules), so
 * nothing of the framework is needed to run it. Help goes back to oclif, whose help plugin
 * prints it.
 */
import { processIO, runPatchCommand } from '../core/patch-command/index.js'
import { allWrittenDirectly } from '../core/util/direct-output.js'
import type { FastContext, FastOutcome } from './outcome.js'

export async function run(argv: readonly string[], context: FastContext): Promise<FastOutcome> {
  const result = await runPatchCommand(argv, context.bin, processIO())
  if (result.help) return { fallback: ['help', 'patch'] }
  process.exitCode = result.exitCode
  // The output is written (synchronously, to the descriptors): ending the process now spares
  // Node's teardown of the heap, a few milliseconds of a command run in loops.
  return allWrittenDirectly() ? { exit: result.exitCode } : 'done'
}
