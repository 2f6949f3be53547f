/**
 * What a stage does to one object, as kwok's stage testdata records it: the stages matching the
 * object and, for each, its steps (an event, a patch of the finalizers, a deletion, a JSON merge
 * patch of the status rendered from the status template). Pure: the engine (stage-engine.ts)
 * applies the steps; the kwok fixture test compares them with kwok's recorded output.
 */
import { loadYaml } from '../../core/util/yaml.js'
import type { FuncMap } from './go-template.js'
import type { Stage } from './stage.js'

type Obj = Record<string, unknown>

export type StageStep =
  | { kind: 'patch'; subresource?: 'status'; type: 'application/merge-patch+json'; data: Obj }
  | { kind: 'delete' }
  | { kind: 'event'; event: { type: string; reason: string; message: string } }

export interface StagePlan {
  stage: string
  weight: number
  next: StageStep[]
}

/** The stages of `stages` that apply to `obj`, in order, each with its steps. */
export function planStages(stages: readonly Stage[], obj: Obj, funcs: FuncMap): StagePlan[] {
  const kind = String(obj.kind ?? '')
  return stages.filter((s) => s.kind === kind && s.matches(obj)).map((s) => ({ stage: s.name, weight: s.weight, next: stageSteps(s, obj, funcs) }))
}

export function stageSteps(stage: Stage, obj: Obj, funcs: FuncMap): StageStep[] {
  const steps: StageStep[] = []
  const { next } = stage
  if (next.event) steps.push({ kind: 'event', event: next.event })
  const finalizers = finalizersAfter(next.finalizers, ((obj.metadata as Obj | undefined)?.finalizers as string[] | undefined) ?? [])
  if (finalizers) steps.push({ kind: 'patch', type: 'application/merge-patch+json', data: { metadata: { finalizers } } })
  if (next.delete) {
    steps.push({ kind: 'delete' })
    return steps
  }
  if (next.statusTemplate) {
    const status = loadYaml(next.statusTemplate.render(obj, funcs)) ?? {}
    steps.push({ kind: 'patch', subresource: 'status', type: 'application/merge-patch+json', data: { status } })
  }
  return steps
}

/** The finalizers after the stage's changes, or undefined when they do not change. */
function finalizersAfter(change: Stage['next']['finalizers'], current: string[]): string[] | null | undefined {
  if (!change) return undefined
  let next = change.empty ? [] : [...current]
  for (const { value } of change.remove ?? []) next = next.filter((f) => f !== value)
  for (const { value } of change.add ?? []) if (!next.includes(value)) next.push(value)
  if (next.length === current.length && next.every((f, i) => f === current[i])) return undefined
  return next.length === 0 ? null : next
}
