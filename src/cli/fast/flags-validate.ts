/**
 * `client flags validate` without oclif: the command's own class, bundled with
 * src/cli/fast/oclif-lite.ts in place of @oclif/core (scripts/bundle-commands.js).
 */
import FlagsValidate from '../../commands/flags/validate.js'
import { runCommand } from './oclif-lite.js'
import type { FastContext, FastOutcome } from './outcome.js'

export function run(argv: readonly string[], context: FastContext): Promise<FastOutcome> {
  return runCommand(FlagsValidate, 'flags:validate', argv, context)
}
