/**
 * `client server start` without oclif. The command's oclif class only declares flags for
 * --help and the manifest and hands its raw command line to the server (which parses and
 * checks it itself), so the fast entry does the same: loading and configuring oclif cost a
 * tenth of a second of the server's start-up. Bundled with the server into one CommonJS file
 * compiled with a code cache (scripts/bundle-commands.js), so that the server's modules are
 * neither resolved one by one nor compiled from scratch on every start.
 */
import { runServer } from '../server/main.js'
import type { FastContext, FastOutcome } from './outcome.js'

export async function run(argv: readonly string[], context: FastContext): Promise<FastOutcome> {
  // Timers and sockets of a stopped server must not keep the process alive: bin/run.js exits.
  return { exit: await runServer(argv, context.version) }
}
