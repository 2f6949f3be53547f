/**
 * The AdmissionReview a webhook is sent and the checks of its answer (the reference's
 * webhook/request admissionreview.go): v1, or v1beta1 for a webhook that accepts only that.
 */
import { randomUUID } from 'node:crypto'
import { isPlainObject } from '../../api/registry/object.js'
import { type AdmissionAttributes, operationOptions } from '../attributes.js'
import type { Obj } from './configurations.js'
import type { WebhookInvocation } from './equivalents.js'

const KNOWN_VERSIONS = ['v1', 'v1beta1']

/** The first of the webhook's admissionReviewVersions this server speaks. */
export function reviewVersion(webhook: Obj): string | undefined {
  const versions = Array.isArray(webhook.admissionReviewVersions) ? webhook.admissionReviewVersions : []
  return versions.find((v): v is string => typeof v === 'string' && KNOWN_VERSIONS.includes(v))
}

export interface Review {
  uid: string
  body: Obj
}

/**
 * The review of `attributes` (their objects in the webhook's version) for the webhook called as
 * `invocation`: its kind, resource and subresource, the request's own as requestKind,
 * requestResource and requestSubResource (the reference's CreateV1AdmissionReview).
 */
export function createAdmissionReview(attributes: AdmissionAttributes, version: string, invocation?: WebhookInvocation): Review {
  const uid = randomUUID()
  const { userInfo } = attributes
  const { kind, resource, subresource } = invocation ?? attributes
  const user: Obj = {}
  if (userInfo?.name) user.username = userInfo.name
  if (userInfo?.uid) user.uid = userInfo.uid
  if (userInfo?.groups?.length) user.groups = userInfo.groups
  if (userInfo?.extra && Object.keys(userInfo.extra).length > 0) user.extra = userInfo.extra
  const request: Obj = {
    uid,
    kind,
    resource,
    ...(subresource ? { subResource: subresource } : {}),
    requestKind: attributes.kind,
    requestResource: attributes.resource,
    ...(attributes.subresource ? { requestSubResource: attributes.subresource } : {}),
    ...(attributes.name ? { name: attributes.name } : {}),
    ...(attributes.namespace ? { namespace: attributes.namespace } : {}),
    operation: attributes.operation,
    userInfo: user,
    object: attributes.object ?? null,
    oldObject: attributes.oldObject ?? null,
    dryRun: attributes.dryRun,
    options: operationOptions(attributes),
  }
  return { uid, body: { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request } }
}

/** The parts of a webhook's answer the dispatchers use. */
export interface AdmissionResult {
  allowed: boolean
  result?: Obj
  patch?: Buffer
  patchType?: string
  auditAnnotations: Record<string, string>
  warnings: string[]
}

function gvk(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : ''
  return `${av.includes('/') ? av : `/${av}`}, Kind=${typeof kind === 'string' ? kind : ''}`
}

/** The reference's VerifyAdmissionResponse: throws the reason an answer is not usable. */
export function verifyAdmissionResponse(uid: string, version: string, mutating: boolean, answer: unknown): AdmissionResult {
  const review = isPlainObject(answer) ? answer : {}
  const response = review.response
  if (!isPlainObject(response)) throw new Error('webhook response was absent')
  const patch = typeof response.patch === 'string' && response.patch !== '' ? Buffer.from(response.patch, 'base64') : undefined
  const hasPatchType = typeof response.patchType === 'string'
  let patchType = hasPatchType ? (response.patchType as string) : ''
  if (version === 'v1') {
    const got = typeof response.uid === 'string' ? response.uid : ''
    if (got !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(got)}`)
    if (review.apiVersion !== 'admission.k8s.io/v1' || review.kind !== 'AdmissionReview') {
      throw new Error(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${gvk(review.apiVersion, review.kind)}`)
    }
    if (mutating) {
      if (patch && !hasPatchType) throw new Error('webhook returned response.patch but not response.patchType')
      if (!patch && hasPatchType) throw new Error('webhook returned response.patchType but not response.patch')
      if (hasPatchType && patchType === '') throw new Error(`webhook returned invalid response.patchType of ""`)
    } else {
      if (patch) throw new Error('validating webhook may not return response.patch')
      if (hasPatchType) throw new Error('validating webhook may not return response.patchType')
    }
  } else if (patch && patchType === '') {
    // v1beta1 answers default an absent patch type to JSONPatch.
    patchType = 'JSONPatch'
  }
  const annotations = isPlainObject(response.auditAnnotations) ? response.auditAnnotations : {}
  return {
    allowed: response.allowed === true,
    ...(isPlainObject(response.status) ? { result: response.status } : {}),
    ...(patch && mutating ? { patch, patchType } : {}),
    auditAnnotations: Object.fromEntries(Object.entries(annotations).filter((e): e is [string, string] => typeof e[1] === 'string')),
    warnings: Array.isArray(response.warnings) ? response.warnings.filter((w): w is string => typeof w === 'string') : [],
  }
}
