/**
 * The networking.k8s.io/v1 kinds (Ingress, NetworkPolicy, IngressClass, ServiceCIDR,
 * IPAddress): the reference printer's columns, defaulting, validation
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
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'
import type { KindTable } from './kind.js'
import { arr, col, obj, str } from './values.js'

export const NETWORKING: KindTable = {
  'networking.k8s.io/v1/ingresses': {
    statusOwnedBySubresource: true,
    generation: true,
    validate: validateIngress,
    validateUpdate: validateIngressUpdate,
    validateStatusUpdate: validateIngressStatusUpdate,
    table: {
      definitions: [
        NAME_COLUMN,
        col('Class', 'The name of the IngressClass resource that should be used for additional configuration'),
        col('Hosts', 'Hosts that incoming requests are matched against before the ingress rule'),
        col('Address', 'Address is a list containing ingress points for the load-balancer'),
        col('Ports', 'Ports of TLS configurations that open'),
        AGE_COLUMN,
      ],
      cells: (o, now) => {
        const spec = obj(o.spec)
        const className = str(spec.ingressClassName) || str((o.metadata.annotations ?? {})['kubernetes.io/ingress.class']) || '<none>'
        const hosts = arr(spec.rules).map((r) => str(obj(r).host)).filter(Boolean)
        const hostText = hosts.length === 0 ? '*' : hosts.length > 4 ? `${hosts.slice(0, 4).join(',')} + ${hosts.length - 4} more...` : hosts.join(',')
        const addresses = arr(obj(obj(o.status).loadBalancer).ingress).map((i) => str(obj(i).ip) || str(obj(i).hostname)).filter(Boolean)
        return [o.metadata.name, className, hostText, addresses.join(','), arr(spec.tls).length > 0 ? '80, 443' : '80', age(o, now)]
      },
    },
  },
  'networking.k8s.io/v1/networkpolicies': {
    generation: true,
    defaults: defaultNetworkPolicy,
    validate: validateNetworkPolicy,
    validateUpdate: validateNetworkPolicyUpdate,
    table: {
      definitions: [NAME_COLUMN, col('Pod-Selector', 'podSelector selects the pods to which this NetworkPolicy object applies.'), AGE_COLUMN],
      cells: (o, now) => {
        const selector = obj(obj(o.spec).podSelector)
        const parts = Object.entries(obj(selector.matchLabels)).map(([k, v]) => `${k}=${str(v)}`)
        for (const e of arr(selector.matchExpressions).map(obj)) {
          const values = arr(e.values).map((v) => str(v)).join(',')
          const op = str(e.operator)
          parts.push(op === 'In' ? `${str(e.key)} in (${values})` : op === 'NotIn' ? `${str(e.key)} notin (${values})` : op === 'Exists' ? str(e.key) : `!${str(e.key)}`)
        }
        return [o.metadata.name, parts.join(',') || '<none>', age(o, now)]
      },
    },
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
    statusOwnedBySubresource: true,
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
}
