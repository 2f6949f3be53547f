/**
 * The Node mode (the reference's plugin/pkg/auth/authorizer/node): a kubelet, user
 * `system:node:<name>` in group `system:nodes`, may read only what the pods bound to its node
 * use — their secrets, config maps, persistent volume claims — and get those pods and create
 * tokens for their service accounts. The graph of pods and what they reference is kept by an
 * informer over pods; every other request gets no opinion from this mode.
 */
import { Informer } from '../api/registry/informer.js'
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import type { UserInfo } from '../http/types.js'
import type { Attributes, Authorizer, Decision, RuleResolver, Rules } from './authorizer.js'

export const NODE_USER_PREFIX = 'system:node:'
export const NODES_GROUP = 'system:nodes'

type VertexKind = 'pod' | 'secret' | 'configmap' | 'pvc' | 'serviceaccount'

/** `system:node:<name>` in `system:nodes`: the node's name ('' for a node identity without one), or undefined. */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.groups.includes(NODES_GROUP)) return undefined
  return user.name.startsWith(NODE_USER_PREFIX) ? user.name.slice(NODE_USER_PREFIX.length) : ''
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
  return refs
}

/** Which node reaches which object, by reference counts per node. */
export class NodeGraph {
  private readonly byNode = new Map<string, Map<string, number>>()
  private readonly pods = new Map<string, { node: string; keys: string[] }>()
  private informer: Informer | undefined

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

  hasPath(node: string, kind: VertexKind, namespace: string, name: string): boolean {
    return this.byNode.get(node)?.has(NodeGraph.key(kind, namespace, name)) ?? false
  }

  async start(registry: Registry, onError: (err: Error) => void = () => {}): Promise<void> {
    const pods = registry.lookup('', 'v1', 'pods')
    if (!pods) return
    this.informer = new Informer(pods, { upsert: (p) => this.setPod(p), remove: (p) => this.deletePod(p) }, onError)
    this.informer.start()
    await this.informer.synced
  }

  stop(): void {
    this.informer?.stop()
  }
}

const noOpinion = (reason: string): Decision => ({ decision: 'noOpinion', reason })

export class NodeAuthorizer implements Authorizer, RuleResolver {
  constructor(private readonly graph: NodeGraph) {}

  authorize(a: Attributes): Decision {
    const node = nodeIdentity(a.user)
    if (node === undefined) return { decision: 'noOpinion' }
    if (node === '') return noOpinion('unknown node')
    if (!a.resourceRequest || a.apiGroup !== '') return { decision: 'noOpinion' }
    switch (a.resource) {
      case 'secrets':
        return this.readNamespaced(node, 'secret', a)
      case 'configmaps':
        return this.readNamespaced(node, 'configmap', a)
      case 'persistentvolumeclaims':
        return this.get(node, 'pvc', a)
      case 'pods':
        if (a.verb === 'get' && !a.subresource) return this.related(node, 'pod', a)
        return { decision: 'noOpinion' }
      case 'serviceaccounts':
        if (a.verb !== 'create' || a.subresource !== 'token' || !a.name) return noOpinion('can only create tokens for individual service accounts')
        return this.related(node, 'serviceaccount', a)
      default:
        return { decision: 'noOpinion' }
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
