/**
 * kwok's Stage (kwok.x-k8s.io/v1alpha1): which objects it applies to (resourceRef, and a
 * selector of matchLabels, matchAnnotations and matchExpressions whose keys are jq queries),
 * after how long (delay with jitter), and what it does next (a status template, finalizers to
 * add, remove or empty, a deletion, an event). Read from YAML as kwok users write them.
 */
import { loadAllYaml } from '../../core/util/yaml.js'
import { GoTemplate } from './go-template.js'
import { compileQuery } from './jq-query.js'

type Obj = Record<string, unknown>

export interface StageNext {
  statusTemplate?: GoTemplate
  finalizers?: { add?: Array<{ value: string }>; remove?: Array<{ value: string }>; empty?: boolean }
  delete?: boolean
  event?: { type: string; reason: string; message: string }
}

export interface Stage {
  name: string
  apiGroup: string
  kind: string
  weight: number
  /** Milliseconds before the stage applies, and the most added at random on top. */
  delayMs: number
  jitterMs: number
  /** The object's own weight and delays (weightFrom, durationFrom, jitterDurationFrom), else the stage's. */
  weightFor(obj: Obj): number
  delayFor(obj: Obj): { delayMs: number; jitterMs: number }
  immediateNextStage: boolean
  matches(obj: Obj): boolean
  next: StageNext
}

interface Expression {
  key: string
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'
  values?: string[]
}

const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {})

/** The stages of a YAML text of one or more documents (other kinds are skipped). */
export function parseStages(text: string): Stage[] {
  return loadAllYaml(text)
    .map(asObj)
    .filter((doc) => doc.kind === 'Stage')
    .map(stageOf)
}

export function stageOf(doc: Obj): Stage {
  const spec = asObj(doc.spec)
  const ref = asObj(spec.resourceRef)
  const selector = asObj(spec.selector)
  const delay = asObj(spec.delay)
  const next = asObj(spec.next)
  const expressions = (Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []).map((e) => {
    const expr = e as Expression
    const query = compileQuery(expr.key)
    return (obj: Obj) => matchExpression(expr, query(obj))
  })
  const labels = asObj(selector.matchLabels) as Record<string, string>
  const annotations = asObj(selector.matchAnnotations) as Record<string, string>
  const fromObject = (from: unknown) => {
    const expr = asObj(from).expressionFrom
    return typeof expr === 'string' ? compileQuery(expr) : undefined
  }
  const weightFrom = fromObject(spec.weightFrom)
  const durationFrom = fromObject(delay.durationFrom)
  const jitterFrom = fromObject(delay.jitterDurationFrom)
  const weight = Number(spec.weight ?? 0)
  const delayMs = Number(delay.durationMilliseconds ?? 0)
  const jitterMs = Number(delay.jitterDurationMilliseconds ?? 0)
  const mapMatches = (want: Record<string, string>, have: unknown) => Object.entries(want).every(([k, v]) => asObj(have)[k] === v)
  return {
    name: String(asObj(doc.metadata).name ?? ''),
    apiGroup: String(ref.apiGroup ?? 'v1'),
    kind: String(ref.kind ?? ''),
    weight,
    delayMs,
    jitterMs,
    weightFor: (obj) => {
      const v = weightFrom?.(obj)[0]
      return v === undefined || !Number.isFinite(Number(v)) ? weight : Number(v)
    },
    delayFor: (obj) => ({ delayMs: durationOf(durationFrom?.(obj)[0]) ?? delayMs, jitterMs: durationOf(jitterFrom?.(obj)[0]) ?? jitterMs }),
    immediateNextStage: spec.immediateNextStage === true,
    matches: (obj) => {
      const meta = asObj(obj.metadata)
      return mapMatches(labels, meta.labels) && mapMatches(annotations, meta.annotations) && expressions.every((m) => m(obj))
    },
    next: {
      ...(typeof next.statusTemplate === 'string' ? { statusTemplate: GoTemplate.parse(next.statusTemplate) } : {}),
      ...(next.finalizers ? { finalizers: next.finalizers as StageNext['finalizers'] } : {}),
      ...(next.delete === true ? { delete: true } : {}),
      ...(next.event ? { event: next.event as StageNext['event'] } : {}),
    },
  }
}

/** kwok's requirement: values compared as text; In needs one in the list, NotIn none. */
function matchExpression(expr: Expression, found: unknown[]): boolean {
  const texts = found.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
  const values = expr.values ?? []
  switch (expr.operator) {
    case 'Exists':
      return found.length > 0
    case 'DoesNotExist':
      return found.length === 0
    case 'In':
      return texts.some((t) => values.includes(t))
    case 'NotIn':
      return !texts.some((t) => values.includes(t))
    default:
      return false
  }
}

/** A duration read from an object (kwok: a Go duration such as `5s`, `1m30s`, `500ms`, or a number of milliseconds). */
export function durationOf(v: unknown): number | undefined {
  if (typeof v === 'number') return v
  if (typeof v !== 'string' || v === '') return undefined
  if (/^\d+$/.test(v)) return Number(v)
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 }
  let total = 0
  let rest = v
  while (rest.length > 0) {
    const m = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/.exec(rest)
    if (!m) return undefined
    total += Number(m[1]) * unit[m[2]!]!
    rest = rest.slice(m[0].length)
  }
  return total
}

/** The stage kwok would apply to the object: of those matching, the heaviest (the first of equals). */
export function chooseStage(stages: readonly Stage[], obj: Obj): Stage | undefined {
  let best: Stage | undefined
  let bestWeight = -Infinity
  for (const stage of stages) {
    if (stage.kind !== obj.kind || !stage.matches(obj)) continue
    const w = stage.weightFor(obj)
    if (w > bestWeight) [best, bestWeight] = [stage, w]
  }
  return best
}
