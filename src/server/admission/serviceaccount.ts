/**
 * The ServiceAccount admission plugin (the reference's plugin/pkg/admission/serviceaccount):
 * a pod created without a service account gets `default`; the account must exist (looked up
 * in memory, then live, the default one several times while its controller makes it); unless
 * the pod or the account turns automounting off, every container and init container mounts
 * the projected token volume `kube-api-access-<5 random>` at the API token path; the account's
 * imagePullSecrets fill a pod that has none. Mirror pods are left as they are, and may not
 * reference accounts, secrets or token projections; an account annotated
 * `kubernetes.io/enforce-mountable-secrets: "true"` limits the secrets its pods reference.
 * The reference's messages throughout.
 */
import { randomInt } from 'node:crypto'
import { failureStatus } from '../http/status.js'
import type { GenericStore } from '../api/registry/generic-store.js'
import { Informer } from '../api/registry/informer.js'
import { aliasDeprecatedServiceAccount } from '../api/kinds/pod-defaults.js'
import type { KubeObject } from '../api/registry/object.js'
import { ApiError, errors } from '../api/status-errors.js'
import { type AdmissionAttributes, CREATE, UPDATE, nameForRefusal } from './attributes.js'
import { type MutationInterface, type ValidationInterface, actsOnOnly, handlesOnly } from './interfaces.js'
import type { PluginInitialization } from './plugins.js'

export const SERVICE_ACCOUNT = 'ServiceAccount'

/** The service account set on pods that name none. */
export const DEFAULT_SERVICE_ACCOUNT_NAME = 'default'
/** An account annotated with it (value "true") limits the secrets its pods may reference. */
export const ENFORCE_MOUNTABLE_SECRETS_ANNOTATION = 'kubernetes.io/enforce-mountable-secrets'
/** The prefix of the token volume's generated name. */
export const SERVICE_ACCOUNT_VOLUME_NAME = 'kube-api-access'
/** Where the token, the cluster CA and the namespace are mounted in every container. */
export const DEFAULT_API_TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount'
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror'
/** serviceaccount.WarnOnlyBoundTokenExpirationSeconds: an hour and seven seconds. */
const WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 3607
/** v1.ProjectedVolumeSourceDefaultMode (0644), set explicitly as the reference does. */
const PROJECTED_VOLUME_SOURCE_DEFAULT_MODE = 0o644

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : [])
const str = (v: unknown): string => (typeof v === 'string' ? v : '')

/** names.SimpleNameGenerator: five characters from the alphabet without vowels and lookalikes. */
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789'
export function generateName(base: string): string {
  let suffix = ''
  for (let i = 0; i < 5; i++) suffix += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)]
  return `${base}${suffix}`
}

/** TokenVolumeSource: the projected token, the cluster CA's ConfigMap and the namespace. */
export function tokenVolumeSource(): Obj {
  return {
    sources: [
      { serviceAccountToken: { expirationSeconds: WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
    defaultMode: PROJECTED_VOLUME_SOURCE_DEFAULT_MODE,
  }
}

export class ServiceAccount implements MutationInterface, ValidationInterface {
  readonly handles = handlesOnly(CREATE, UPDATE)
  readonly actsOn = actsOnOnly('pods')
  /** The accounts kept in memory, started on the first pod. */
  private informer: Informer | undefined
  private informerOver: GenericStore | undefined

  constructor(
    private readonly init: PluginInitialization,
    /** LimitSecretReferences: every account limits its pods' secrets (off, as the reference's). */
    private readonly limitSecretReferences = false,
    private readonly nameFor: (base: string) => string = generateName,
    /** The pause between live lookups of a missing account (the reference's 100–200 ms). */
    private readonly retryIntervalMs = 100 + randomInt(100),
  ) {}

  async admit(a: AdmissionAttributes): Promise<void> {
    if (shouldIgnore(a) || a.operation !== CREATE) return
    const pod = a.object!
    // A mirror pod's spec must stay as the kubelet wrote it: only validated.
    if (isMirrorPod(pod)) return this.validate(a)
    const spec = podSpec(pod)
    // The reference decodes v1 before admission, and its conversion takes the deprecated
    // `serviceAccount` as the name when `serviceAccountName` is empty; here admission sees the
    // object as sent, so the alias is read first.
    if (str(spec.serviceAccountName) === '' && str(spec.serviceAccount) !== '') spec.serviceAccountName = spec.serviceAccount
    if (str(spec.serviceAccountName) === '') spec.serviceAccountName = DEFAULT_SERVICE_ACCOUNT_NAME
    // As the v1 conversion writes the deprecated alias after admission (see pod-defaults.ts).
    aliasDeprecatedServiceAccount(spec)
    const account = await this.serviceAccountOrRefuse(a, str(spec.serviceAccountName))
    if (shouldAutomount(account, spec)) this.mountServiceAccountToken(spec)
    if (list(spec.imagePullSecrets).length === 0) {
      spec.imagePullSecrets = list(account.imagePullSecrets).map((s) => ({ name: str(s.name) }))
    }
    return this.validate(a)
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    if (shouldIgnore(a)) return
    const pod = a.object!
    const spec = podSpec(pod)
    if (a.operation === UPDATE && a.subresource === 'ephemeralcontainers') return this.limitEphemeralContainerSecretReferences(a, pod)
    if (a.operation !== CREATE) return
    if (isMirrorPod(pod)) return validateMirrorPod(a, spec)
    if (str(spec.serviceAccountName) === '') throw forbidden(a, `no service account specified for pod ${a.namespace}/${str(pod.metadata.name)}`)
    const account = await this.serviceAccountOrRefuse(a, str(spec.serviceAccountName))
    if (this.enforceMountableSecrets(account)) {
      const why = limitSecretReferences(account, spec)
      if (why) throw forbidden(a, why)
    }
  }

  stop(): void {
    this.informer?.stop()
    this.informer = undefined
    this.informerOver = undefined
  }

  private enforceMountableSecrets(account: KubeObject): boolean {
    if (this.limitSecretReferences) return true
    // strconv.ParseBool's true spellings.
    return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(str(account.metadata.annotations?.[ENFORCE_MOUNTABLE_SECRETS_ANNOTATION]))
  }

  private async serviceAccountOrRefuse(a: AdmissionAttributes, name: string): Promise<KubeObject> {
    try {
      return await this.getServiceAccount(a.namespace, name)
    } catch (err) {
      throw forbidden(a, `error looking up service account ${a.namespace}/${name}: ${(err as Error).message}`)
    }
  }

  /**
   * The account from memory, else read live: once, or ten times for `default` (its controller
   * creates it with the namespace, so a pod may come first), as the reference's getServiceAccount.
   */
  private async getServiceAccount(namespace: string, name: string): Promise<KubeObject> {
    const cached = this.accountCache()?.get(name, namespace)
    if (cached) return cached
    const accounts = this.init.stores()?.lookup('', 'v1', 'serviceaccounts')
    const attempts = name === DEFAULT_SERVICE_ACCOUNT_NAME ? 10 : 1
    for (let i = 0; i < attempts && accounts; i++) {
      if (i !== 0) await new Promise((resolve) => setTimeout(resolve, this.retryIntervalMs))
      try {
        return await accounts.get(namespace, name)
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err
      }
    }
    // errors.NewNotFound(api.Resource("serviceaccount"), name): the singular, as the reference has it.
    throw errors.notFound({ group: '', resource: 'serviceaccount' }, name)
  }

  /** The informer over the current registry's service accounts, started when first needed. */
  private accountCache(): Informer | undefined {
    const accounts = this.init.stores()?.lookup('', 'v1', 'serviceaccounts')
    if (!accounts) return undefined
    if (this.informerOver !== accounts) {
      this.informer?.stop()
      this.informer = new Informer(accounts, { upsert: () => {}, remove: () => {} }, (err) => this.init.log(3, `service account informer: ${err.message}`))
      this.informerOver = accounts
      this.informer.start()
    }
    return this.informer
  }

  /**
   * Mounts the token volume read-only at the API token path in every container and init
   * container that has nothing there yet, and adds the volume when one does (an existing
   * `kube-api-access-` volume is reused).
   */
  private mountServiceAccountToken(spec: Obj): void {
    const volumes = list(spec.volumes)
    const existing = volumes.find((v) => str(v.name).startsWith(`${SERVICE_ACCOUNT_VOLUME_NAME}-`))
    const volumeName = existing ? str(existing.name) : this.nameFor(`${SERVICE_ACCOUNT_VOLUME_NAME}-`)
    let needsTokenVolume = false
    for (const container of [...list(spec.initContainers), ...list(spec.containers)]) {
      const mounts = list(container.volumeMounts)
      if (mounts.some((m) => m.mountPath === DEFAULT_API_TOKEN_MOUNT_PATH)) continue
      container.volumeMounts = [...mounts, { name: volumeName, readOnly: true, mountPath: DEFAULT_API_TOKEN_MOUNT_PATH }]
      needsTokenVolume = true
    }
    if (!existing && needsTokenVolume) spec.volumes = [...volumes, { name: volumeName, projected: tokenVolumeSource() }]
  }

  /** Ephemeral containers added later reference only the secrets the account allows. */
  private async limitEphemeralContainerSecretReferences(a: AdmissionAttributes, pod: KubeObject): Promise<void> {
    const spec = podSpec(pod)
    if (str(spec.serviceAccountName) === '') throw forbidden(a, `no service account specified for pod ${a.namespace}/${str(pod.metadata.name)}`)
    const account = await this.serviceAccountOrRefuse(a, str(spec.serviceAccountName))
    if (!this.enforceMountableSecrets(account)) return
    const why = containerSecretReferences(list(spec.ephemeralContainers), 'ephemeral container', mountableSecrets(account), str(account.metadata.name))
    // The reference returns these unwrapped: the API answers them as an unknown 500.
    if (why) throw new ApiError(failureStatus(500, 'Unknown', why))
  }
}

function shouldIgnore(a: AdmissionAttributes): boolean {
  if (a.resource.group !== '' || a.resource.resource !== 'pods') return true
  if (a.subresource !== '' && a.subresource !== 'ephemeralcontainers') return true
  if (!a.object) return true
  // The object's own kind when it carries one (a Namespace sent to pods is not a pod).
  return (typeof a.object.kind === 'string' && a.object.kind !== '' ? a.object.kind : a.kind.kind) !== 'Pod'
}

function isMirrorPod(pod: KubeObject): boolean {
  return isObj(pod.metadata.annotations) && MIRROR_POD_ANNOTATION in pod.metadata.annotations
}

function podSpec(pod: KubeObject): Obj {
  if (!isObj(pod.spec)) pod.spec = {}
  return pod.spec as Obj
}

function shouldAutomount(account: KubeObject, spec: Obj): boolean {
  // The pod's preference wins, then the account's; mounted by default.
  if (typeof spec.automountServiceAccountToken === 'boolean') return spec.automountServiceAccountToken
  if (typeof account.automountServiceAccountToken === 'boolean') return account.automountServiceAccountToken
  return true
}

function forbidden(a: AdmissionAttributes, why: string): ApiError {
  return errors.forbidden({ group: a.resource.group, resource: a.resource.resource }, nameForRefusal(a), why)
}

/** Mirror pods reference no account, no secret and no token projection. */
function validateMirrorPod(a: AdmissionAttributes, spec: Obj): void {
  if (str(spec.serviceAccountName) !== '') throw forbidden(a, 'a mirror pod may not reference service accounts')
  if (referencesSecrets(spec)) throw forbidden(a, 'a mirror pod may not reference secrets')
  for (const volume of list(spec.volumes)) {
    const projected = volume.projected
    if (isObj(projected) && list(projected.sources).some((s) => s.serviceAccountToken !== undefined && s.serviceAccountToken !== null)) {
      throw forbidden(a, 'a mirror pod may not use ServiceAccountToken volume projections')
    }
  }
}

/** podutil.VisitPodSecretNames over every container kind: whether the pod names any secret. */
function referencesSecrets(spec: Obj): boolean {
  if (list(spec.imagePullSecrets).some((s) => str(s.name) !== '')) return true
  const containers = [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)]
  for (const c of containers) {
    if (list(c.envFrom).some((e) => isObj(e.secretRef) && str(e.secretRef.name) !== '')) return true
    if (list(c.env).some((e) => isObj(e.valueFrom) && isObj(e.valueFrom.secretKeyRef) && str(e.valueFrom.secretKeyRef.name) !== '')) return true
  }
  for (const v of list(spec.volumes)) {
    if (isObj(v.secret) && str(v.secret.secretName) !== '') return true
    if (isObj(v.projected) && list(v.projected.sources).some((s) => isObj(s.secret) && str(s.secret.name) !== '')) return true
    for (const kind of ['azureFile', 'cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos', 'csi']) {
      const source = v[kind]
      if (!isObj(source)) continue
      if (kind === 'azureFile' && str(source.secretName) !== '') return true
      if (isObj(source.secretRef) && str(source.secretRef.name) !== '') return true
      if (kind === 'csi' && isObj(source.nodePublishSecretRef) && str(source.nodePublishSecretRef.name) !== '') return true
    }
  }
  return false
}

function mountableSecrets(account: KubeObject): Set<string> {
  return new Set(list(account.secrets).map((s) => str(s.name)))
}

/** The first secret reference the account does not allow, as the reference words it. */
function limitSecretReferences(account: KubeObject, spec: Obj): string | undefined {
  const allowed = mountableSecrets(account)
  const accountName = str(account.metadata.name)
  for (const volume of list(spec.volumes)) {
    if (!isObj(volume.secret)) continue
    const secretName = str(volume.secret.secretName)
    if (!allowed.has(secretName)) return `volume with secret.secretName="${secretName}" is not allowed because service account ${accountName} does not reference that secret`
  }
  const why =
    containerSecretReferences(list(spec.initContainers), 'init container', allowed, accountName) ??
    containerSecretReferences(list(spec.containers), 'container', allowed, accountName)
  if (why) return why
  const pullSecrets = new Set(list(account.imagePullSecrets).map((s) => str(s.name)))
  const refs = list(spec.imagePullSecrets)
  for (let i = 0; i < refs.length; i++) {
    const name = str(refs[i]!.name)
    if (!pullSecrets.has(name)) return `imagePullSecrets[${i}].name="${name}" is not allowed because service account ${accountName} does not reference that imagePullSecret`
  }
  return undefined
}

function containerSecretReferences(containers: Obj[], what: string, allowed: Set<string>, accountName: string): string | undefined {
  for (const c of containers) {
    for (const env of list(c.env)) {
      const ref = isObj(env.valueFrom) && isObj(env.valueFrom.secretKeyRef) ? env.valueFrom.secretKeyRef : undefined
      if (ref && !allowed.has(str(ref.name))) {
        return `${what} ${str(c.name)} with envVar ${str(env.name)} referencing secret.secretName="${str(ref.name)}" is not allowed because service account ${accountName} does not reference that secret`
      }
    }
    for (const envFrom of list(c.envFrom)) {
      const ref = isObj(envFrom.secretRef) ? envFrom.secretRef : undefined
      if (ref && !allowed.has(str(ref.name))) {
        return `${what} ${str(c.name)} with envFrom referencing secret.secretName="${str(ref.name)}" is not allowed because service account ${accountName} does not reference that secret`
      }
    }
  }
  return undefined
}
