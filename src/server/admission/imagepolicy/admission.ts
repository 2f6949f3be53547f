/**
 * The ImagePolicyWebhook admission plugin (the reference's `plugin/pkg/admission/imagepolicy`):
 * a pod created or updated (or its ephemeral containers set) is described in an ImageReview
 * (`imagepolicy.k8s.io/v1alpha1`: the images of its containers and init containers, or of its
 * ephemeral containers; its annotations matching `*.image-policy.k8s.io/*`; its namespace)
 * POSTed to the webhook of the configuration's kubeconfig file. A denial refuses the pod
 * (`pods "x" is forbidden: image policy webhook backend denied one or more images: <reason>`);
 * answers are cached by review for the allow or deny TTL; the answer's audit annotations are
 * kept under `imagepolicywebhook.image-policy.k8s.io/`. A webhook that cannot answer refuses
 * the pod with its error, or, with `defaultAllow`, admits it marked failed open (the audit
 * annotation and the pod's `alpha.image-policy.k8s.io/failed-open` annotation).
 */
import { isPlainObject, type KubeObject } from '../../api/registry/object.js'
import { ApiError, errors } from '../../api/status-errors.js'
import { failureStatus } from '../../http/status.js'
import { type AdmissionAttributes, CREATE, UPDATE, addAnnotation } from '../attributes.js'
import { forbidden } from '../forbidden.js'
import { type ValidationInterface, handlesOnly } from '../interfaces.js'
import type { PluginInitialization } from '../plugins.js'
import { readImagePolicyConfig } from './config.js'
import { LruExpireCache } from './expire-cache.js'
import { GenericWebhook, WebhookCallError, loadKubeconfig } from '../../http/generic-webhook.js'

export const IMAGE_POLICY_WEBHOOK = 'ImagePolicyWebhook'
/** The prefix of the plugin's audit annotations. */
export const AUDIT_KEY_PREFIX = `${IMAGE_POLICY_WEBHOOK.toLowerCase()}.image-policy.k8s.io/`
/** The pod annotation of a pod admitted because the webhook failed (api.ImagePolicyFailedOpenKey). */
export const IMAGE_POLICY_FAILED_OPEN_KEY = 'alpha.image-policy.k8s.io/failed-open'
const EPHEMERAL_CONTAINERS = 'ephemeralcontainers'
const CACHE_SIZE = 1024

interface ImageReviewSpec {
  containers?: Array<{ image?: string }>
  annotations?: Record<string, string>
  namespace?: string
}

interface ImageReviewStatus {
  allowed: boolean
  reason?: string
  auditAnnotations?: Record<string, string>
}

export class ImagePolicyWebhook implements ValidationInterface {
  readonly handles = handlesOnly(CREATE, UPDATE)
  private readonly webhook: GenericWebhook
  private readonly cache: LruExpireCache<ImageReviewStatus>
  private readonly allowTtlMs: number
  private readonly denyTtlMs: number
  private readonly defaultAllow: boolean

  constructor(
    private readonly init: Pick<PluginInitialization, 'log'>,
    pluginConfig: unknown,
    now: () => number = Date.now,
  ) {
    const config = readImagePolicyConfig(pluginConfig)
    this.webhook = new GenericWebhook(loadKubeconfig(config.kubeConfigFile), config.retryBackoffMs)
    this.cache = new LruExpireCache(CACHE_SIZE, now)
    this.allowTtlMs = config.allowTtlMs
    this.denyTtlMs = config.denyTtlMs
    this.defaultAllow = config.defaultAllow
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    const { subresource } = attributes
    if ((subresource !== '' && subresource !== EPHEMERAL_CONTAINERS) || attributes.resource.group !== '' || attributes.resource.resource !== 'pods') return
    const pod = attributes.object
    if (!pod || (pod.kind !== undefined && pod.kind !== 'Pod')) throw errors.badRequest('Resource was marked with kind Pod but was unable to be converted')
    const spec: ImageReviewSpec = {}
    const containers = imagesOf(pod, subresource === '' ? ['containers', 'initContainers'] : ['ephemeralContainers'])
    if (containers.length > 0) spec.containers = containers
    const annotations = filterAnnotations(pod)
    if (Object.keys(annotations).length > 0) spec.annotations = annotations
    if (attributes.namespace !== '') spec.namespace = attributes.namespace
    const refusal = await this.admitPod(pod, attributes, spec)
    if (refusal) throw refusal instanceof ApiError ? refusal : forbidden(attributes, refusal)
  }

  /** The review's answer, from the cache or the webhook; why the pod is refused, if it is. */
  private async admitPod(pod: KubeObject, attributes: AdmissionAttributes, spec: ImageReviewSpec): Promise<string | ApiError | undefined> {
    // The cache key is the spec as Go's encoder writes it: the annotations' keys sorted.
    const key = JSON.stringify(spec)
    let status = this.cache.get(key)
    if (!status) {
      let answer: unknown
      try {
        answer = await this.webhook.post({ kind: 'ImageReview', apiVersion: 'imagepolicy.k8s.io/v1alpha1', metadata: { creationTimestamp: null }, spec, status: { allowed: false } })
      } catch (err) {
        return this.webhookError(pod, attributes, err as Error)
      }
      status = statusOf(answer)
      this.cache.add(key, status, status.allowed ? this.allowTtlMs : this.denyTtlMs)
    }
    for (const [k, v] of Object.entries(status.auditAnnotations ?? {})) {
      try {
        addAnnotation(attributes, AUDIT_KEY_PREFIX + k, v)
      } catch (err) {
        this.init.log(0, `failed to set admission audit annotation ${AUDIT_KEY_PREFIX + k} to ${v}: ${(err as Error).message}`)
      }
    }
    if (status.allowed) return undefined
    return status.reason ? `image policy webhook backend denied one or more images: ${status.reason}` : 'one or more images rejected by webhook backend'
  }

  /** A webhook that could not answer: admitted and marked with defaultAllow, else refused with its error. */
  private webhookError(pod: KubeObject, attributes: AdmissionAttributes, err: Error): string | ApiError | undefined {
    this.init.log(2, `error contacting webhook backend: ${err.message}`)
    if (this.defaultAllow) {
      addAnnotation(attributes, `${AUDIT_KEY_PREFIX}failed-open`, 'true')
      pod.metadata.annotations = { ...(isPlainObject(pod.metadata.annotations) ? pod.metadata.annotations : {}), [IMAGE_POLICY_FAILED_OPEN_KEY]: 'true' }
      this.init.log(2, 'resource allowed in spite of webhook backend failure')
      return undefined
    }
    this.init.log(2, 'resource not allowed due to webhook backend failure ')
    // admission.NewForbidden keeps an error that is already Forbidden as it is.
    if (err instanceof WebhookCallError && err.reason === 'Forbidden') return new ApiError(failureStatus(err.code, 'Forbidden', err.message))
    return err.message
  }
}

/** The images of the named container lists, in order (an image-less container as `{}`, as omitempty writes it). */
function imagesOf(pod: KubeObject, lists: readonly string[]): Array<{ image?: string }> {
  const spec = isPlainObject(pod.spec) ? pod.spec : {}
  return lists.flatMap((list) => (Array.isArray(spec[list]) ? spec[list] : [])).map((c) => {
    const image = isPlainObject(c) && typeof c.image === 'string' ? c.image : ''
    return image === '' ? {} : { image }
  })
}

/** The pod's annotations matching `*.image-policy.k8s.io/*`, keys sorted. */
function filterAnnotations(pod: KubeObject): Record<string, string> {
  const all = isPlainObject(pod.metadata.annotations) ? (pod.metadata.annotations as Record<string, unknown>) : {}
  const kept: Record<string, string> = {}
  for (const k of Object.keys(all).sort()) {
    if (k.includes('.image-policy.k8s.io/') && typeof all[k] === 'string') kept[k] = all[k]
  }
  return kept
}

function statusOf(answer: unknown): ImageReviewStatus {
  const status = isPlainObject(answer) && isPlainObject(answer.status) ? answer.status : {}
  const audit = isPlainObject(status.auditAnnotations) ? status.auditAnnotations : {}
  return {
    allowed: status.allowed === true,
    ...(typeof status.reason === 'string' && status.reason !== '' ? { reason: status.reason } : {}),
    auditAnnotations: Object.fromEntries(Object.entries(audit).filter((e): e is [string, string] => typeof e[1] === 'string')),
  }
}
