/**
 * The request attributes admission plugins decide on (the reference's
 * `k8s.io/apiserver/pkg/admission` attributes.go). The shape is declared with the store that
 * fills it (api/registry/admission-hook.ts, below this room); here are the operations by
 * name and what plugins do with attributes: the name a refusal reports, the audit
 * annotations and warnings they leave.
 */
import type { AdmissionAttributes, AdmissionOperation } from '../api/registry/admission-hook.js'
import { isPlainObject } from '../api/registry/object.js'

export type { AdmissionAttributes, AdmissionOperation } from '../api/registry/admission-hook.js'

export const CREATE: AdmissionOperation = 'CREATE'
export const UPDATE: AdmissionOperation = 'UPDATE'
export const DELETE: AdmissionOperation = 'DELETE'
export const CONNECT: AdmissionOperation = 'CONNECT'

/** `pods`, `deployments.apps`: the resource as refusals name it. */
export function qualifiedResource(attributes: AdmissionAttributes): string {
  const { group, resource } = attributes.resource
  return group === '' ? resource : `${resource}.${group}`
}

/**
 * The name a refusal reports (the reference's extractResourceName): the request's name, else
 * the object's generateName, else `Unknown`. The reference reads the object's name before
 * generateName, but at its admission the name is not generated yet; here it may be, so the
 * presented name stands for it.
 */
export function nameForRefusal(attributes: AdmissionAttributes): string {
  if (attributes.name !== '') return attributes.name
  const generateName = attributes.object?.metadata.generateName
  return typeof generateName === 'string' && generateName !== '' ? generateName : 'Unknown'
}

/**
 * Records an audit annotation (the reference's AddAnnotation): the key is qualified as
 * `<plugin>.admission.k8s.io/<name>`; setting a key again to another value is refused.
 */
export function addAnnotation(attributes: AdmissionAttributes, key: string, value: string): void {
  if (key.split('/').length !== 2) {
    throw new Error("annotation key has invalid format, the right format is a DNS subdomain prefix and '/' and key name. (e.g. 'podsecuritypolicy.admission.k8s.io/admit-policy')")
  }
  const annotations = (attributes.annotations ??= {})
  const existing = annotations[key]
  if (existing !== undefined && existing !== value) {
    // The reference's message, its spelling included.
    throw new Error(`admission annotations are not allowd to be overwritten, key:${JSON.stringify(key)}, old value: ${JSON.stringify(existing)}, new value:${JSON.stringify(value)}`)
  }
  annotations[key] = value
}

/** Records a warning for the response's `Warning` headers. */
export function addWarning(attributes: AdmissionAttributes, message: string): void {
  ;(attributes.warnings ??= []).push(message)
}

const OPTIONS_KIND: Record<string, string> = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions' }

/**
 * The operation's options as the reference encodes them in an AdmissionRequest (webhooks'
 * reviews and the policies' `request` variable): a typed meta.k8s.io/v1 object, or null.
 */
export function operationOptions(attributes: AdmissionAttributes): Record<string, unknown> | null {
  const kind = OPTIONS_KIND[attributes.operation]
  const given = isPlainObject(attributes.options) ? attributes.options : undefined
  if (!kind && !given) return null
  return { ...(given ?? {}), kind: given?.kind ?? kind, apiVersion: given?.apiVersion ?? 'meta.k8s.io/v1' }
}
