/**
 * The Node mode (the reference's plugin/pkg/auth/authorizer/node): a kubelet, user
 * `system:node:<name>` in group `system:nodes`, may read only what the pods bound to its node
 * use — their secrets, config maps, persistent volume claims, the persistent volumes bound to
 * those claims and the secrets those volumes name, their resource claims — and get those pods,
 * create tokens for their service accounts, get the volume attachments and resource slices of
 * its node, and reach its own Node, node lease (in kube-node-lease) and CSINode. Other requests
 * are judged on the static rules of the `system:node` role. The graph is kept by informers over
 * pods, persistent volumes, volume attachments and resource slices. What only the object's
 * content can tell (a node creating a mirror pod for itself, its own lease) is left to
 * admission, as the reference leaves it to NodeRestriction.
 */
import { Informer } from '../api/registry/informer.js'
import { goQuote } from '../api/validation/field/go-format.js'
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import { SelectorError, parseFieldSelectorTerms } from '../http/selectors.js'
import type { UserInfo } from '../http/types.js'
import type { Attributes, Authorizer, Decision, RuleResolver, Rules } from './authorizer.js'
import { type PolicyRule, ruleAllows } from './rbac-rules.js'

export const NODE_USER_PREFIX = 'system:node:'
export const NODES_GROUP = 'system:nodes'

type VertexKind = 'pod' | 'secret' | 'configmap' | 'pvc' | 'serviceaccount' | 'resourceclaim' | 'pv' | 'volumeattachment' | 'resourceslice'

/** The namespace of node leases (the reference's api.NamespaceNodeLease). */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease'

/**
 * `system:node:<name>` in `system:nodes` (the reference's NodeIdentifier): the node's name
 * ('' for the user `system:node:` itself), or undefined for a user that is not a node (either
 * condition missing).
 */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.name.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined
  return user.name.slice(NODE_USER_PREFIX.length)
}

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : [])
const str = (v: unknown): string => (typeof v === 'string' ? v : '')

/** What a pod references, as `kind/name` in the pod's namespace (the reference's graph populator). */
export function podReferences(pod: KubeObject): Array<[VertexKind, string]> {
  const spec = obj(pod.spec)
  const refs: Array<[VertexKind, string]> = [['pod', pod.metadata.name ?? '']]
  const add = (kind: VertexKind, name: unknown) => {
    if (str(name)) refs.push([kind, str(name)])
  }
  add('serviceaccount', spec.serviceAccountName)
  for (const s of arr(spec.imagePullSecrets)) add('secret', s.name)
  const containers = [...arr(spec.containers), ...arr(spec.initContainers), ...arr(spec.ephemeralContainers)]
  for (const c of containers) {
    for (const from of arr(c.envFrom)) {
      add('secret', obj(from.secretRef).name)
      add('configmap', obj(from.configMapRef).name)
    }
    for (const env of arr(c.env)) {
      const source = obj(env.valueFrom)
      add('secret', obj(source.secretKeyRef).name)
      add('configmap', obj(source.configMapKeyRef).name)
    }
  }
  for (const v of arr(spec.volumes)) {
    add('secret', obj(v.secret).secretName)
    add('configmap', obj(v.configMap).name)
    add('pvc', obj(v.persistentVolumeClaim).claimName)
    if (v.ephemeral) add('pvc', `${pod.metadata.name ?? ''}-${str(v.name)}`)
    for (const source of arr(obj(v.projected).sources)) {
      add('secret', obj(source.secret).name)
      add('configmap', obj(source.configMap).name)
    }
    for (const plugin of ['azureFile', 'cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos', 'csi']) {
      const p = obj(v[plugin])
      add('secret', obj(p.secretRef).name)
      add('secret', p.secretName)
      add('secret', obj(p.nodePublishSecretRef).name)
    }
  }
  // A claim named directly, or the one generated from a template as the pod's status records it.
  const generated = new Map(arr(obj(pod.status).resourceClaimStatuses).map((s) => [str(s.name), str(s.resourceClaimName)]))
  for (const claim of arr(spec.resourceClaims)) add('resourceclaim', str(claim.resourceClaimName) || generated.get(str(claim.name)))
  return refs
}

const SECRET_REF_FIELDS = ['secretRef', 'controllerPublishSecretRef', 'nodeStageSecretRef', 'nodePublishSecretRef', 'controllerExpandSecretRef', 'nodeExpandSecretRef']

/**
 * The secrets a persistent volume names, as `namespace/name` (the reference's
 * VisitPVSecretNames); `claimNamespace` is where a source without its own namespace looks.
 */
export function persistentVolumeSecrets(pv: KubeObject): string[] {
  const spec = obj(pv.spec)
  const claimNamespace = str(obj(spec.claimRef).namespace)
  const out: string[] = []
  for (const source of Object.values(spec).map(obj)) {
    for (const field of SECRET_REF_FIELDS) {
      const ref = obj(source[field])
      if (str(ref.name)) out.push(`${str(ref.namespace) || claimNamespace}/${str(ref.name)}`)
    }
  }
  // azureFile names its secret by name, in secretNamespace (default: the claim's).
  const azure = obj(spec.azureFile)
  if (str(azure.secretName)) out.push(`${str(azure.secretNamespace) || claimNamespace || 'default'}/${str(azure.secretName)}`)
  return out
}

/** Which node reaches which object: reference counts per node from its pods, and the edges of volumes, attachments and slices. */
export class NodeGraph {
  private readonly byNode = new Map<string, Map<string, number>>()
  private readonly pods = new Map<string, { node: string; keys: string[] }>()
  /** Persistent volume → the claim it is bound to (`namespace/name`) and the secrets it names. */
  private readonly volumes = new Map<string, { claim: string; secrets: string[] }>()
  /** Secret `namespace/name` → the persistent volumes that name it. */
  private readonly volumesBySecret = new Map<string, Set<string>>()
  /** Volume attachment and resource slice → its node. */
  private readonly attachments = new Map<string, string>()
  private readonly slices = new Map<string, string>()
  private informers: Informer[] = []

  private static key(kind: VertexKind, namespace: string, name: string): string {
    return `${kind}/${namespace}/${name}`
  }

  setPod(pod: KubeObject): void {
    const id = `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`
    this.deletePodById(id)
    const node = str(obj(pod.spec).nodeName)
    if (!node) return
    const namespace = pod.metadata.namespace ?? ''
    const keys = podReferences(pod).map(([kind, name]) => NodeGraph.key(kind, namespace, name))
    const counts = this.byNode.get(node) ?? new Map<string, number>()
    for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1)
    this.byNode.set(node, counts)
    this.pods.set(id, { node, keys })
  }

  deletePod(pod: KubeObject): void {
    this.deletePodById(`${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`)
  }

  private deletePodById(id: string): void {
    const old = this.pods.get(id)
    if (!old) return
    this.pods.delete(id)
    const counts = this.byNode.get(old.node)
    if (!counts) return
    for (const k of old.keys) {
      const n = (counts.get(k) ?? 0) - 1
      if (n > 0) counts.set(k, n)
      else counts.delete(k)
    }
    if (counts.size === 0) this.byNode.delete(old.node)
  }

  /** A persistent volume reaches nodes through the claim of its claimRef, as the reference's AddPV. */
  setPersistentVolume(pv: KubeObject): void {
    const name = pv.metadata.name ?? ''
    this.deletePersistentVolume(pv)
    const claimRef = obj(obj(pv.spec).claimRef)
    if (!str(claimRef.name)) return
    const secrets = persistentVolumeSecrets(pv)
    this.volumes.set(name, { claim: `${str(claimRef.namespace)}/${str(claimRef.name)}`, secrets })
    for (const secret of secrets) {
      const set = this.volumesBySecret.get(secret) ?? new Set<string>()
      set.add(name)
      this.volumesBySecret.set(secret, set)
    }
  }

  deletePersistentVolume(pv: KubeObject): void {
    const name = pv.metadata.name ?? ''
    const old = this.volumes.get(name)
    if (!old) return
    this.volumes.delete(name)
    for (const secret of old.secrets) {
      const set = this.volumesBySecret.get(secret)
      set?.delete(name)
      if (set?.size === 0) this.volumesBySecret.delete(secret)
    }
  }

  setVolumeAttachment(va: KubeObject): void {
    const node = str(obj(va.spec).nodeName)
    if (node) this.attachments.set(va.metadata.name ?? '', node)
    else this.attachments.delete(va.metadata.name ?? '')
  }

  deleteVolumeAttachment(va: KubeObject): void {
    this.attachments.delete(va.metadata.name ?? '')
  }

  setResourceSlice(slice: KubeObject): void {
    const node = str(obj(slice.spec).nodeName)
    if (node) this.slices.set(slice.metadata.name ?? '', node)
    else this.slices.delete(slice.metadata.name ?? '')
  }

  deleteResourceSlice(slice: KubeObject): void {
    this.slices.delete(slice.metadata.name ?? '')
  }

  hasPath(node: string, kind: VertexKind, namespace: string, name: string): boolean {
    const direct = (k: VertexKind, ns: string, n: string) => this.byNode.get(node)?.has(NodeGraph.key(k, ns, n)) ?? false
    const volumeReached = (pvName: string) => {
      const volume = this.volumes.get(pvName)
      if (!volume) return false
      const [claimNamespace, claimName] = volume.claim.split('/') as [string, string]
      return direct('pvc', claimNamespace, claimName)
    }
    switch (kind) {
      case 'pv':
        return volumeReached(name)
      case 'secret':
        if (direct('secret', namespace, name)) return true
        for (const pvName of this.volumesBySecret.get(`${namespace}/${name}`) ?? []) if (volumeReached(pvName)) return true
        return false
      case 'volumeattachment':
        return this.attachments.get(name) === node
      case 'resourceslice':
        return this.slices.get(name) === node
      default:
        return direct(kind, namespace, name)
    }
  }

  async start(registry: Registry, onError: (err: Error) => void = () => {}): Promise<void> {
    const watch = (group: string, version: string, resource: string, upsert: (o: KubeObject) => void, remove: (o: KubeObject) => void) => {
      const store = registry.lookup(group, version, resource)
      if (!store) return
      // The graph keeps what it needs of each object: the informer keeps their identities only.
      const informer = new Informer(store, { upsert, remove }, onError, undefined, 'identity')
      this.informers.push(informer)
      informer.start()
    }
    watch('', 'v1', 'pods', (p) => this.setPod(p), (p) => this.deletePod(p))
    watch('', 'v1', 'persistentvolumes', (pv) => this.setPersistentVolume(pv), (pv) => this.deletePersistentVolume(pv))
    watch('storage.k8s.io', 'v1', 'volumeattachments', (va) => this.setVolumeAttachment(va), (va) => this.deleteVolumeAttachment(va))
    watch('resource.k8s.io', 'v1', 'resourceslices', (s) => this.setResourceSlice(s), (s) => this.deleteResourceSlice(s))
    await Promise.all(this.informers.map((i) => i.synced))
  }

  stop(): void {
    for (const informer of this.informers) informer.stop()
    this.informers = []
  }
}

/**
 * Whether a raw field selector requires `field=value` (or `==`), as the reference reads the
 * requirements fields.ParseSelector gives (nothing trimmed, escapes undone); a selector that
 * does not parse requires nothing.
 */
function fieldEquals(selector: string | undefined, field: string, value: string): boolean {
  if (!selector) return false
  try {
    return parseFieldSelectorTerms(selector).some((r) => r.field === field && r.operator === '=' && r.value === value)
  } catch (err) {
    if (err instanceof SelectorError) return false
    throw err
  }
}

const noOpinion = (reason: string): Decision => ({ decision: 'noOpinion', reason })

export class NodeAuthorizer implements Authorizer, RuleResolver {
  /** `rules`: the static rules for the requests this mode does not subdivide (the reference's NodeRules, the system:node role). */
  constructor(
    private readonly graph: NodeGraph,
    private readonly rules: readonly PolicyRule[] = [],
  ) {}

  authorize(a: Attributes): Decision {
    const node = nodeIdentity(a.user)
    if (node === undefined) return { decision: 'noOpinion' }
    if (node === '') return noOpinion(`unknown node for user ${goQuote(a.user.name)}`)
    if (a.resourceRequest) {
      const decided = this.subdivided(node, a)
      if (decided) return decided
    }
    return this.rules.some((rule) => ruleAllows(a, rule)) ? { decision: 'allow' } : { decision: 'noOpinion' }
  }

  /** The resources whose access depends on the node; undefined for the others. */
  private subdivided(node: string, a: Attributes): Decision | undefined {
    switch (`${a.resource}.${a.apiGroup}`) {
      case 'secrets.':
        return this.readNamespaced(node, 'secret', a)
      case 'configmaps.':
        return this.readNamespaced(node, 'configmap', a)
      case 'persistentvolumeclaims.':
        return a.subresource === 'status' ? this.statusUpdate(node, 'pvc', a) : this.get(node, 'pvc', a)
      case 'persistentvolumes.':
        return this.get(node, 'pv', a)
      case 'resourceclaims.resource.k8s.io':
        return this.get(node, 'resourceclaim', a)
      case 'volumeattachments.storage.k8s.io':
        return this.get(node, 'volumeattachment', a)
      case 'serviceaccounts.':
        return this.createToken(node, a)
      case 'leases.coordination.k8s.io':
        return this.lease(node, a)
      case 'csinodes.storage.k8s.io':
        return this.csiNode(node, a)
      case 'resourceslices.resource.k8s.io':
        return this.resourceSlice(node, a)
      case 'nodes.':
        return this.nodeObject(node, a)
      case 'pods.':
        return this.pod(node, a)
      default:
        return undefined
    }
  }

  private readNamespaced(node: string, kind: VertexKind, a: Attributes): Decision {
    if (!['get', 'list', 'watch'].includes(a.verb)) return noOpinion('can only read resources of this type')
    if (a.subresource) return noOpinion('cannot read subresource')
    if (!a.namespace) return noOpinion('can only read namespaced object of this type')
    return this.related(node, kind, a)
  }

  private get(node: string, kind: VertexKind, a: Attributes): Decision {
    if (a.verb !== 'get') return noOpinion('can only get individual resources of this type')
    if (a.subresource) return noOpinion('cannot get subresource')
    return this.related(node, kind, a)
  }

  private statusUpdate(node: string, kind: VertexKind, a: Attributes): Decision {
    if (a.verb !== 'update' && a.verb !== 'patch') return noOpinion('can only get/update/patch this type')
    return this.related(node, kind, a)
  }

  private createToken(node: string, a: Attributes): Decision {
    if (a.verb !== 'create' || !a.name) return noOpinion('can only create tokens for individual service accounts')
    if (a.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount')
    return this.graph.hasPath(node, 'serviceaccount', a.namespace, a.name) ? { decision: 'allow' } : noOpinion(`no relationship found between node '${node}' and this object`)
  }

  /** Its own lease in kube-node-lease; a create is judged by admission, which sees the name. */
  private lease(node: string, a: Attributes): Decision {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease')
    if (a.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`)
    if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access node lease with the same name as the requesting node')
    return { decision: 'allow' }
  }

  private csiNode(node: string, a: Attributes): Decision {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode')
    if (a.subresource) return noOpinion('cannot authorize CSINode subresources')
    if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access CSINode with the same name as the requesting node')
    return { decision: 'allow' }
  }

  private resourceSlice(node: string, a: Attributes): Decision {
    if (a.subresource) return noOpinion('cannot authorize ResourceSlice subresources')
    switch (a.verb) {
      case 'create':
        return { decision: 'allow' }
      case 'get':
      case 'update':
      case 'patch':
      case 'delete':
        return this.related(node, 'resourceslice', a)
      case 'watch':
      case 'list':
      case 'deletecollection':
        if (fieldEquals(a.fieldSelector, 'nodeName', node)) return { decision: 'allow' }
        return noOpinion('can only list/watch/deletecollection resourceslices with nodeName field selector')
      default:
        return noOpinion('only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection')
    }
  }

  /** Its own Node object by name (even before it exists); writes are admission's to restrict. */
  private nodeObject(node: string, a: Attributes): Decision {
    if (a.subresource === '') {
      if (['create', 'update', 'patch'].includes(a.verb)) return { decision: 'allow' }
      if (['get', 'list', 'watch'].includes(a.verb)) {
        if (a.name === node) return { decision: 'allow' }
        if (a.name === '') return noOpinion(`node '${node}' cannot read all nodes, only its own Node object`)
        return noOpinion(`node '${node}' cannot read '${a.name}', only its own Node object`)
      }
    } else if (a.subresource === 'status' && (a.verb === 'update' || a.verb === 'patch')) {
      return { decision: 'allow' }
    }
    return { decision: 'noOpinion' }
  }

  /** Its pods: get by the graph, list and watch with `spec.nodeName=<node>`, mirror pods, status, evictions. */
  private pod(node: string, a: Attributes): Decision {
    switch (a.subresource) {
      case '':
        if (a.verb === 'get') return this.get(node, 'pod', a)
        if (a.verb === 'list' || a.verb === 'watch') {
          if (fieldEquals(a.fieldSelector, 'spec.nodeName', node)) return { decision: 'allow' }
          if (a.name) return this.related(node, 'pod', a)
          return noOpinion('can only list/watch pods with spec.nodeName field selector')
        }
        if (a.verb === 'create' || a.verb === 'delete') return { decision: 'allow' }
        break
      case 'status':
        if (a.verb === 'update' || a.verb === 'patch') return { decision: 'allow' }
        break
      case 'eviction':
        if (a.verb === 'create') return { decision: 'allow' }
        break
    }
    return { decision: 'noOpinion' }
  }

  private related(node: string, kind: VertexKind, a: Attributes): Decision {
    if (!a.name) return noOpinion('No Object name found')
    if (!this.graph.hasPath(node, kind, a.namespace, a.name)) return noOpinion(`no relationship found between node '${node}' and this object`)
    return { decision: 'allow' }
  }

  /** As the reference: a node's rules are not listed, and the list says it is incomplete. */
  rulesFor(user: UserInfo): Rules {
    if (nodeIdentity(user) === undefined) return { resourceRules: [], nonResourceRules: [], incomplete: false, errors: [] }
    return { resourceRules: [], nonResourceRules: [], incomplete: true, errors: ['node authorizer does not support user rule resolution'] }
  }
}
