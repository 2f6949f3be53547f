/**
 * ControllerRevisions, the history DaemonSets and StatefulSets keep of their templates (the
 * reference's pkg/controller/history and each controller's getPatch): the data is the patch
 * `{"spec":{"template":{..., "$patch":"replace"}}}` marshalled from a map, so with sorted keys;
 * `revision` numbers them; the name is `<owner>-<hash>`.
 */
import type { KubeObject } from '../../api/registry/object.js'
import { type OwnerReference } from './controller-ref.js'
import { canonicalJson } from './template-hash.js'

/** ControllerRevisionHashLabel on a StatefulSet's revisions (history.NewControllerRevision). */
export const REVISION_HASH_LABEL = 'controller.kubernetes.io/hash'
/** apps.ControllerRevisionHashLabelKey / DefaultDaemonSetUniqueLabelKey on pods. */
export const POD_REVISION_LABEL = 'controller-revision-hash'

/** getPatch: the template to re-apply, as the raw bytes the reference hashes and stores. */
export function revisionPatch(template: unknown): string {
  return canonicalJson({ spec: { template: { ...(template as object), $patch: 'replace' } } })
}

export function revisionNumber(cr: KubeObject): number {
  return typeof cr.revision === 'number' ? cr.revision : 0
}

/** nextRevision: one more than the highest. */
export function nextRevision(revisions: readonly KubeObject[]): number {
  return Math.max(0, ...revisions.map(revisionNumber)) + 1
}

export function rawOf(cr: KubeObject): string {
  return canonicalJson(cr.data ?? null)
}

/** ControllerRevisionName: the prefix cut to 223 characters. */
export function revisionName(prefix: string, hash: string): string {
  return `${prefix.slice(0, 223)}-${hash}`
}

export function newControllerRevision(args: {
  owner: KubeObject
  ref: OwnerReference
  labels: Record<string, string> | undefined
  raw: string
  revision: number
  name: string
  annotations?: Record<string, string>
}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: args.name,
      namespace: args.owner.metadata.namespace,
      labels: { ...args.labels },
      ...(args.annotations && Object.keys(args.annotations).length ? { annotations: args.annotations } : {}),
      ownerReferences: [args.ref],
    },
    data: JSON.parse(args.raw) as unknown,
    revision: args.revision,
  }
}
