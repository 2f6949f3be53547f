/**
 * The networking.k8s.io/v1 kinds (Ingress, NetworkPolicy, IngressClass, ServiceCIDR,
 * IPAddress), node.k8s.io RuntimeClass and discovery.k8s.io EndpointSlice: the reference
 * printer's columns (Ingress and NetworkPolicy in core-printers.ts), defaulting, validation
 * (validation/networking.ts) and the field selectors the reference supports.
 */
import {
  defaultIngressClass,
  defaultNetworkPolicy,
  ipAddressName,
  validateIPAddress,
  validateIPAddressUpdate,
  validateIngress,
  validateIngressClass,
  validateIngressClassUpdate,
  validateIngressStatusUpdate,
  validateIngressUpdate,
  validateNetworkPolicy,
  validateNetworkPolicyUpdate,
  validateServiceCIDR,
  validateServiceCIDRUpdate,
} from '../validation/networking.js'
import { validateEndpointSlice, validateEndpointSliceUpdate } from '../validation/discovery.js'
import { validateRuntimeClass, validateRuntimeClassUpdate } from '../validation/node.js'
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'
import type { KindOverrides } from './builtin.js'
import { arr, col, obj, str } from './values.js'

/** listWithMoreString: the first three, then "+ N more...", "<unset>" for none. */
function listWithMore(list: readonly string[], max = 3): string {
  if (list.length === 0) return '<unset>'
  if (list.length > max) return `${list.slice(0, max).join(',')} + ${list.length - max} more...`
  return list.join(',')
}

export const NETWORKING: Record<string, KindOverrides> = {
  'networking.k8s.io/v1/ingresses': {
    validate: validateIngress,
    validateUpdate: validateIngressUpdate,
    validateStatusUpdate: validateIngressStatusUpdate,
  },
  'networking.k8s.io/v1/networkpolicies': {
    defaults: defaultNetworkPolicy,
    validate: validateNetworkPolicy,
    validateUpdate: validateNetworkPolicyUpdate,
  },
  'networking.k8s.io/v1/ingressclasses': {
    defaults: defaultIngressClass,
    validate: validateIngressClass,
    validateUpdate: validateIngressClassUpdate,
    table: {
      definitions: [NAME_COLUMN, col('Controller', 'Controller that is responsible for handling this class'), col('Parameters', 'A reference to a resource with additional parameters'), AGE_COLUMN],
      cells: (o, now) => {
        const spec = obj(o.spec)
        let parameters = '<none>'
        if (spec.parameters !== undefined && spec.parameters !== null) {
          const p = obj(spec.parameters)
          parameters = `${str(p.kind)}${p.apiGroup ? `.${str(p.apiGroup)}` : ''}/${str(p.name)}`
        }
        return [o.metadata.name, str(spec.controller), parameters, age(o, now)]
      },
    },
  },
  'networking.k8s.io/v1/servicecidrs': {
    validate: validateServiceCIDR,
    validateUpdate: validateServiceCIDRUpdate,
    table: {
      definitions: [NAME_COLUMN, col('CIDRs', 'CIDRs defines the IP blocks in CIDR notation (e.g. "192.168.0.0/24" or "2001:db8::/64") from which to assign service cluster IPs.'), AGE_COLUMN],
      cells: (o, now) => [o.metadata.name, arr(obj(o.spec).cidrs).map((c) => str(c)).join(','), age(o, now)],
    },
  },
  'networking.k8s.io/v1/ipaddresses': {
    validateName: ipAddressName,
    validate: validateIPAddress,
    validateUpdate: validateIPAddressUpdate,
    table: {
      definitions: [NAME_COLUMN, col('ParentRef', 'ParentRef references the resource that an IPAddress is attached to. An IPAddress must reference a parent object.')],
      cells: (o) => {
        const ref = obj(obj(o.spec).parentRef)
        if (Object.keys(ref).length === 0) return [o.metadata.name, '<none>']
        const gr = ref.group ? `${str(ref.resource)}.${str(ref.group)}` : str(ref.resource)
        return [o.metadata.name, `${gr.toLowerCase()}${ref.namespace ? `/${str(ref.namespace)}` : ''}/${str(ref.name)}`]
      },
    },
  },
  'node.k8s.io/v1/runtimeclasses': {
    validate: validateRuntimeClass,
    validateUpdate: validateRuntimeClassUpdate,
    table: {
      definitions: [NAME_COLUMN, col('Handler', 'handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class.'), AGE_COLUMN],
      cells: (o, now) => [o.metadata.name, str(o.handler), age(o, now)],
    },
  },
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
