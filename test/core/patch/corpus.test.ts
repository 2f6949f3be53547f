/**
 * The recorded kubectl corpus (test/fixtures/patch-conformance/cases, imported by
 * scripts/import-patch-conformance.mjs), run directly against the
 * engine: every `--local` case printed with `-o json`, and every failing case whose error comes
 * from the patch engine (patch parsing / applying). Output formatting, flag handling and input
 * decoding errors belong to the command and the printers and are not checked here.
 */
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { describe, it } from 'mocha'

import { PatchError, type PatchType, applyPatch, goMarshal, parseGoJson, parseGoYaml, parsePatch } from '../../../src/core/patch/index.js'

const DIR = new URL('../../fixtures/patch-conformance/cases/', import.meta.url)

interface Case {
  id: string
  description: string
  patchType: string
  patch: string | null
  patchFile: string | null
  files: Record<string, string>
  stdin: string | null
  args: string[]
  expected: { exitCode: number; stdout: string; stderr: string }
}

/** Failures that are not the engine's business (flags, input decoding, printers). */
const NOT_ENGINE = new Set([
  '200-output-invalid-format-error',
  '211-namespace-flag-mismatch-error',
  '220-error-no-patch',
  '221-error-bad-type',
  '223-error-missing-input-file',
  '224-error-missing-patch-file',
  '227-error-local-with-resource-args',
  '229-error-empty-input-file',
  '230-error-input-without-kind',
  '233-error-unknown-flag',
  '235-error-input-metadata-name-not-string',
])

/** Cases the engine does not reproduce yet: id → reason. */
const KNOWN_GAPS: Record<string, string> = {}

function flagValue(args: string[], ...names: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    for (const n of names) {
      if (args[i] === n) return args[i + 1]
      if (args[i].startsWith(n + '=')) return args[i].slice(n.length + 1)
      if (n.length === 2 && args[i].startsWith(n) && args[i].length > 2) return args[i].slice(2)
    }
  }
  return undefined
}

/** Splits a YAML stream into documents and flattens `kind: List` (as the resource builder does). */
function readObjects(text: string, name: string): Record<string, unknown>[] {
  const docs: unknown[] = []
  if (/^\s*[{[]/.test(text) && name.endsWith('.json')) docs.push(parseGoJson(text))
  else for (const part of text.split(/^---\s*$/m)) if (part.trim() !== '') docs.push(parseGoYaml(part))
  const out: Record<string, unknown>[] = []
  for (const d of docs) {
    if (d === null) continue
    const o = d as Record<string, unknown>
    if (o.kind === 'List' && Array.isArray(o.items)) out.push(...(o.items as Record<string, unknown>[]))
    else out.push(o)
  }
  return out
}

/** A stream of indented JSON documents back to back. */
function splitJsonStream(text: string): unknown[] {
  const docs: unknown[] = []
  for (const part of text.split(/^(?=[{[])/m)) if (part.trim()) docs.push(parseGoJson(part))
  return docs
}

function formatErrors(errors: string[]): string {
  const line = (m: string) => (m.endsWith('\n') ? m : m + '\n')
  if (errors.length === 1) return 'error: ' + line(errors[0])
  return errors.map(line).join('')
}

function runCase(c: Case): { outputs: unknown[]; errors: string[] } {
  const type = (flagValue(c.args, '--type') ?? 'strategic').toLowerCase() as PatchType
  const input = flagValue(c.args, '-f', '--filename')!
  const text = input === '-' ? (c.stdin ?? '') : c.files[input]
  const outputs: unknown[] = []
  const errors: string[] = []
  let patch: unknown
  try {
    patch = parsePatch(c.patch ?? '', type, { fromFile: c.patchFile !== null })
  } catch (e) {
    if (e instanceof PatchError) return { outputs, errors: [e.message] }
    throw e
  }
  for (const obj of readObjects(text, input)) {
    try {
      const result = applyPatch(obj, patch, type)
      if (!c.args.includes('--show-managed-fields')) {
        const meta = result.metadata as Record<string, unknown> | undefined
        if (meta && typeof meta === 'object') delete meta.managedFields
      }
      outputs.push(result)
    } catch (e) {
      if (e instanceof PatchError) errors.push(e.message)
      else throw e
    }
  }
  return { outputs, errors }
}

const cases: Case[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(new URL(f, DIR), 'utf8')) as Case)

const jsonOutput = (c: Case) => flagValue(c.args, '-o', '--output') === 'json'
const selected = cases.filter(
  (c) => c.args.includes('--local') && !NOT_ENGINE.has(c.id) && (jsonOutput(c) || c.expected.exitCode !== 0) && flagValue(c.args, '-f', '--filename') !== undefined,
)

describe('patch engine: kubectl corpus', () => {
  it('selects the engine cases of the corpus', () => {
    assert.ok(selected.length >= 100, `only ${selected.length} cases selected`)
  })
  for (const c of selected) {
    const gap = KNOWN_GAPS[c.id]
    if (gap) {
      it.skip(`${c.id} — KNOWN GAP: ${gap}`, () => {})
      continue
    }
    it(`${c.id}: ${c.description}`, () => {
      const { outputs, errors } = runCase(c)
      if (c.expected.exitCode === 0) assert.deepEqual(errors, [], 'no error expected')
      else assert.equal(formatErrors(errors), c.expected.stderr)
      if (jsonOutput(c)) {
        const expected = splitJsonStream(c.expected.stdout).map(goMarshal)
        assert.deepEqual(outputs.map(goMarshal), expected)
      }
    })
  }
})
