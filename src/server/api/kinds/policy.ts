/** policy/v1 PodDisruptionBudgets: validation (../validation/policy.ts) and the reference printer's columns. */
import { validatePodDisruptionBudget, validatePodDisruptionBudgetStatusUpdate } from '../validation/policy.js'
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'
import type { KindTable } from './kind.js'
import { col, num, obj, str } from './values.js'

const intOrString = (v: unknown) => (v === undefined || v === null ? 'N/A' : str(v))

export const POLICY: KindTable = {
  'policy/v1/poddisruptionbudgets': {
    statusOwnedBySubresource: true,
    generation: true,
    validate: validatePodDisruptionBudget,
    validateStatusUpdate: validatePodDisruptionBudgetStatusUpdate,
    table: {
      definitions: [
        NAME_COLUMN,
        col('Min Available', 'The minimum number of pods that must be available.'),
        col('Max Unavailable', 'The maximum number of pods that may be unavailable.'),
        col('Allowed Disruptions', 'Calculated number of pods that may be disrupted at this time.', 0, 'integer'),
        AGE_COLUMN,
      ],
      cells: (o, now) => {
        const spec = obj(o.spec)
        return [o.metadata.name, intOrString(spec.minAvailable), intOrString(spec.maxUnavailable), num(obj(o.status).disruptionsAllowed), age(o, now)]
      },
    },
  },
}
