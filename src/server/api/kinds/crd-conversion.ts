/**
 * Conversion of custom resources between the served versions of a CRD whose
 * spec.conversion.strategy is Webhook: the reference's webhook converter
 * (staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/conversion/webhook_converter.go).
 * The objects not yet in the desired version go to the webhook in one ConversionReview (v1 or
 * v1beta1, the first of spec.conversion.webhook.conversionReviewVersions this server speaks);
 * the answer is checked as the reference checks it (uid, result, count, apiVersion, kind, name,
 * namespace, uid) and each object keeps its own metadata but for labels and annotations.
 *
 * The webhook is reached at clientConfig.url, or at clientConfig.service resolved as the
 * reference's default service resolver does (the service's cluster IP and port; an
 * ExternalName service's name), with the TLS server name `<service>.<namespace>.svc`, trusting
 * clientConfig.caBundle (the system's roots without one).
 */
import { randomUUID } from 'node:crypto'
import type { KubeObject } from '../registry/object.js'
import { isPlainObject } from '../registry/object.js'
import { type ServiceLookup, caBundlePem, postJSON, webhookTarget } from './webhook-client.js'

export { type ServiceLookup, resolveService } from './webhook-client.js'

type Obj = Record<string, unknown>

const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {})
const str = (v: unknown): string => (typeof v === 'string' ? v : '')

/** Converts objects to another served version of their kind. */
export interface ObjectConverter {
  /**
   * The objects in `desiredAPIVersion` (those already in it unchanged). `listKind` is the
   * kind named in errors when the objects are a list's items.
   */
  convert(objects: readonly KubeObject[], desiredAPIVersion: string, listKind?: string): Promise<KubeObject[]>
}

/** A conversion that failed: the reference answers it as an internal error (500). */
export class ConversionError extends Error {}

/** How long one ConversionReview may take. */
const WEBHOOK_TIMEOUT_MS = 30_000
const SUPPORTED_REVIEW_VERSIONS = new Set(['v1', 'v1beta1'])

function gvk(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/')
  return slash < 0 ? `/${apiVersion}, Kind=${kind}` : `${apiVersion}, Kind=${kind}`
}

export function webhookConverter(crd: KubeObject, services: ServiceLookup): ObjectConverter {
  const webhook = obj(obj(obj(crd.spec).conversion).webhook)
  const clientConfig = obj(webhook.clientConfig)
  const reviewVersions = (Array.isArray(webhook.conversionReviewVersions) ? webhook.conversionReviewVersions : []).map(str)
  const ca = caBundlePem(clientConfig)

  const post = async (body: string): Promise<unknown> => postJSON(await webhookTarget(clientConfig, services), ca, body, WEBHOOK_TIMEOUT_MS)

  return {
    async convert(objects, desiredAPIVersion, listKind) {
      const toConvert = objects.filter((o) => o.apiVersion !== desiredAPIVersion)
      if (toConvert.length === 0) return objects.map((o) => o)
      const first = toConvert[0]!
      const what = gvk(str(first.apiVersion), listKind ?? str(first.kind))
      const fail = (message: string) => new ConversionError(`conversion webhook for ${what} ${message}`)
      const reviewVersion = reviewVersions.find((v) => SUPPORTED_REVIEW_VERSIONS.has(v))
      if (!reviewVersion) throw new ConversionError('no supported conversion review versions')
      const uid = randomUUID()
      const review = {
        kind: 'ConversionReview',
        apiVersion: `apiextensions.k8s.io/${reviewVersion}`,
        request: { uid, desiredAPIVersion, objects: toConvert },
        response: {},
      }
      let answer: Obj
      try {
        answer = obj(await post(JSON.stringify(review)))
      } catch (err) {
        throw fail(`failed: ${(err as Error).message}`)
      }
      let converted: unknown[]
      try {
        converted = convertedObjects(answer, reviewVersion, uid)
      } catch (err) {
        throw fail(`failed: ${(err as Error).message}`)
      }
      if (converted.length !== toConvert.length) throw new ConversionError(`conversion webhook for ${what} returned ${converted.length} objects, expected ${toConvert.length}`)
      const out: KubeObject[] = []
      let index = 0
      for (const original of objects) {
        if (original.apiVersion === desiredAPIVersion) {
          out.push(original)
          continue
        }
        const item = converted[index]
        index++
        const at = listKind !== undefined ? `invalid converted object at index ${index}` : 'invalid object at index 0'
        if (!isPlainObject(item)) throw fail(`returned ${at}: invalid type, expected=Unstructured, got=${typeof item}`)
        if (str(item.apiVersion) !== desiredAPIVersion) throw fail(`returned ${at}: invalid groupVersion (expected ${desiredAPIVersion}, received ${str(item.apiVersion)})`)
        if (str(item.kind) !== str(original.kind)) throw fail(`returned ${at}: invalid kind (expected ${str(original.kind)}, received ${str(item.kind)})`)
        const mismatch = sameIdentity(original, item as KubeObject)
        if (mismatch) throw fail(`returned ${listKind !== undefined ? `invalid converted object at index ${index}` : 'invalid object'}: ${mismatch}`)
        try {
          out.push(restoreObjectMeta(original, item as KubeObject))
        } catch (err) {
          throw fail(`returned invalid metadata${listKind !== undefined ? ` in object at index ${index}` : ''}: ${(err as Error).message}`)
        }
      }
      return out
    },
  }
}

/** The converted objects of a ConversionReview answer, or the reason it is not one. */
function convertedObjects(answer: Obj, reviewVersion: string, uid: string): unknown[] {
  if (reviewVersion === 'v1') {
    const got = gvk(str(answer.apiVersion), str(answer.kind))
    if (answer.apiVersion !== 'apiextensions.k8s.io/v1' || answer.kind !== 'ConversionReview') {
      throw new Error(`expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${got}`)
    }
  }
  if (!isPlainObject(answer.response)) throw new Error('no response provided')
  const response = answer.response
  // v1beta1 answers were never checked for their uid (the reference keeps it so).
  if (reviewVersion === 'v1' && str(response.uid) !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(str(response.uid))}`)
  const result = obj(response.result)
  if (result.status !== 'Success') {
    if (str(result.message)) throw new Error(str(result.message))
    throw new Error(`response.result.status was '${str(result.status)}', not 'Success'`)
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : []
}

/** The reference's validateConvertedObject (kind is checked before). */
function sameIdentity(a: KubeObject, b: KubeObject): string | undefined {
  const ma = obj(a.metadata)
  const mb = obj(b.metadata)
  if (str(ma.name) !== str(mb.name)) return `must have the same name: ${str(ma.name)} != ${str(mb.name)}`
  if (str(ma.namespace) !== str(mb.namespace)) return `must have the same namespace: ${str(ma.namespace)} != ${str(mb.namespace)}`
  if (str(ma.uid) !== str(mb.uid)) return `must have the same UID: ${str(ma.uid)} != ${str(mb.uid)}`
  return undefined
}

/** The reference's restoreObjectMeta: the original's metadata, with the converted labels and annotations. */
function restoreObjectMeta(original: KubeObject, converted: KubeObject): KubeObject {
  if (converted.metadata === undefined) throw new Error('missing metadata in converted object')
  if (!isPlainObject(converted.metadata)) throw new Error(`invalid metadata of type ${typeof converted.metadata} in converted object`)
  const answered = converted.metadata as Obj
  const metadata = structuredClone(original.metadata) as Obj
  for (const field of ['labels', 'annotations']) {
    const value = answered[field]
    if (value === undefined || value === null) {
      delete metadata[field]
      continue
    }
    if (!isPlainObject(value)) throw new Error(`invalid metadata.${field} of type ${Array.isArray(value) ? 'array' : typeof value} in converted object`)
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string') throw new Error(`metadata.${field}[${k}] must be a string, but is ${typeof v} in converted object`)
    }
    metadata[field] = value
  }
  return { ...converted, metadata } as KubeObject
}
