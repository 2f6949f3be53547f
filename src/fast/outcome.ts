/**
 * The contract between bin/run.js and a fast command entry (src/fast/*.ts, bundled into
 * dist/fast/*.cjs and run without oclif).
 */

/** What bin/run.js knows without loading oclif: the binary's name and version (package.json). */
export interface FastContext {
  bin: string
  version: string
  root: string
}

/**
 * 'done' when the entry has run the command; `exit` when it has and the process must end now
 * with that status (a stopped server's timers and sockets must not keep it alive; a short
 * command whose output is all written need not wait for Node's tear-down); otherwise
 * the command line oclif must run instead. An entry hands over only before it has printed or
 * changed anything.
 */
export type FastOutcome = 'done' | { exit: number } | { fallback: string[] }
