/**
 * apiregistration.k8s.io/v1 APIServices: local ones always Available, the others as the
 * availability controller finds them (src/server/controllers/apiservice-availability.ts); the service reference's
 * default port, validation (../validation/apiregistration.ts) and the reference printer's columns.
 */
import { validateAPIService, validateAPIServiceStatusUpdate } from '../validation/apiregistration.js'
import { pathSegmentName } from '../validation/names.js'
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'
import type { KindTable } from './kind.js'
import { arr, col, obj, str } from './values.js'

export const API_REGISTRATION: KindTable = {
  'apiregistration.k8s.io/v1/apiservices': {
    statusOwnedBySubresource: true,
    unconditionalUpdate: false,
    defaults(o) {
      // SetDefaults_ServiceReference.
      const service = obj(o.spec).service
      if (service !== undefined && service !== null) obj(service).port ??= 443
    },
    validateName: pathSegmentName,
    validate: validateAPIService,
    validateStatusUpdate: validateAPIServiceStatusUpdate,
    prepareForCreate(o) {
      // The reference's PrepareForCreate: the status is the server's; a local APIService is available at once,
      // one backed by a service once the availability controller has checked it.
      const local = obj(o.spec).service === undefined || obj(o.spec).service === null
      o.status = local ? { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: o.metadata.creationTimestamp, reason: 'Local', message: 'Local APIServices are always available' }] } : {}
    },
    table: {
      definitions: [NAME_COLUMN, col('Service', 'The reference to the service that hosts this API endpoint.'), col('Available', 'Whether this service is available.'), AGE_COLUMN],
      cells: (o, now) => {
        const service = obj(obj(o.spec).service)
        const available = arr(obj(o.status).conditions).map(obj).find((c) => c.type === 'Available')
        const state = !available ? 'Unknown' : available.status === 'True' ? 'True' : `${str(available.status)} (${str(available.reason)})`
        return [o.metadata.name, obj(o.spec).service ? `${str(service.namespace)}/${str(service.name)}` : 'Local', state, age(o, now)]
      },
    },
  },
}
