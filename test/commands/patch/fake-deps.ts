/**
 * Stand-ins for the patch engine and the printers, just good enough to exercise the
 * command pipeline (argument checks, inputs, messages, exit codes) in-process.
 */
import jsYaml from 'js-yaml'
import fastJsonPatch, { type Operation } from 'fast-json-patch'

const applyJsonPatch = fastJsonPatch.applyPatch
import type { PatchDeps, Value } from '../../../src/core/patch-command/types.js'

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {}
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k]
    else out[k] = mergePatch(out[k], v)
  }
  return out
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys)
  if (isRecord(v)) return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]))
  return v
}

const equal = (a: unknown, b: unknown) => JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b))

export const fakeDeps: PatchDeps = {
  decodeYaml: (text) => (jsYaml.load(text) ?? null) as Value,
  decodeJson: (text) => JSON.parse(text) as Value,
  compactJson: (v) => JSON.stringify(sortKeys(v)),
  parsePatch: (text) => {
    const t = text.trimStart()
    if (t.startsWith('{')) return t
    return JSON.stringify(jsYaml.load(text))
  },
  applyPatch: (original, patch, type) => {
    const p = JSON.parse(patch as string) as unknown
    if (type === 'json') return applyJsonPatch(structuredClone(original), p as Operation[]).newDocument
    return mergePatch(original, p)
  },
  isBuiltIn: (apiVersion) => ['v1', 'apps/v1', 'batch/v1'].includes(apiVersion),
  equal,
  createPrinter: ({ output }) => ({
    print: (object, { resource }) => {
      const o = object as { metadata?: { name?: string } }
      if (output === 'name') return `${resource}/${o.metadata?.name ?? ''}\n`
      if (output === 'json') return JSON.stringify(sortKeys(object), null, 4) + '\n'
      throw new Error(`unable to match a printer suitable for the output format ${JSON.stringify(output)}, allowed formats are: go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,yaml`)
    },
  }),
}
