/** Reading the loosely typed fields of stored objects, and Table column definitions, for the kinds' data. */
import { isPlainObject } from '../registry/object.js'
import { type ColumnDefinition, NAME_COLUMN, type TableColumns } from '../table.js'

export type Obj = Record<string, unknown>

export function obj(v: unknown): Obj {
  return isPlainObject(v) ? v : {}
}
export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : []
}
export function str(v: unknown, fallback = ''): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : fallback
}
export function num(v: unknown): number {
  return typeof v === 'number' ? v : 0
}

export function col(name: string, description = '', priority = 0, type = 'string', format = ''): ColumnDefinition {
  return { name, type, format, description, priority }
}

/** The reference's default Table of a kind without a printer of its own: name and creation time. */
export const CREATED_AT: TableColumns = {
  definitions: [NAME_COLUMN, col('Created At', 'CreationTimestamp is a timestamp representing the server time when this object was created.', 0, 'date')],
  cells: (o) => [o.metadata.name, str(o.metadata.creationTimestamp)],
}
