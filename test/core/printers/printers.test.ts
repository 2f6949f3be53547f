import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createPrinter, parseGoJson, PrinterError, type PrintOptions } from '../../../src/core/printers/index.js'

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/printers')

interface Case {
  id: string
  input: string
  args: string[]
  files?: Record<string, string>
  expected: { stdout: string; stderr: string; exitCode: number }
}
const cases = JSON.parse(readFileSync(join(fixtures, 'expected.json'), 'utf8')) as Case[]

/** kubectl iterates Go maps in random order for `..` and `.*`: compare those outputs as word multisets. */
const UNORDERED = new Set(['jsonpath-recursive', 'jsonpath-recursive-image', 'jsonpath-wildcard-map'])

/** Recorded cases we do not match yet, with the reason. */
const KNOWN_GAPS: Record<string, string> = {}

function loadObject(input: string): Record<string, unknown> {
  const file = input.endsWith('.json') ? join(fixtures, 'inputs', input) : join(fixtures, 'objects', input.replace(/\.yaml$/, '.json'))
  return parseGoJson(readFileSync(file, 'utf8')) as Record<string, unknown>
}

function optionsFrom(c: Case): PrintOptions {
  const o: PrintOptions = { allowMissingTemplateKeys: true, showManagedFields: false }
  for (let i = 0; i < c.args.length; i++) {
    const a = c.args[i]!
    if (a === '-o') o.output = c.args[++i]
    else if (a.startsWith('--output=')) o.output = a.slice('--output='.length)
    else if (a.startsWith('--template=')) o.template = a.slice('--template='.length)
    else if (a === '--allow-missing-template-keys=false') o.allowMissingTemplateKeys = false
    else if (a === '--show-managed-fields') o.showManagedFields = true
    else throw new Error(`unhandled arg ${a}`)
  }
  o.readFile = (p) => {
    const content = c.files?.[p]
    if (content === undefined) throw Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' })
    return content
  }
  return o
}

/** What `kubectl patch --local ... -p '{}'` would print with our printers (stdout, stderr, exit code). */
function run(c: Case): { stdout: string; stderr: string; exitCode: number } {
  const fail = (e: unknown, stdout = '') => {
    if (!(e instanceof PrinterError)) throw e
    return { stdout: stdout + e.partialOutput, stderr: `error: ${e.message}${e.message.endsWith('\n') ? '' : '\n'}`, exitCode: 1 }
  }
  const options = optionsFrom(c)
  let printer
  try {
    printer = createPrinter(options)
  } catch (e) {
    return fail(e)
  }
  const object = loadObject(c.input)
  try {
    return { stdout: printer.print(object, { operation: 'patched (no change)' }), stderr: '', exitCode: 0 }
  } catch (e) {
    return fail(e)
  }
}

const words = (s: string) => s.split(' ').sort()

describe('printers: kubectl-recorded outputs', () => {
  for (const c of cases) {
    const title = `${c.id}: ${c.args.join(' ')}`
    if (KNOWN_GAPS[c.id]) {
      it.skip(`${title} [KNOWN GAP: ${KNOWN_GAPS[c.id]}]`, () => {})
      continue
    }
    it(title, () => {
      const got = run(c)
      if (UNORDERED.has(c.id)) {
        assert.deepEqual(words(got.stdout), words(c.expected.stdout))
        assert.equal(got.exitCode, c.expected.exitCode)
        return
      }
      assert.equal(got.stdout, c.expected.stdout)
      assert.equal(got.stderr, c.expected.stderr)
      assert.equal(got.exitCode, c.expected.exitCode)
    })
  }
})

/**
 * Cases of the `kubectl patch --local` corpus whose printed object we can rebuild here (merge of
 * `data`), read from the copy in the repository (scripts/import-patch-conformance.mjs makes it).
 */
describe('printers: conformance corpus output cases', () => {
  const corpus = join(fixtures, '../patch-conformance/cases')
  const base = loadObject('configmap-strings.yaml')
  for (const id of ['196-output-yaml-tricky-strings', '197-output-json-tricky-strings', '200-output-invalid-format-error']) {
    it(id, () => {
      const c = JSON.parse(readFileSync(join(corpus, `${id}.json`), 'utf8')) as { patch: string; args: string[]; expected: { stdout: string; stderr: string } }
      const output = c.args[c.args.indexOf('-o') + 1]!
      let printer
      try {
        printer = createPrinter({ output, allowMissingTemplateKeys: true, showManagedFields: false })
      } catch (e) {
        assert.equal(`error: ${(e as Error).message}\n`, c.expected.stderr)
        return
      }
      const patch = parseGoJson(c.patch) as { data?: Record<string, unknown> }
      const obj = { ...base, data: { ...(base.data as object), ...patch.data } }
      assert.equal(printer.print(obj, {}), c.expected.stdout)
    })
  }
  it('217 managed fields shown (json round trip)', () => {
    const c = JSON.parse(readFileSync(join(corpus, '217-managed-fields-shown.json'), 'utf8')) as { expected: { stdout: string } }
    const obj = parseGoJson(c.expected.stdout) as Record<string, unknown>
    assert.equal(createPrinter({ output: 'json', allowMissingTemplateKeys: true, showManagedFields: true }).print(obj, {}), c.expected.stdout)
  })
})

describe('printers: API details', () => {
  it('-o name uses context.resource when given', () => {
    const p = createPrinter({ output: 'name', allowMissingTemplateKeys: true, showManagedFields: false })
    assert.equal(p.print({ kind: 'Deployment', apiVersion: 'apps/v1', metadata: { name: 'x' } }, { resource: 'deployment.apps' }), 'deployment.apps/x\n')
    assert.equal(p.print({ kind: 'Pod', apiVersion: 'v1', metadata: {} }, {}), 'pod/<unknown>\n')
  })
  it('int64 beyond 2^53 survives via bigint', () => {
    const p = createPrinter({ output: 'json', allowMissingTemplateKeys: true, showManagedFields: false })
    assert.equal(p.print({ a: 9007199254740993n } as Record<string, unknown>, {}), '{\n    "a": 9007199254740993\n}\n')
  })
  it('kyaml is rejected like kubectl 1.32', () => {
    assert.throws(() => createPrinter({ output: 'kyaml', allowMissingTemplateKeys: true, showManagedFields: false }), PrinterError)
  })
})
