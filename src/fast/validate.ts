/**
 * `client validate` without oclif: the command's own class, bundled with
 * src/fast/oclif-lite.ts in place of @oclif/core (scripts/bundle-commands.js), and with the
 * server's API, admission and store code it validates with, compiled from a code cache.
 */
import Validate from '../commands/validate.js'
import { allWrittenDirectly } from '../core/util/direct-output.js'
import { runCommand } from './oclif-lite.js'
import type { FastContext, FastOutcome } from './outcome.js'

export async function run(argv: readonly string[], context: FastContext): Promise<FastOutcome> {
  const outcome = await runCommand(Validate, 'validate', argv, context)
  // Everything is written to the descriptors: end now, without the teardown of the heap.
  if (outcome === 'done' && allWrittenDirectly()) return { exit: Number(process.exitCode ?? 0) }
  return outcome
}
