/**
 * The Dangling condition the reference's APF configuration controller keeps on every
 * FlowSchema (presyncFlowSchemaStatus): True with reason NotFound when the priority level it
 * names does not exist (the schema is then ignored), False with reason Found when it does.
 * This finds the schemas whose stored condition differs from that; the server writes them
 * through the status subresource, as the controller does with server-side apply.
 */
import type { FlowObject } from './flow-schemas.js'

export interface DanglingCondition {
  type: 'Dangling'
  status: 'True' | 'False'
  reason: 'NotFound' | 'Found'
  message: string
}

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {})

export function danglingCondition(levelName: string, exists: boolean): DanglingCondition {
  return exists
    ? { type: 'Dangling', status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named "${levelName}" and it exists` }
    : { type: 'Dangling', status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named "${levelName}" but there is no such object` }
}

/** The schemas whose Dangling condition should change, with the condition they should have. */
export function danglingUpdates(schemas: readonly FlowObject[], levels: readonly FlowObject[]): Array<{ name: string; condition: DanglingCondition }> {
  const levelNames = new Set(levels.map((l) => l.metadata.name))
  const updates: Array<{ name: string; condition: DanglingCondition }> = []
  for (const schema of schemas) {
    const levelName = String(obj(obj(schema.spec).priorityLevelConfiguration).name ?? '')
    const wanted = danglingCondition(levelName, levelNames.has(levelName))
    const conditions = (obj((schema as { status?: unknown }).status).conditions ?? []) as unknown[]
    const current = obj(conditions.map(obj).find((c) => c.type === 'Dangling'))
    if (current.status === wanted.status && current.reason === wanted.reason && current.message === wanted.message) continue
    updates.push({ name: schema.metadata.name ?? '', condition: wanted })
  }
  return updates
}
