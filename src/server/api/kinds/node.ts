/** node.k8s.io/v1 RuntimeClasses: validation (../validation/node.ts) and the reference printer's columns. */
import { validateRuntimeClass, validateRuntimeClassUpdate } from '../validation/node.js'
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'
import type { KindTable } from './kind.js'
import { col, str } from './values.js'

export const NODE: KindTable = {
  'node.k8s.io/v1/runtimeclasses': {
    validate: validateRuntimeClass,
    validateUpdate: validateRuntimeClassUpdate,
    table: {
      definitions: [NAME_COLUMN, col('Handler', 'handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class.'), AGE_COLUMN],
      cells: (o, now) => [o.metadata.name, str(o.handler), age(o, now)],
    },
  },
}
