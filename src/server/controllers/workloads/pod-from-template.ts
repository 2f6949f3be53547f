/**
 * A pod made from a controller's template, as the reference's GetPodFromTemplate
 * (pkg/controller/controller_utils.go): the template's labels, annotations and finalizers, its
 * spec, the controller reference, and a generated name `<controller>-` unless named.
 */
import type { KubeObject } from '../../api/registry/object.js'
import type { OwnerReference } from './controller-ref.js'

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[] }
  spec?: Record<string, unknown>
}

export function templateOf(obj: KubeObject): PodTemplate {
  return ((obj.spec as { template?: PodTemplate } | undefined)?.template ?? {}) as PodTemplate
}

export function podFromTemplate(template: PodTemplate, namespace: string, ref: OwnerReference, name?: { name?: string; generateName?: string }): KubeObject {
  const meta = structuredClone(template.metadata ?? {})
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...(name?.name ? { name: name.name } : { generateName: name?.generateName ?? `${ref.name}-` }),
      namespace,
      ...(meta.labels ? { labels: meta.labels } : {}),
      ...(meta.annotations ? { annotations: meta.annotations } : {}),
      ...(meta.finalizers ? { finalizers: meta.finalizers } : {}),
      ownerReferences: [ref],
    },
    spec: structuredClone(template.spec ?? {}),
  }
}
