/**
 * flowcontrol.apiserver.k8s.io/v1 FlowSchemas and PriorityLevelConfigurations: their defaulting
 * (defaults.go), validation (../validation/flowcontrol.ts) and the reference printer's columns.
 */
import { validateFlowSchema, validateFlowSchemaStatusUpdate, validatePriorityLevelConfiguration, validatePriorityLevelConfigurationStatusUpdate } from '../validation/flowcontrol.js'
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'
import type { KindTable } from './kind.js'
import { arr, col, num, obj, str } from './values.js'

export const FLOWCONTROL: KindTable = {
  'flowcontrol.apiserver.k8s.io/v1/flowschemas': {
    statusOwnedBySubresource: true,
    defaults(o) {
      const spec = obj(o.spec)
      // An int32 without pointer: zero is unset (SetDefaults_FlowSchemaSpec).
      if (!spec.matchingPrecedence) spec.matchingPrecedence = 1000
      o.spec = spec
    },
    prepareForCreate(o) {
      o.status = {}
    },
    validate: validateFlowSchema,
    validateStatusUpdate: validateFlowSchemaStatusUpdate,
    table: {
      definitions: [
        NAME_COLUMN,
        col('PriorityLevel', '`name` is the name of the priority level configuration being referenced Required.'),
        col('MatchingPrecedence', '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request.'),
        col('DistinguisherMethod', '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema.'),
        AGE_COLUMN,
        col('MissingPL', 'references a broken or non-existent PriorityLevelConfiguration'),
      ],
      cells: (o, now) => {
        const spec = obj(o.spec)
        const dangling = arr(obj(o.status).conditions).map(obj).find((c) => c.type === 'Dangling')
        return [o.metadata.name, str(obj(spec.priorityLevelConfiguration).name), num(spec.matchingPrecedence), spec.distinguisherMethod ? str(obj(spec.distinguisherMethod).type) : '<none>', age(o, now), dangling ? str(dangling.status) : '?']
      },
      // FlowSchemaSequence: by matching precedence, then name.
      order: (a, b) => num(obj(a.spec).matchingPrecedence) - num(obj(b.spec).matchingPrecedence) || str(a.metadata.name).localeCompare(str(b.metadata.name)),
    },
  },
  'flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations': {
    statusOwnedBySubresource: true,
    defaults(o) {
      const spec = obj(o.spec)
      if (spec.type === 'Limited' || spec.limited !== undefined) {
        const limited = obj(spec.limited)
        limited.nominalConcurrencyShares ??= 30
        limited.lendablePercent ??= 0
        const response = obj(limited.limitResponse)
        if (response.type === 'Queue' || response.queuing !== undefined) {
          const queuing = obj(response.queuing)
          // int32 fields without pointers: zero is unset (SetDefaults_QueuingConfiguration).
          if (!queuing.queues) queuing.queues = 64
          if (!queuing.handSize) queuing.handSize = 8
          if (!queuing.queueLengthLimit) queuing.queueLengthLimit = 50
          response.queuing = queuing
        }
        limited.limitResponse = response
        spec.limited = limited
      }
      if (spec.type === 'Exempt' || spec.exempt !== undefined) {
        const exempt = obj(spec.exempt)
        exempt.nominalConcurrencyShares ??= 0
        exempt.lendablePercent ??= 0
        spec.exempt = exempt
      }
      o.spec = spec
    },
    prepareForCreate(o) {
      o.status = {}
    },
    validate: validatePriorityLevelConfiguration,
    validateStatusUpdate: validatePriorityLevelConfigurationStatusUpdate,
    table: {
      definitions: [
        NAME_COLUMN,
        col('Type', '`type` indicates whether this priority level is subject to limitation on request execution.'),
        col('NominalConcurrencyShares', '`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level.'),
        col('Queues', '`queues` is the number of queues for this priority level.'),
        col('HandSize', '`handSize` is a small positive number that configures the shuffle sharding of requests into queues.'),
        col('QueueLengthLimit', '`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time.'),
        AGE_COLUMN,
      ],
      cells: (o, now) => {
        const spec = obj(o.spec)
        const limited = spec.limited === undefined ? undefined : obj(spec.limited)
        const queuing = limited ? obj(limited.limitResponse).queuing : undefined
        const q = queuing === undefined ? undefined : obj(queuing)
        return [o.metadata.name, str(spec.type), limited ? num(limited.nominalConcurrencyShares) : '<none>', q ? num(q.queues) : '<none>', q ? num(q.handSize) : '<none>', q ? num(q.queueLengthLimit) : '<none>', age(o, now)]
      },
    },
  },
}
