/** coordination.k8s.io: Leases (v1), and LeaseCandidates (beta and alpha only). */
import type { KindOverrides, KindTable } from './kind.js'
import { leaseCandidateName, validateLease, validateLeaseCandidate, validateLeaseCandidateUpdate } from '../validation/coordination.js'
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'
import { col, obj, str } from './values.js'

/** LeaseCandidates (beta and alpha only): their name a config map key, ValidateLeaseCandidate. */
const leaseCandidates: KindOverrides = { validateName: leaseCandidateName, validate: validateLeaseCandidate, validateUpdate: validateLeaseCandidateUpdate, createOnUpdate: true }

export const COORDINATION: KindTable = {
  'coordination.k8s.io/v1/leases': {
    createOnUpdate: true,
    validate: validateLease,
    table: {
      definitions: [NAME_COLUMN, col('Holder', 'The holder of the lease'), AGE_COLUMN],
      cells: (o, now) => [o.metadata.name, str(obj(o.spec).holderIdentity), age(o, now)],
    },
  },
  'coordination.k8s.io/v1beta1/leasecandidates': leaseCandidates,
  'coordination.k8s.io/v1alpha2/leasecandidates': leaseCandidates,
}
