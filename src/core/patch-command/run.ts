/**
 * `patch --local`: kubectl's RunPatch with no server. Validate the command line, turn the
 * patch text to JSON, read the objects (builder in continue-on-error mode), then for each
 * object: apply the patch, decide `patched` / `patched (no change)`, print. Per-object
 * failures are collected and reported at the end (one: `error: <msg>`; several: one per line,
 * no prefix), exit 1.
 */
import fs from 'node:fs'
import path from 'node:path'
import {
  ClientrcError,
  type Profiler,
  type VersionRequest,
  applyCommandDefaults,
  clientVersionInfo,
  clientrcFlag,
  formatVersion,
  loadPreferences,
  parseVersionFlag,
  startProfile,
} from '../client/index.js'
import { CLIENT_OPTIONS } from '../options/catalogue/client.js'
import { PATCH_OPTIONS } from '../options/catalogue/patch.js'
import { goQuote } from './go-text.js'
import { type InputItem, isRecord, readSources, resolveSources } from './inputs.js'
import { buildKustomization } from './kustomize.js'
import { type PatchCommandOptions, UsageError, parsePatchCommandLine } from './options.js'
import type { PatchDeps, PatchIO, Value } from './types.js'

export interface RunResult {
  exitCode: number
  /** Set when `-h`/`--help` was asked for: the caller shows the command's help. */
  help?: boolean
}

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

/** A failure that ends the command before or instead of the per-object loop. */
export class LocalError extends Error {}

/** The patch text (`-p` or `--patch-file`), and the patch parsed by the engine. */
export function readPatch(options: PatchCommandOptions, io: PatchIO, deps: PatchDeps): { text: string; patch: unknown } {
  // The patch text, then kubectl's "to JSON" step (errors quote the -p flag, even with --patch-file).
  let patchText = options.patch
  if (options.patchFile !== '') {
    try {
      patchText = fs.readFileSync(path.resolve(io.cwd, options.patchFile), 'utf8')
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      const reason = code === 'ENOENT' ? 'no such file or directory' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : (err as Error).message
      throw new LocalError(`unable to read patch file: ${code === 'EISDIR' ? 'read' : 'open'} ${options.patchFile}: ${reason}`)
    }
  }
  let patch: unknown
  try {
    patch = deps.parsePatch(patchText, options.type, options.patchFile !== '')
  } catch (err) {
    // The engine's message is kubectl's whole text (`unable to parse "<patch>": ...`).
    throw new LocalError((err as Error).message)
  }
  return { text: patchText, patch }
}

/** The objects named by -f/-k, in order; per-object read errors as items. Throws LocalError. */
export async function readItems(options: PatchCommandOptions, io: PatchIO, deps: PatchDeps): Promise<InputItem[]> {
  // The builder: -f/-k checks and path checks fail the whole command before any object.
  const problems: string[] = []
  if (options.filenames.length > 0 && options.kustomize !== '') problems.push('only one of -f or -k can be specified')
  if (options.kustomize !== '' && options.recursive) problems.push("the -k flag can't be used with -f or -R")
  if (problems.length === 1) throw new LocalError(problems[0])
  if (problems.length > 1) throw new LocalError(`[${problems.join(', ')}]`)
  let items: InputItem[]
  if (options.kustomize !== '') {
    const built = buildKustomization(path.resolve(io.cwd, options.kustomize), options.kustomize, deps)
    if ('error' in built) throw new LocalError(built.error)
    for (const w of built.warnings) io.err(w)
    items = built.objects.map((object) => ({ object, source: options.kustomize }))
  } else {
    if (options.filenames.length === 0) {
      throw new LocalError(
        "You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'",
      )
    }
    let sources
    try {
      sources = resolveSources(options.filenames, options.recursive, io)
    } catch (err) {
      throw new LocalError((err as Error).message)
    }
    items = await readSources(sources, deps)
  }
  return items
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

export function patchOne(object: Record<string, Value>, patch: unknown, options: PatchCommandOptions, io: PatchIO, deps: PatchDeps): string {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : ''
  const kind = object.kind as string
  const meta = isRecord(object.metadata) ? object.metadata : {}
  const name = typeof meta.name === 'string' ? meta.name : ''
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : ''
  if (options.namespace !== undefined && namespace !== '' && namespace !== options.namespace) {
    throw new Error(
      `the namespace from the provided object ${JSON.stringify(namespace)} does not match the namespace ${JSON.stringify(options.namespace)}. You must pass '--namespace=${namespace}' to perform this operation.`,
    )
  }
  if (options.type === 'strategic' && !deps.isBuiltIn(apiVersion, kind)) {
    const slash = apiVersion.lastIndexOf('/')
    const gv = slash === -1 ? `/${apiVersion}` : apiVersion
    throw new Error(`strategic merge patch is not supported for ${gv}, Kind=${kind} locally, try --type merge`)
  }
  const patched = deps.applyPatch(object, patch, options.type)
  // The result is decoded back as an unstructured object.
  if (!isRecord(patched)) {
    throw new Error(`json: cannot unmarshal ${Array.isArray(patched) ? 'array' : typeof patched === 'string' ? 'string' : patched === null ? 'null' : 'number'} into Go value of type unstructured.detector`)
  }
  if (typeof patched.kind !== 'string' || patched.kind === '') throw new Error(`Object 'Kind' is missing in '${deps.compactJson(patched)}'`)
  const changed = !deps.equal(object, patched)

  void name
  return printPatched(patched, changed, options, io, deps)
}

/** What kubectl prints for a patched object: `<resource>/<name> patched[ (no change)]`, or the object through `-o`. */
export function printPatched(patched: Record<string, Value>, changed: boolean, options: PatchCommandOptions, io: PatchIO, deps: PatchDeps): string {
  const pApiVersion = typeof patched.apiVersion === 'string' ? patched.apiVersion : ''
  const pMeta = isRecord(patched.metadata) ? patched.metadata : {}
  const resource = resourceOf(pApiVersion, typeof patched.kind === 'string' ? patched.kind : '')
  if (options.output === '') {
    const pName = typeof pMeta.name === 'string' && pMeta.name !== '' ? pMeta.name : '<unknown>'
    return `${resource}/${pName} ${changed ? 'patched' : 'patched (no change)'}\n`
  }
  const printer = deps.createPrinter({
    output: options.output,
    template: options.template,
    allowMissingTemplateKeys: options.allowMissingTemplateKeys,
    showManagedFields: options.showManagedFields,
    readFile: (p) => fs.readFileSync(path.resolve(io.cwd, p), 'utf8'),
  })
  return printer.print(patched, { resource })
}

/** `<kind lowercased>[.<group>]`: the group is left out for the core group. */
export function resourceOf(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/')
  const group = slash === -1 ? '' : apiVersion.slice(0, slash)
  return group === '' ? kind.toLowerCase() : `${kind.toLowerCase()}.${group}`
}
