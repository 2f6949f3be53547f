/**
 * The PersistentVolume controller (the reference's pkg/controller/volume/persistentvolume,
 * kube-controller-manager's `persistentvolume-binder-controller`) with the simulated dynamic
 * provisioner of a whole cluster (volume/simulated-provisioner.ts):
 *
 * - an unbound claim is bound to the matching volume (volume/volume-matching.ts): the volume's
 *   claimRef and `pv.kubernetes.io/bound-by-controller` when the controller chose it, phase
 *   Bound; the claim's volumeName, `pv.kubernetes.io/bind-completed` (and bound-by-controller),
 *   phase Bound with the volume's capacity and access modes;
 * - else, in a class that binds on first consumer and no node chosen yet, it waits
 *   (`WaitForFirstConsumer` / `WaitForPodScheduled` events); else its class's provisioner is
 *   asked (`volume.kubernetes.io/storage-provisioner`, `ExternalProvisioning`); the simulated
 *   provisioner makes the volume `pvc-<uid>` pre-bound to it (`Provisioning`,
 *   `ProvisioningSucceeded`), which the next pass binds;
 * - a volume is Available without a claim, Bound with its claim, Released when its claim is
 *   gone; Released volumes of policy Delete are deleted (the provisioner's own), or Failed.
 *
 * Every pass looks at all claims and volumes (the reference's periodic resync, on every change
 * of claims, volumes, classes, nodes and pods that use claims); writes are as the reference's
 * ServiceAccount `persistent-volume-binder`; events say each thing once per claim.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { toApiError } from '../api/status-errors.js'
import { newestDefaultClass } from '../admission/newest-default-class.js'
import { type Clock, SYSTEM_CLOCK } from './clock.js'
import type { Controller, ControllerContext } from './controller.js'
import { EventRecorder, type EventType } from './event-recorder.js'
import { asControllerServiceAccount } from './kit/controller-identity.js'
import { KeyedQueue } from './kit/keyed-queue.js'
import { PROVISIONED_BY_ANNOTATION, SELECTED_NODE_ANNOTATION, SIMULATED_PROVISIONER, defaultStorageClass, provisionedVolume } from './volume/simulated-provisioner.js'
import { type NodeLabels, claimClass, claimSpec, findMatchingVolume, isVolumeBoundToClaim, phaseOf, volumeSpec } from './volume/volume-matching.js'

const ADMISSION = asControllerServiceAccount('persistent-volume-binder')
const COMPONENT = 'persistentvolume-controller'
const BIND_COMPLETED = 'pv.kubernetes.io/bind-completed'
const BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller'
const STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner'
const BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner'
const ALL = 'all'

export interface PersistentVolumeBinderOptions {
  readonly clock?: Clock
  /** Write the default StorageClass at start (a whole cluster does). */
  readonly writeDefaultStorageClass?: boolean
  readonly onError?: (err: Error) => void
}

interface Snapshot {
  readonly classes: Map<string, KubeObject>
  readonly volumes: KubeObject[]
  readonly claims: KubeObject[]
  readonly nodes: Map<string, NodeLabels>
  readonly pods: KubeObject[]
}

const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`

export class PersistentVolumeBinder implements Controller {
  readonly name = 'persistentvolume-binder-controller'
  private queue: KeyedQueue | undefined
  private unsubscribe: (() => void) | undefined
  private readonly clock: Clock
  private stores!: { volumes: GenericStore; claims: GenericStore; classes: GenericStore; nodes?: GenericStore; pods?: GenericStore }
  private events!: EventRecorder
  private provisionerEvents!: EventRecorder
  /** The last event said about each claim (by uid), so that a pass does not say it again. */
  private readonly said = new Map<string, string>()

  constructor(private readonly options: PersistentVolumeBinderOptions = {}) {
    this.clock = options.clock ?? SYSTEM_CLOCK
  }

  async start(ctx: ControllerContext): Promise<void> {
    const volumes = ctx.registry.lookup('', 'v1', 'persistentvolumes')
    const claims = ctx.registry.lookup('', 'v1', 'persistentvolumeclaims')
    const classes = ctx.registry.lookup('storage.k8s.io', 'v1', 'storageclasses')
    if (!volumes || !claims || !classes) return
    this.stores = { volumes, claims, classes, ...optional('nodes', ctx.registry.lookup('', 'v1', 'nodes')), ...optional('pods', ctx.registry.lookup('', 'v1', 'pods')) }
    const onError = (err: Error) => (this.options.onError ?? ((e: Error) => ctx.log(2, `persistentvolume binder: ${e.message}`)))(err)
    this.events = new EventRecorder(ctx.registry, COMPONENT, { clock: this.clock, onError })
    this.provisionerEvents = new EventRecorder(ctx.registry, SIMULATED_PROVISIONER, { clock: this.clock, onError })
    this.queue = new KeyedQueue(() => this.sync(), { clock: this.clock, recheckMs: 15_000, onError: (err) => onError(err as Error), onTick: () => this.queue?.add(ALL) })
    this.unsubscribe = ctx.registry.onChange(({ object, strategy }) => {
      const r = strategy.resource
      if (strategy.group === '' && (r === 'persistentvolumes' || r === 'persistentvolumeclaims' || r === 'nodes')) this.queue?.add(ALL)
      else if (strategy.group === 'storage.k8s.io' && r === 'storageclasses') this.queue?.add(ALL)
      else if (strategy.group === '' && r === 'pods' && usesClaims(object)) this.queue?.add(ALL)
    })
    if (this.options.writeDefaultStorageClass) await this.writeDefaultStorageClass(onError)
    this.queue.start()
    this.queue.add(ALL)
  }

  stop(): void {
    this.unsubscribe?.()
    this.queue?.stop()
  }

  private async writeDefaultStorageClass(onError: (err: Error) => void): Promise<void> {
    try {
      await this.stores.classes.create(defaultStorageClass(), { admission: ADMISSION })
    } catch (err) {
      if (toApiError(err).status.code !== 409) onError(err as Error)
    }
  }

  private async snapshot(): Promise<Snapshot> {
    const [classes, volumes, claims, nodes, pods] = await Promise.all([
      this.stores.classes.list(),
      this.stores.volumes.list(),
      this.stores.claims.list(),
      this.stores.nodes?.list(),
      this.stores.pods?.list(),
    ])
    return {
      classes: new Map(classes.items.map((c) => [c.metadata.name ?? '', c])),
      volumes: volumes.items,
      claims: claims.items,
      nodes: new Map((nodes?.items ?? []).map((n) => [n.metadata.name ?? '', { name: n.metadata.name ?? '', labels: n.metadata.labels ?? {} }])),
      pods: (pods?.items ?? []).filter(usesClaims),
    }
  }

  /** One pass over every claim, then every volume (syncClaim, syncVolume). */
  private async sync(): Promise<void> {
    const snap = await this.snapshot()
    for (const claim of snap.claims) await this.syncClaim(claim, snap)
    const after = await this.snapshot()
    const claimsByKey = new Map(after.claims.map((c) => [keyOf(c), c]))
    for (const volume of after.volumes) await this.syncVolume(volume, claimsByKey)
  }

  private async syncClaim(claim: KubeObject, snap: Snapshot): Promise<void> {
    const volumeName = claimSpec(claim).volumeName
    if (volumeName) return this.syncBoundClaim(claim, volumeName, snap)
    if (await this.assignDefaultStorageClass(claim, snap)) return
    const klass = claimClass(claim)
    const storageClass = snap.classes.get(klass)
    const delayBinding = (storageClass as { volumeBindingMode?: string } | undefined)?.volumeBindingMode === 'WaitForFirstConsumer'
    const selectedNode = claim.metadata.annotations?.[SELECTED_NODE_ANNOTATION]
    const node = selectedNode ? (snap.nodes.get(selectedNode) ?? { name: selectedNode, labels: { 'kubernetes.io/hostname': selectedNode } }) : undefined
    const volume = findMatchingVolume(claim, snap.volumes, { delayBinding, ...(node ? { node } : {}) })
    if (volume) return this.bind(volume, claim)
    await this.setClaimPending(claim)
    if (delayBinding && !selectedNode) return this.sayWaiting(claim, snap)
    if (klass === '') return this.say(claim, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set')
    if (!storageClass) return this.say(claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${klass}" not found`)
    return this.provision(claim, storageClass)
  }

  /**
   * assignDefaultStorageClass (retroactive default class): an unbound claim that names no class
   * at all (no storageClassName, not even "", no beta annotation) gets the default one made
   * since; the write brings the next pass.
   */
  private async assignDefaultStorageClass(claim: KubeObject, snap: Snapshot): Promise<boolean> {
    if (claimSpec(claim).storageClassName !== undefined || claim.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] !== undefined) return false
    const chosen = newestDefaultClass([...snap.classes.values()], isDefaultClass)
    if (!chosen?.metadata.name) return false
    await this.stores.claims.update(
      claim.metadata.namespace,
      claim.metadata.name ?? '',
      (c) => (claimSpec(c).storageClassName !== undefined ? c : { ...c, spec: { ...(c.spec as object), storageClassName: chosen.metadata.name } }),
      { retryOnConflict: true, admission: ADMISSION },
    )
    return true
  }

  /** emitEventForUnboundDelayBindingClaim: which pods wait to be scheduled, if any. */
  private sayWaiting(claim: KubeObject, snap: Snapshot): Promise<void> {
    const waiting = snap.pods
      .filter((p) => p.metadata.namespace === claim.metadata.namespace && !(p.spec as { nodeName?: string } | undefined)?.nodeName && claimNamesOf(p).includes(claim.metadata.name ?? ''))
      .map((p) => p.metadata.name ?? '')
    if (waiting.length === 0) return this.say(claim, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding')
    const message = waiting.length > 1 ? `waiting for pods ${waiting.join(',')} to be scheduled` : `waiting for pod ${waiting[0]} to be scheduled`
    return this.say(claim, 'Normal', 'WaitForPodScheduled', message)
  }

  /** provisionClaim for an external provisioner: the claim names it, and the simulated one makes the volume. */
  private async provision(claim: KubeObject, storageClass: KubeObject): Promise<void> {
    const provisioner = (storageClass as { provisioner?: string }).provisioner ?? ''
    const annotated = claim.metadata.annotations?.[STORAGE_PROVISIONER] === provisioner
    let current = claim
    if (!annotated) {
      current = await this.stores.claims.update(
        claim.metadata.namespace,
        claim.metadata.name ?? '',
        (c) => ({ ...c, metadata: { ...c.metadata, annotations: { ...c.metadata.annotations, [STORAGE_PROVISIONER]: provisioner, [BETA_STORAGE_PROVISIONER]: provisioner } } }),
        { retryOnConflict: true, admission: ADMISSION },
      )
    }
    await this.say(
      claim,
      'Normal',
      'ExternalProvisioning',
      `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
    )
    if (provisioner !== SIMULATED_PROVISIONER) return
    await this.provisionerEvents.record(current, 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim "${keyOf(current)}"`)
    const volume = provisionedVolume(current, storageClass)
    try {
      await this.stores.volumes.create(volume, { admission: ADMISSION })
    } catch (err) {
      if (toApiError(err).status.code === 409) return
      await this.provisionerEvents.record(current, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${storageClass.metadata.name}": ${(err as Error).message}`)
      throw err
    }
    await this.provisionerEvents.record(current, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${volume.metadata.name}`)
  }

  /** syncBoundClaim: the claim names its volume; bind what is not bound yet, or say the volume is lost. */
  private async syncBoundClaim(claim: KubeObject, volumeName: string, snap: Snapshot): Promise<void> {
    const volume = snap.volumes.find((v) => v.metadata.name === volumeName)
    if (!volume) {
      if (claim.metadata.annotations?.[BIND_COMPLETED] === undefined && phaseOf(claim) !== 'Bound') return this.setClaimPending(claim)
      if (phaseOf(claim) === 'Lost') return
      await this.stores.claims.update(claim.metadata.namespace, claim.metadata.name ?? '', (c) => ({ ...c, status: { ...(c.status as object), phase: 'Lost' } }), { subresource: 'status', retryOnConflict: true, admission: ADMISSION })
      return this.say(claim, 'Warning', 'ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!')
    }
    const ref = volumeSpec(volume).claimRef
    if (!ref?.name || isVolumeBoundToClaim(volume, claim)) {
      if (!ref?.name || !ref.uid || phaseOf(claim) !== 'Bound' || phaseOf(volume) !== 'Bound' || claim.metadata.annotations?.[BIND_COMPLETED] === undefined) return this.bind(volume, claim)
      return
    }
    // The volume is bound to another claim: the reference's ClaimMisbound.
    return this.say(claim, 'Warning', 'ClaimMisbound', 'Two claims are bound to the same volume, this one is bound incorrectly')
  }

  /** bind: the volume to the claim, then the claim to the volume, each with its status. */
  private async bind(volume: KubeObject, claim: KubeObject): Promise<void> {
    const ref = { kind: 'PersistentVolumeClaim', namespace: claim.metadata.namespace, name: claim.metadata.name, uid: claim.metadata.uid, apiVersion: 'v1', resourceVersion: claim.metadata.resourceVersion }
    const bound = await this.stores.volumes.update(
      undefined,
      volume.metadata.name ?? '',
      (v) => {
        const had = volumeSpec(v).claimRef
        if (had?.uid === claim.metadata.uid && had?.name === claim.metadata.name) return v
        const annotations = had?.name ? v.metadata.annotations : { ...v.metadata.annotations, [BOUND_BY_CONTROLLER]: 'yes' }
        return { ...v, metadata: { ...v.metadata, ...(annotations ? { annotations } : {}) }, spec: { ...(v.spec as object), claimRef: ref } }
      },
      { retryOnConflict: true, admission: ADMISSION },
    )
    await this.setVolumePhase(bound, 'Bound')
    const claimed = await this.stores.claims.update(
      claim.metadata.namespace,
      claim.metadata.name ?? '',
      (c) => {
        const annotations: Record<string, string> = { ...c.metadata.annotations, [BIND_COMPLETED]: 'yes' }
        if (!claimSpec(c).volumeName) annotations[BOUND_BY_CONTROLLER] = 'yes'
        return { ...c, metadata: { ...c.metadata, annotations }, spec: { ...(c.spec as object), volumeName: bound.metadata.name } }
      },
      { retryOnConflict: true, admission: ADMISSION },
    )
    const { accessModes, capacity } = volumeSpec(bound)
    if (phaseOf(claimed) === 'Bound') return
    await this.stores.claims.update(
      claimed.metadata.namespace,
      claimed.metadata.name ?? '',
      (c) => ({ ...c, status: { ...(c.status as object), phase: 'Bound', ...(accessModes ? { accessModes } : {}), ...(capacity ? { capacity } : {}) } }),
      { subresource: 'status', retryOnConflict: true, admission: ADMISSION },
    )
  }

  private async setClaimPending(claim: KubeObject): Promise<void> {
    if (phaseOf(claim) === 'Pending') return
    await this.stores.claims.update(claim.metadata.namespace, claim.metadata.name ?? '', (c) => ({ ...c, status: { ...(c.status as object), phase: 'Pending' } }), { subresource: 'status', retryOnConflict: true, admission: ADMISSION })
  }

  /** syncVolume: the volume's phase from its claim; a Released volume is reclaimed by its policy. */
  private async syncVolume(volume: KubeObject, claims: Map<string, KubeObject>): Promise<void> {
    if (volume.metadata.deletionTimestamp) return
    const ref = volumeSpec(volume).claimRef
    if (!ref?.name) return this.setVolumePhase(volume, 'Available')
    const claim = claims.get(`${ref.namespace ?? ''}/${ref.name}`)
    if (claim && (!ref.uid || ref.uid === claim.metadata.uid)) {
      // Bound once the claim names it; until then (pre-bound, or just provisioned) it waits Available.
      return this.setVolumePhase(volume, claimSpec(claim).volumeName === volume.metadata.name ? 'Bound' : 'Available')
    }
    // A volume pre-bound by its user to a claim not made yet stays Available.
    if (!ref.uid) return this.setVolumePhase(volume, 'Available')
    if (phaseOf(volume) !== 'Released' && phaseOf(volume) !== 'Failed') await this.setVolumePhase(volume, 'Released')
    if (phaseOf(volume) === 'Failed') return
    return this.reclaim(volume)
  }

  private async reclaim(volume: KubeObject): Promise<void> {
    const policy = volumeSpec(volume).persistentVolumeReclaimPolicy ?? 'Retain'
    if (policy !== 'Delete') return
    if (volume.metadata.annotations?.[PROVISIONED_BY_ANNOTATION] !== SIMULATED_PROVISIONER) {
      await this.setVolumePhase(volume, 'Failed')
      return void (await this.events.record(volume, 'Warning', 'VolumeFailedDelete', `error getting deleter volume plugin for volume "${volume.metadata.name}": no deletable volume plugin matched`))
    }
    try {
      await this.stores.volumes.delete(undefined, volume.metadata.name ?? '', { preconditions: { uid: volume.metadata.uid! }, admission: ADMISSION })
    } catch (err) {
      const code = toApiError(err).status.code
      if (code !== 404 && code !== 409) throw err
    }
  }

  private async setVolumePhase(volume: KubeObject, phase: string): Promise<void> {
    if (phaseOf(volume) === phase) return
    const at = new Date(Math.floor(this.clock.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z')
    try {
      await this.stores.volumes.update(undefined, volume.metadata.name ?? '', (v) => ({ ...v, status: { ...(v.status as object), phase, lastPhaseTransitionTime: at } }), {
        subresource: 'status',
        retryOnConflict: true,
        admission: ADMISSION,
      })
      ;(volume as { status?: unknown }).status = { ...(volume.status as object), phase }
    } catch (err) {
      if (toApiError(err).status.code !== 404) throw err
    }
  }

  private async say(claim: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    const uid = claim.metadata.uid ?? keyOf(claim)
    const what = `${reason}\n${message}`
    if (this.said.get(uid) === what) return
    this.said.set(uid, what)
    if (this.said.size > 10_000) this.said.delete(this.said.keys().next().value!)
    await this.events.record(claim, type, reason, message)
  }
}

/** IsDefaultAnnotation: the class is marked default (GA or beta annotation). */
const isDefaultClass = (c: KubeObject): boolean =>
  c.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true' || c.metadata.annotations?.['storageclass.beta.kubernetes.io/is-default-class'] === 'true'

function optional<K extends string>(key: K, store: GenericStore | undefined): Partial<Record<K, GenericStore>> {
  return store ? ({ [key]: store } as Record<K, GenericStore>) : {}
}

/** The claim names a pod's volumes use: claimName, or `<pod>-<volume>` for generic ephemeral volumes. */
function claimNamesOf(pod: KubeObject): string[] {
  const volumes = ((pod.spec as { volumes?: unknown } | undefined)?.volumes ?? []) as Array<{ name: string; persistentVolumeClaim?: { claimName?: string }; ephemeral?: unknown }>
  return volumes.flatMap((v) => (v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : v.ephemeral ? [`${pod.metadata.name ?? ''}-${v.name}`] : []))
}

const usesClaims = (pod: KubeObject): boolean => claimNamesOf(pod).length > 0
