/**
 * `client flags validate` without oclif: the command's own class, bundled with
 * src/fast/oclif-lite.ts in place of @oclif/core (scripts/bundle-commands.js).
 */
import FlagsValidate from '../commands/flags/validate.js'
import { allWrittenDirectly } from '../core/util/direct-output.js'
import { runCommand } from './oclif-lite.js'
import type { FastContext, FastOutcome } from './outcome.js'

export async function run(argv: readonly string[], context: FastContext): Promise<FastOutcome> {
  const outcome = await runCommand(FlagsValidate, 'flags:validate', argv, context)
  // The output is written (synchronously, to the descriptors): ending the process now spares
  // Node's teardown of the heap, a few milliseconds of a command run in loops.
  if (outcome === 'done' && allWrittenDirectly()) return { exit: Number(process.exitCode ?? 0) }
  return outcome
}
