/**
 * kwok's own stage fixtures (test/fixtures/kwok-stages, copied by scripts/copy-kwok-stages.mjs):
 * each `testdata/*.input.yaml` is an object, and its `*.output.yaml` what kwok's default stages
 * of that folder do to it (the matching stages, each with its steps). The stage engine's plan
 * for the same object must be the same, field by field. As kwok's own test does, the functions
 * that read the clock or the cluster's addresses answer placeholders (`<Now>`, `<NodeIP>`,
 * `<0 of PodIPsWith(...)>`), so the comparison is of everything else.
 */
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { loadYaml } from '../../../src/core/util/yaml.js'
import type { FuncMap } from '../../../src/server/simnodes/go-template.js'
import { parseStages } from '../../../src/server/simnodes/stage.js'
import { planStages } from '../../../src/server/simnodes/stage-plan.js'
import { NODE_CONDITIONS, quote, yaml } from '../../../src/server/simnodes/template-funcs.js'

const ROOT = 'test/fixtures/kwok-stages'

/** Go's %q of a string, %v of the rest, as kwok's placeholders print arguments. */
const goArg = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v))
const placeholders = (name: string, ...args: unknown[]) => [0, 1].map((i) => `<${i} of ${name}(${args.map(goArg).join(', ')})>`)

const FUNCS: FuncMap = {
  Quote: quote,
  YAML: yaml,
  NodeConditions: () => NODE_CONDITIONS.map((c) => ({ ...c })),
  Now: () => '<Now>',
  Version: () => '<Version>',
  NodeName: () => '<NodeName>',
  NodeIP: () => '<NodeIP>',
  NodePort: () => '<NodePort>',
  NodeIPsWith: (...args) => placeholders('NodeIPsWith', ...args),
  PodIPsWith: (...args) => placeholders('PodIPsWith', ...args),
}

function fixtures(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? fixtures(join(dir, e.name)) : e.name.endsWith('.input.yaml') ? [join(dir, e.name)] : []))
}

describe('simulated nodes: kwok stage fixtures', () => {
  const inputs = fixtures(ROOT)
  it('has the fixtures', () => assert.ok(inputs.length >= 4, `${inputs.length} fixtures`))
  for (const input of inputs) {
    it(input.slice(ROOT.length + 1), () => {
      const stageDir = dirname(dirname(input))
      const stages = readdirSync(stageDir)
        .filter((f) => f.endsWith('.yaml'))
        .sort()
        .flatMap((f) => parseStages(readFileSync(join(stageDir, f), 'utf8')))
      const obj = loadYaml(readFileSync(input, 'utf8')) as Record<string, unknown>
      const want = loadYaml(readFileSync(input.replace('.input.yaml', '.output.yaml'), 'utf8')) as Record<string, unknown>
      const got = { apiGroup: 'v1', kind: obj.kind, name: (obj.metadata as { name: string }).name, stages: planStages(stages, obj, FUNCS) }
      assert.deepEqual(got, want)
    })
  }
})
