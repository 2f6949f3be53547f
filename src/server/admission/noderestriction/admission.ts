/**
 * The NodeRestriction admission plugin (the reference's plugin/pkg/admission/noderestriction):
 * what a kubelet (`system:node:<name>` in `system:nodes`) may write once the Node authorizer
 * let the request through. Only its own mirror pods (annotated `kubernetes.io/config.mirror`,
 * owned by its Node as controller, naming no service account, secret, config map, trust
 * bundle or claim), deleting and evicting pods bound to it, the status of those pods (not their
 * labels nor resource claim statuses through it); its own Node, without a config source, its
 * taints or labels outside the kubelet's (never `node-restriction.kubernetes.io/`); the status
 * of claims, and of nothing else in them; tokens bound to its pods; its own lease in
 * kube-node-lease, CSINode and ResourceSlices; CSRs for the kubelet signers naming itself.
 * Other users pass untouched, whichever authorizers the server runs.
 */
import { featureGate } from '../../../core/options/feature-gates.js'
import { isPlainObject } from '../../api/registry/object.js'
import { goQuote } from '../../api/validation/field/go-format.js'
import { arr, obj, semanticEqual, str } from '../../api/validation/helpers.js'
import { nodeIdentity, podReferences } from '../../authorization/node.js'
import { type AdmissionAttributes, CREATE, DELETE, UPDATE } from '../attributes.js'
import { forbidden } from '../forbidden.js'
import { type MutationInterface, handlesOnly } from '../interfaces.js'
import type { PluginInitialization } from '../plugins.js'
import { requestCommonName } from './csr-common-name.js'
import { forbiddenLabels, modifiedLabels } from './kubelet-labels.js'
import { readObject } from './objects.js'
import { TokenRequestRestriction } from './token-request.js'

export const NODE_RESTRICTION = 'NodeRestriction'

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror'
const NODE_LEASE_NAMESPACE = 'kube-node-lease'
const KUBELET_SIGNERS = ['kubernetes.io/kubelet-serving', 'kubernetes.io/kube-apiserver-client-kubelet']

export class NodeRestriction implements MutationInterface {
  readonly handles = handlesOnly(CREATE, UPDATE, DELETE)
  private readonly expansionRecovery: boolean
  private readonly insecureKubeletCSRs: boolean
  private readonly tokens: TokenRequestRestriction

  constructor(private readonly init: PluginInitialization) {
    const gate = (name: string, fallback: boolean) => init.config.featureGates?.get(name) ?? featureGate(name)?.default ?? fallback
    // RecoverVolumeExpansionFailure is GA (on, locked) in 1.34; the other two are as listed.
    this.expansionRecovery = gate('RecoverVolumeExpansionFailure', true)
    this.insecureKubeletCSRs = gate('AllowInsecureKubeletCertificateSigningRequests', false)
    this.tokens = new TokenRequestRestriction(init, gate('ServiceAccountNodeAudienceRestriction', true))
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    const nodeName = a.userInfo ? nodeIdentity(a.userInfo) : undefined
    // Only nodes are restricted here.
    if (nodeName === undefined) return
    if (nodeName === '') throw forbidden(a, `could not determine node from user ${goQuote(a.userInfo!.name)}`)
    switch (`${a.resource.resource}.${a.resource.group}`) {
      case 'pods.':
        if (a.subresource === '') return this.admitPod(nodeName, a)
        if (a.subresource === 'status') return this.admitPodStatus(nodeName, a)
        if (a.subresource === 'eviction') return this.admitPodEviction(nodeName, a)
        throw forbidden(a, `unexpected pod subresource ${goQuote(a.subresource)}, only 'status' and 'eviction' are allowed`)
      case 'nodes.':
        return this.admitNode(nodeName, a)
      case 'persistentvolumeclaims.':
        if (a.subresource === 'status') return this.admitPVCStatus(nodeName, a)
        throw forbidden(a, 'may only update PVC status')
      case 'serviceaccounts.':
        return this.tokens.admit(nodeName, a)
      case 'leases.coordination.k8s.io':
        return admitLease(nodeName, a)
      case 'csinodes.storage.k8s.io':
        return admitCSINode(nodeName, a)
      case 'resourceslices.resource.k8s.io':
        return admitResourceSlice(nodeName, a)
      case 'certificatesigningrequests.certificates.k8s.io':
        if (this.insecureKubeletCSRs) return
        return admitCSR(nodeName, a)
      default:
        return
    }
  }

  /** A node creates only its mirror pods and deletes only pods bound to it. */
  private async admitPod(nodeName: string, a: AdmissionAttributes): Promise<void> {
    switch (a.operation) {
      case 'CREATE':
        return this.admitPodCreate(nodeName, a)
      case 'DELETE': {
        const existing = await readObject(this.init, a, 'pods', a.namespace, a.name)
        if (str(obj(existing.spec).nodeName) !== nodeName) throw forbidden(a, `node ${goQuote(nodeName)} can only delete pods with spec.nodeName set to itself`)
        return
      }
      default:
        throw forbidden(a, `unexpected operation ${goQuote(a.operation)}, node ${goQuote(nodeName)} can only create and delete mirror pods`)
    }
  }

  private async admitPodCreate(nodeName: string, a: AdmissionAttributes): Promise<void> {
    const pod = a.object
    if (!pod) throw forbidden(a, 'unexpected type <nil>')
    const node = goQuote(nodeName)
    if (!Object.hasOwn(pod.metadata.annotations ?? {}, MIRROR_POD_ANNOTATION)) {
      throw forbidden(a, `pod does not have ${goQuote(MIRROR_POD_ANNOTATION)} annotation, node ${node} can only create mirror pods`)
    }
    const spec = obj(pod.spec)
    if (str(spec.nodeName) !== nodeName) throw forbidden(a, `node ${node} can only create pods with spec.nodeName set to itself`)
    const owners = arr(pod.metadata.ownerReferences).map(obj)
    if (owners.length > 1) throw forbidden(a, `node ${node} can only create pods with a single owner reference set to itself`)
    const owner = owners[0]
    if (!owner) throw forbidden(a, `node ${node} can only create pods with an owner reference set to itself`)
    if (str(owner.apiVersion) !== 'v1' || str(owner.kind) !== 'Node' || str(owner.name) !== nodeName) {
      throw forbidden(a, `node ${node} can only create pods with an owner reference set to itself`)
    }
    if (owner.controller !== true) throw forbidden(a, `node ${node} can only create pods with a controller owner reference set to itself`)
    if (owner.blockOwnerDeletion === true) throw forbidden(a, `node ${node} must not set blockOwnerDeletion on an owner reference`)
    // The owner must be this node as it is now, not an earlier Node of the same name.
    const registered = await readObject(this.init, a, 'nodes', undefined, nodeName)
    if (str(owner.uid) !== (registered.metadata.uid ?? '')) {
      throw forbidden(a, `node ${nodeName} UID mismatch: expected ${str(owner.uid)} got ${registered.metadata.uid ?? ''}`)
    }
    // A mirror pod may reference no other API object.
    if (str(spec.serviceAccountName) !== '') throw forbidden(a, `node ${node} can not create pods that reference a service account`)
    const references = podReferences(pod)
    if (references.some(([kind]) => kind === 'secret')) throw forbidden(a, `node ${node} can not create pods that reference secrets`)
    if (references.some(([kind]) => kind === 'configmap')) throw forbidden(a, `node ${node} can not create pods that reference configmaps`)
    const volumes = arr(spec.volumes).map(obj)
    if (volumes.some((v) => arr(obj(v.projected).sources).some((s) => obj(s).clusterTrustBundle != null))) {
      throw forbidden(a, `node ${node} can not create pods that reference clustertrustbundles`)
    }
    if (volumes.some((v) => v.persistentVolumeClaim != null)) throw forbidden(a, `node ${node} can not create pods that reference persistentvolumeclaims`)
  }

  /** A node updates the status of pods bound to it, and not their labels or claim statuses through it. */
  private async admitPodStatus(nodeName: string, a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'UPDATE') throw forbidden(a, `unexpected operation ${goQuote(a.operation)}`)
    const oldPod = a.oldObject
    if (!oldPod) throw forbidden(a, 'unexpected type <nil>')
    if (str(obj(oldPod.spec).nodeName) !== nodeName) throw forbidden(a, `node ${goQuote(nodeName)} can only update pod status for pods with spec.nodeName set to itself`)
    const newPod = a.object
    if (!newPod) throw forbidden(a, 'unexpected type <nil>')
    if (modifiedLabels(oldPod.metadata.labels, newPod.metadata.labels).size > 0) throw forbidden(a, `node ${goQuote(nodeName)} cannot update labels through pod status`)
    if (!resourceClaimStatusesEqual(oldPod.status, newPod.status)) throw forbidden(a, `node ${goQuote(nodeName)} cannot update resource claim statues`)
  }

  /** A node evicts only pods bound to it. */
  private async admitPodEviction(nodeName: string, a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE') throw forbidden(a, `unexpected operation ${a.operation}`)
    const eviction = a.object
    if (!eviction) throw forbidden(a, 'unexpected type <nil>')
    // The name in the URL, if any, rather than the submitted Eviction's.
    const podName = a.name !== '' ? a.name : (eviction.metadata.name ?? '')
    if (podName === '') throw forbidden(a, 'could not determine pod from request data')
    const existing = await readObject(this.init, a, 'pods', a.namespace, podName)
    if (str(obj(existing.spec).nodeName) !== nodeName) throw forbidden(a, `node ${nodeName} can only evict pods with spec.nodeName set to itself`)
  }

  /** Through a claim's status a node may change its capacity, conditions and resize status only. */
  private async admitPVCStatus(nodeName: string, a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'UPDATE') throw forbidden(a, `unexpected operation ${goQuote(a.operation)}`)
    if (!a.oldObject || !a.object) throw forbidden(a, 'unexpected type <nil>')
    const status = ['capacity', 'conditions', ...(this.expansionRecovery ? ['allocatedResourceStatuses', 'allocatedResources'] : [])]
    const comparable = (claim: Record<string, unknown>) => {
      const copy = structuredClone(claim)
      const metadata = obj(copy.metadata)
      delete metadata.resourceVersion
      delete metadata.managedFields
      if (isPlainObject(copy.status)) for (const field of status) delete copy.status[field]
      return copy
    }
    const oldPVC = comparable(a.oldObject)
    const newPVC = comparable(a.object)
    if (!semanticEqual(oldPVC, newPVC)) {
      throw forbidden(a, `node ${goQuote(nodeName)} is not allowed to update fields other than status.quantity and status.conditions: ${differences(oldPVC, newPVC).join(', ')}`)
    }
  }

  /** A node writes only its own Node, without a config source, and changes neither its taints nor labels outside its own. */
  private async admitNode(nodeName: string, a: AdmissionAttributes): Promise<void> {
    const node = goQuote(nodeName)
    if (a.name !== nodeName) throw forbidden(a, `node ${node} is not allowed to modify node ${goQuote(a.name)}`)
    if (a.operation === 'CREATE') {
      if (!a.object) throw forbidden(a, 'unexpected type <nil>')
      // A config source would let the node read what its spec names.
      if (obj(a.object.spec).configSource != null) throw forbidden(a, `node ${node} is not allowed to create pods with a non-nil configSource`)
      // Labels outside the kubelet's could steer privileged workloads to it.
      const forbiddenKeys = forbiddenLabels(modifiedLabels(a.object.metadata.labels, undefined))
      if (forbiddenKeys.length > 0) throw forbidden(a, `node ${node} is not allowed to set the following labels: ${forbiddenKeys.join(', ')}`)
    }
    if (a.operation === 'UPDATE') {
      if (!a.object || !a.oldObject) throw forbidden(a, 'unexpected type <nil>')
      const spec = obj(a.object.spec)
      const oldSpec = obj(a.oldObject.spec)
      // Old kubelets may drop the field in a status update: only a new non-nil source counts.
      if (spec.configSource != null && !semanticEqual(spec.configSource, oldSpec.configSource)) {
        throw forbidden(a, `node ${node} is not allowed to update configSource to a new non-nil configSource`)
      }
      // Removing or changing its taints would let disallowed workloads onto it.
      if (!semanticEqual(spec.taints, oldSpec.taints)) throw forbidden(a, `node ${node} is not allowed to modify taints`)
      // Nor its owner references (a node owning itself to another object's garbage collection).
      if (!semanticEqual(a.object.metadata.ownerReferences, a.oldObject.metadata.ownerReferences)) throw forbidden(a, `node ${node} is not allowed to modify ownerReferences`)
      const forbiddenKeys = forbiddenLabels(modifiedLabels(a.object.metadata.labels, a.oldObject.metadata.labels))
      if (forbiddenKeys.length > 0) throw forbidden(a, `is not allowed to modify labels: ${forbiddenKeys.join(', ')}`)
    }
  }
}

/** The reference's resourceClaimStatusesEqual: the same names, in order, with the same claim names. */
function resourceClaimStatusesEqual(a: unknown, b: unknown): boolean {
  const left = arr(obj(a).resourceClaimStatuses).map(obj)
  const right = arr(obj(b).resourceClaimStatuses).map(obj)
  if (left.length !== right.length) return false
  return left.every((s, i) => str(s.name) === str(right[i]!.name) && (s.resourceClaimName ?? null) === (right[i]!.resourceClaimName ?? null))
}

/** The paths at which two decoded objects differ (the reference prints cmp.Diff of the Go structs). */
function differences(a: unknown, b: unknown, path = ''): string[] {
  if (semanticEqual(a, b)) return []
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()
    return keys.flatMap((k) => differences(a[k], b[k], path === '' ? k : `${path}.${k}`))
  }
  return [`${path}: ${JSON.stringify(a ?? null)} -> ${JSON.stringify(b ?? null)}`]
}

/** Leases only in kube-node-lease, and only the node's own. */
function admitLease(nodeName: string, a: AdmissionAttributes): void {
  if (a.namespace !== NODE_LEASE_NAMESPACE) throw forbidden(a, `can only access leases in the ${goQuote(NODE_LEASE_NAMESPACE)} system namespace`)
  // The proposed object's name on create.
  const name = a.operation === 'CREATE' ? (a.object?.metadata.name ?? '') : a.name
  if (name !== nodeName) throw forbidden(a, 'can only access node lease with the same name as the requesting node')
}

function admitCSINode(nodeName: string, a: AdmissionAttributes): void {
  const name = a.operation === 'CREATE' ? (a.object?.metadata.name ?? '') : a.name
  if (name !== nodeName) throw forbidden(a, 'can only access CSINode with the same name as the requesting node')
}

/**
 * The node authorizer cannot see a created slice's content nor each slice a deletecollection
 * removes: creates and deletes must name this node; other requests were judged there.
 */
function admitResourceSlice(nodeName: string, a: AdmissionAttributes): void {
  if (a.operation === 'CREATE') {
    if (!a.object) throw forbidden(a, 'unexpected type <nil>')
    if (str(obj(a.object.spec).nodeName) !== nodeName) throw forbidden(a, 'can only create ResourceSlice with the same NodeName as the requesting node')
  } else if (a.operation === 'DELETE') {
    if (!a.oldObject) throw forbidden(a, 'unexpected type <nil>')
    if (str(obj(a.oldObject.spec).nodeName) !== nodeName) throw forbidden(a, 'can only delete ResourceSlice with the same NodeName as the requesting node')
  }
}

/** A CSR for one of the kubelet signers must name this very node as its subject's CN. */
function admitCSR(nodeName: string, a: AdmissionAttributes): void {
  if (a.operation !== 'CREATE') return
  const csr = a.object
  if (!csr) throw forbidden(a, 'unexpected type <nil>')
  const spec = obj(csr.spec)
  if (!KUBELET_SIGNERS.includes(str(spec.signerName))) return
  let commonName: string
  try {
    commonName = requestCommonName(Buffer.from(str(spec.request), 'base64'))
  } catch (err) {
    throw forbidden(a, `unable to parse csr: ${(err as Error).message}`)
  }
  if (commonName !== `system:node:${nodeName}`) throw forbidden(a, `can only create a node CSR with CN=system:node:${nodeName}`)
}
