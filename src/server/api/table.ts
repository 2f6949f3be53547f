/**
 * The `Table` form (meta.k8s.io/v1) `kubectl get` asks for, with rows computed from each kind's
 * column definitions, the reference's human-readable ages, and the row objects
 * (PartialObjectMetadata by default, the full object with includeObject=Object).
 */
import type { KubeObject } from './registry/object.js'

export interface ColumnDefinition {
  name: string
  type: string
  format: string
  description: string
  priority: number
}

export interface TableColumns {
  definitions: ColumnDefinition[]
  cells(obj: KubeObject, now: number): unknown[]
  /** The order of a list's rows where the reference's printer sorts them (FlowSchemas by precedence). */
  order?(a: KubeObject, b: KubeObject): number
}

export type IncludeObject = 'None' | 'Metadata' | 'Object'

export const NAME_COLUMN: ColumnDefinition = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  priority: 0,
}

export const AGE_COLUMN: ColumnDefinition = {
  name: 'Age',
  type: 'string',
  format: '',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
  priority: 0,
}

/** The reference's default columns for kinds without their own: NAME, AGE. */
export const DEFAULT_COLUMNS: TableColumns = {
  definitions: [NAME_COLUMN, AGE_COLUMN],
  cells: (obj, now) => [obj.metadata.name, age(obj, now)],
}

/** apimachinery duration.HumanDuration. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000)
  if (seconds < -1) return '<invalid>'
  if (seconds < 0) return '0s'
  if (seconds < 60 * 2) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 10) {
    const s = seconds % 60
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`
  }
  if (minutes < 60 * 3) return `${minutes}m`
  const hours = Math.floor(minutes / 60)
  if (hours < 8) {
    const m = minutes % 60
    return m === 0 ? `${hours}h` : `${hours}h${m}m`
  }
  if (hours < 48) return `${hours}h`
  if (hours < 24 * 8) {
    const h = hours % 24
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`
  if (hours < 24 * 365 * 8) {
    const dy = Math.floor(hours / 24) % 365
    return dy === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${dy}d`
  }
  return `${Math.floor(hours / 24 / 365)}y`
}

/** The AGE cell: `<unknown>` without a creation timestamp, as the reference's printers. */
export function age(obj: KubeObject, now: number): string {
  const ts = obj.metadata.creationTimestamp
  if (typeof ts !== 'string' || ts === '') return '<unknown>'
  const t = Date.parse(ts)
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t)
}

function rowObject(obj: KubeObject, include: IncludeObject): unknown {
  if (include === 'None') return undefined
  if (include === 'Object') return obj
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata }
}

export interface TableOptions {
  apiVersion: string
  include: IncludeObject
  /** Leave out the column definitions (every watch event after the first). */
  noHeaders?: boolean
  now?: number
}

export function toTable(
  columns: TableColumns,
  objects: readonly KubeObject[],
  listMeta: Record<string, unknown>,
  options: TableOptions,
): Record<string, unknown> {
  const now = options.now ?? Date.now()
  return {
    ...tableHead(columns, listMeta, options),
    rows: (columns.order ? [...objects].sort(columns.order) : objects).map((obj) => tableRow(columns, obj, now, options.include)),
  }
}

/** The Table's fields before its rows (a list's rows are written as they are read). */
export function tableHead(columns: TableColumns, listMeta: Record<string, unknown>, options: TableOptions): Record<string, unknown> {
  return { kind: 'Table', apiVersion: options.apiVersion, metadata: listMeta, columnDefinitions: options.noHeaders ? null : columns.definitions }
}

/** One row: the object's cells at `now`, and the object in the requested form. */
export function tableRow(columns: TableColumns, obj: KubeObject, now: number, include: IncludeObject): Record<string, unknown> {
  const object = rowObject(obj, include)
  return { cells: columns.cells(obj, now), ...(object === undefined ? {} : { object }) }
}
