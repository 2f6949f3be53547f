/**
 * `client health check` without oclif: the command's own class, bundled with
 * src/fast/oclif-lite.ts in place of @oclif/core (scripts/bundle-commands.js).
 */
import HealthCheck from '../commands/health/check.js'
import { runCommand } from './oclif-lite.js'
import type { FastContext, FastOutcome } from './outcome.js'

export function run(argv: readonly string[], context: FastContext): Promise<FastOutcome> {
  return runCommand(HealthCheck, 'health:check', argv, context)
}
