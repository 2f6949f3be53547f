/**
 * `patch --local`: kubectl's RunPatch with no server. Validate the command line, turn the
 * patch text to JSON, read the objects (builder in continue-on-error mode), then for each
 * object: apply the patch, decide `patched` / `patched (no change)`, print. Per-object
 * failures are collected and reported at the end (one: `error: <msg>`; several: one per line,
 * no prefix), exit 1.
 */
import path from 'node:path'
// The client modules one by one, not the client/index.js barrel: `patch --local` starts
// without loading the connection and HTTP code, which only a server patch needs.
import { ClientrcError, applyCommandDefaults, clientrcFlag, loadPreferences } from '../client/clientrc.js'
import { type Profiler, startProfile } from '../client/profile.js'
import { type VersionRequest, clientVersionInfo, formatVersion, parseVersionFlag } from '../client/version.js'
import { CLIENT_OPTIONS } from '../options/catalogue/client.js'
import { PATCH_OPTIONS } from '../options/catalogue/patch.js'
import { goQuote } from './go-text.js'
import { type PatchCommandOptions, UsageError, parsePatchCommandLine } from './options.js'
import { LocalError, patchOne, readItems, readPatch } from './steps.js'
import type { PatchDeps, PatchIO, RunResult } from './types.js'

export type { RunResult } from './types.js'


/** Runs `patch` with `argv` (the arguments after `patch`); `program` is the binary's name. */
export async function runPatch(argv: readonly string[], program: string, io: PatchIO, deps: () => Promise<PatchDeps>): Promise<RunResult> {
  const fail = (message: string, hint?: string): RunResult => {
    io.err(`error: ${message}${message.endsWith('\n') ? '' : '\n'}${hint ? hint + '\n' : ''}`)
    return { exitCode: 1 }
  }
  const env = io.env ?? process.env
  // --version[=true|raw|false|vX.Y.Z] (verflag): printed before anything else runs.
  let version: VersionRequest = { kind: 'none' }
  let reported: string | undefined
  const rest: string[] = []
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') {
      rest.push(...argv.slice(i))
      break
    }
    const m = /^--version(?:=(.*))?$/s.exec(argv[i])
    if (!m) {
      rest.push(argv[i])
      continue
    }
    try {
      const request = parseVersionFlag(m[1])
      if (request.kind === 'set') reported = request.version
      else version = request
    } catch (err) {
      return fail((err as Error).message, `See '${program} patch --help' for usage.`)
    }
  }
  if (version.kind === 'print' || version.kind === 'raw') {
    io.out(formatVersion(clientVersionInfo(reported), version.kind === 'raw'))
    return { exitCode: 0 }
  }
  // The preferences file: defaults for `patch` (explicit flags win).
  let args: string[]
  try {
    const prefs = loadPreferences(clientrcFlag(rest), env, io.cwd)
    args = applyCommandDefaults(rest, 'patch', prefs, [...PATCH_OPTIONS, ...CLIENT_OPTIONS])
  } catch (err) {
    if (err instanceof ClientrcError) return fail(err.message)
    throw err
  }
  let options: PatchCommandOptions
  try {
    const outcome = parsePatchCommandLine(args, program)
    if (outcome.kind === 'help') return { exitCode: 0, help: true }
    for (const w of outcome.warnings) io.err(w)
    options = outcome.options
  } catch (err) {
    if (err instanceof UsageError) return fail(err.message, err.hint)
    throw err
  }
  options.reportedVersion = reported
  // --profile: started before the work, written when it ends (V8 formats, see client/profile.ts).
  const profileName = typeof options.all.get('profile') === 'string' ? (options.all.get('profile') as string) : 'none'
  const profileOutput = typeof options.all.get('profile-output') === 'string' ? (options.all.get('profile-output') as string) : 'profile.pprof'
  let profiler: Profiler
  try {
    profiler = await startProfile(profileName, path.resolve(io.cwd, profileOutput))
  } catch (err) {
    return fail(messageOf(err))
  }
  // The profile is written however the work ended. When both fail, both are reported: the
  // profile's error is printed, and the work's own exception still reaches the caller.
  let outcome: { result: RunResult } | { error: unknown }
  try {
    outcome = { result: await runOperation(options, io, deps, fail) }
  } catch (error) {
    outcome = { error }
  }
  let stopFailed = false
  try {
    await profiler.stop()
  } catch (err) {
    stopFailed = true
    fail(messageOf(err))
  }
  if ('error' in outcome) throw outcome.error
  return stopFailed ? { exitCode: 1 } : outcome.result
}

async function runOperation(options: PatchCommandOptions, io: PatchIO, deps: () => Promise<PatchDeps>, fail: (message: string) => RunResult): Promise<RunResult> {
  let engine: PatchDeps
  try {
    engine = await deps()
  } catch (err) {
    return fail(messageOf(err))
  }
  try {
    if (!options.local) {
      const { runServer } = await import('./server.js')
      return await runServer(options, io, engine)
    }
    return await runLocal(options, io, engine)
  } catch (err) {
    if (err instanceof LocalError) return fail(err.message)
    throw err
  }
}

async function runLocal(options: PatchCommandOptions, io: PatchIO, deps: PatchDeps): Promise<RunResult> {
  const { patch } = readPatch(options, io, deps)
  const items = await readItems(options, io, deps)

  const errors: string[] = []
  let count = 0
  for (const item of items) {
    if ('error' in item) {
      errors.push(item.error)
      continue
    }
    count++
    try {
      io.out(patchOne(item.object, patch, options, io, deps))
    } catch (err) {
      errors.push(messageOf(err))
    }
  }
  if (errors.length === 0 && count === 0) throw new LocalError('no objects passed to patch')
  if (errors.length === 1) throw new LocalError(errors[0])
  if (errors.length > 1) {
    io.err(errors.map((e) => (e.endsWith('\n') ? e : e + '\n')).join(''))
    return { exitCode: 1 }
  }
  return { exitCode: 0 }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

