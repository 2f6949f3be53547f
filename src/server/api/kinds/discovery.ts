/**
 * discovery.k8s.io/v1 EndpointSlices: the ports' defaults, validation (../validation/discovery.ts)
 * and the reference printer's columns.
 */
import { validateEndpointSlice, validateEndpointSliceUpdate } from '../validation/discovery.js'
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'
import type { KindTable } from './kind.js'
import { arr, col, obj, str } from './values.js'

/** listWithMoreString: the first three, then "+ N more...", "<unset>" for none. */
function listWithMore(list: readonly string[], max = 3): string {
  if (list.length === 0) return '<unset>'
  if (list.length > max) return `${list.slice(0, max).join(',')} + ${list.length - max} more...`
  return list.join(',')
}

export const DISCOVERY: KindTable = {
  'discovery.k8s.io/v1/endpointslices': {
    defaults(o) {
      for (const p of arr(o.ports)) {
        const port = obj(p)
        port.name ??= ''
        port.protocol ??= 'TCP'
      }
    },
    validate: validateEndpointSlice,
    validateUpdate: validateEndpointSliceUpdate,
    table: {
      definitions: [
        NAME_COLUMN,
        col('AddressType', 'addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type.'),
        col('Ports', 'ports specifies the list of network ports exposed by each endpoint in this slice.'),
        col('Endpoints', 'endpoints is a list of unique endpoints in this slice.'),
        AGE_COLUMN,
      ],
      cells: (o, now) => {
        const ports = arr(o.ports).map((p) => {
          const port = obj(p)
          return typeof port.port === 'number' ? String(port.port) : port.name ? str(port.name) : '*'
        })
        const addresses = arr(o.endpoints).flatMap((e) => arr(obj(e).addresses).map((a) => str(a)))
        return [o.metadata.name, str(o.addressType), listWithMore(ports), listWithMore(addresses), age(o, now)]
      },
    },
  },
}
