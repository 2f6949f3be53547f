/**
 * `client patch` without oclif: the command parses its own command line (pflag's rules), so
 * nothing of the framework is needed to run it. Help goes back to oclif, whose help plugin
 * prints it.
 */
import { processIO, runPatchCommand } from '../../core/patch-command/index.js'
import type { FastContext, FastOutcome } from './outcome.js'

export async function run(argv: readonly string[], context: FastContext): Promise<FastOutcome> {
  const result = await runPatchCommand(argv, context.bin, processIO())
  if (result.help) return { fallback: ['help', 'patch'] }
  process.exitCode = result.exitCode
  return 'done'
}
