/** The object model of the API: JSON objects with the reference's ObjectMeta. */
import { rfc3339Now } from '../../../core/util/rfc3339-now.js'
export interface ObjectMeta {
  name?: string
  generateName?: string
  namespace?: string
  uid?: string
  resourceVersion?: string
  generation?: number
  creationTimestamp?: string
  deletionTimestamp?: string
  labels?: Record<string, string>
  annotations?: Record<string, string>
  [key: string]: unknown
}

export interface KubeObject {
  apiVersion?: string
  kind?: string
  metadata: ObjectMeta
  [key: string]: unknown
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** RFC 3339 with whole seconds, as the reference writes metav1.Time. */
export function nowTimestamp(now?: Date): string {
  if (now === undefined) return rfc3339Now()
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z')
}
