/** scheduling.k8s.io: PriorityClasses (v1), and the alpha PodGroups and Workloads (v1alpha2). */
import { validatePriorityClass, validatePriorityClassUpdate } from '../validation/scheduling.js'
import { validatePodGroup, validatePodGroupName, validatePodGroupUpdate, validateWorkload, validateWorkloadUpdate } from '../validation/scheduling-workload.js'
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'
import type { KindTable } from './kind.js'
import { col, num, str } from './values.js'

export const SCHEDULING: KindTable = {
  'scheduling.k8s.io/v1/priorityclasses': {
    defaults(o) {
      o.preemptionPolicy ??= 'PreemptLowerPriority'
    },
    validate: validatePriorityClass,
    validateUpdate: validatePriorityClassUpdate,
    table: {
      definitions: [NAME_COLUMN, col('Value', 'The value of this priority class.', 0, 'integer'), col('Global-Default', 'globalDefault specifies whether this PriorityClass should be considered as the default priority.', 0, 'boolean'), AGE_COLUMN, col('PreemptionPolicy', 'PreemptionPolicy is the Policy for preempting pods with lower priority.')],
      cells: (o, now) => [o.metadata.name, num(o.value), o.globalDefault === true, age(o, now), str(o.preemptionPolicy)],
    },
  },
  'scheduling.k8s.io/v1alpha2/podgroups': { validateName: validatePodGroupName, validate: validatePodGroup, validateUpdate: validatePodGroupUpdate },
  'scheduling.k8s.io/v1alpha2/workloads': { validate: validateWorkload, validateUpdate: validateWorkloadUpdate },
}
