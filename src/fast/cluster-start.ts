/**
 * `client cluster start` without oclif, as `server start`'s fast entry (server-start.ts): the
 * command's oclif class only declares flags for --help and the manifest, and the server parses
 * its own command line.
 */
import { runServer } from '../server/main.js'
import type { FastContext, FastOutcome } from './outcome.js'

export async function run(argv: readonly string[], context: FastContext): Promise<FastOutcome> {
  return { exit: await runServer(argv, context.version, 'cluster') }
}
