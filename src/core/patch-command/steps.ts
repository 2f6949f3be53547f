/**
 * The steps `patch` takes with and without a server alike: read the patch, read the objects of
 * -f/-k, patch one object, print the result as kubectl does. `run.ts` (local) and `server.ts`
 * both build on these, so neither imports the other.
 */
import fs from 'node:fs'
import path from 'node:path'
import { type InputItem, isRecord, readSources, resolveSources } from './inputs.js'
import { buildKustomization } from './kustomize.js'
import type { PatchCommandOptions } from './options.js'
import type { PatchDeps, PatchIO, Value } from './types.js'

const LOCAL_ERROR = Symbol.for('client.patch-command.LocalError')

/** A failure that ends the command before or instead of the per-object loop. */
export class LocalError extends Error {
  /**
   * The server half of the command is a bundle of its own in the fast entry
   * (scripts/bundle-commands.js), with its own copy of this class: `instanceof` recognizes a
   * LocalError of either copy.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [LOCAL_ERROR]?: boolean })[LOCAL_ERROR] === true
  }
}
Object.defineProperty(LocalError.prototype, LOCAL_ERROR, { value: true })

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
