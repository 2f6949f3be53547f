/**
 * What the replicated workloads' Tables and field selectors share: the containers and images of
 * the pod template, the selector, and the replica columns of ReplicaSets and
 * ReplicationControllers (one core, one apps).
 */
import type { KubeObject } from '../registry/object.js'
import { isPlainObject } from '../registry/object.js'
import { AGE_COLUMN, NAME_COLUMN, type TableColumns, age } from '../table.js'
import type { KindOverrides } from './kind.js'
import { arr, col, num, obj, str } from './values.js'

export const images = (o: KubeObject) => arr(obj(obj(obj(o.spec).template).spec).containers).map(obj)
export const selectorText = (o: KubeObject) =>
  Object.entries(obj(obj(obj(o.spec).selector).matchLabels))
    .map(([k, v]) => `${k}=${str(v)}`)
    .join(',') || '<none>'

export function replicaTable(): TableColumns {
  return {
    definitions: [
      NAME_COLUMN,
      col('Desired', 'Replicas is the number of desired replicas.', 0, 'integer'),
      col('Current', 'Replicas is the most recently observed number of replicas.', 0, 'integer'),
      col('Ready', 'The number of ready replicas for this replica set.', 0, 'integer'),
      AGE_COLUMN,
      col('Containers', 'Names of each container in the template.', 1),
      col('Images', 'Images referenced by each container in the template.', 1),
      col('Selector', 'Selector is a label query over pods that should match the replica count.', 1),
    ],
    cells: (o, now) => {
      const spec = obj(o.spec)
      const status = obj(o.status)
      // A ReplicationController's selector is a plain map; a ReplicaSet's a LabelSelector.
      const selector = isPlainObject(obj(spec.selector).matchLabels) || Array.isArray(obj(spec.selector).matchExpressions) ? selectorText(o) : Object.entries(obj(spec.selector)).map(([k, v]) => `${k}=${str(v)}`).join(',')
      return [
        o.metadata.name,
        typeof spec.replicas === 'number' ? spec.replicas : 1,
        num(status.replicas),
        num(status.readyReplicas),
        age(o, now),
        images(o).map((c) => str(c.name)).join(','),
        images(o).map((c) => str(c.image)).join(','),
        selector,
      ]
    },
  }
}

export const replicaFields: Pick<KindOverrides, 'selectableFields' | 'fields'> = {
  selectableFields: ['status.replicas'],
  fields: (o) => ({ 'status.replicas': String(num(obj(o.status).replicas)) }),
}
