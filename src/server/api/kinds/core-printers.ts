/**
 * The reference printer's columns (pkg/printers/internalversion/printers.go) of the core, apps,
 * networking and policy kinds that have no other per-kind behaviour here: Endpoints,
 * PersistentVolumes and claims, PodTemplates, ResourceQuotas, ControllerRevisions, Ingresses,
 * NetworkPolicies, PodDisruptionBudgets and ComponentStatuses.
 */
import type { KubeObject } from '../registry/object.js'
import { AGE_COLUMN, NAME_COLUMN, type TableColumns, age } from '../table.js'
import { arr, col, obj, str, num } from './values.js'

const labelsText = (labels: unknown) => Object.entries(obj(labels)).map(([k, v]) => `${k}=${str(v)}`).join(',') || '<none>'

/** formatEndpoints: at most three host:port pairs, then "+ N more...". */
function endpointsText(o: KubeObject): string {
  const subsets = arr(o.subsets).map(obj)
  if (subsets.length === 0) return '<none>'
  const list: string[] = []
  let count = 0
  for (const ss of subsets) {
    const addresses = arr(ss.addresses).map((a) => str(obj(a).ip))
    const ports = arr(ss.ports).map(obj)
    if (ports.length === 0) {
      count += addresses.length
      for (const ip of addresses) if (list.length < 3) list.push(ip)
      continue
    }
    for (const p of ports) {
      count += addresses.length
      for (const ip of addresses) if (list.length < 3) list.push(ip.includes(':') ? `[${ip}]:${num(p.port)}` : `${ip}:${num(p.port)}`)
    }
  }
  return count > 3 ? `${list.join(',')} + ${count - 3} more...` : list.join(',')
}

/** GetAccessModesAsString. */
function accessModes(modes: unknown): string {
  const set = new Set(arr(modes).map((m) => str(m)))
  const out: string[] = []
  for (const [mode, short] of [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ] as const) {
    if (set.has(mode)) out.push(short)
  }
  return out.join(',')
}

function storageClassOf(o: KubeObject): string {
  const spec = obj(o.spec)
  return str(spec.storageClassName) || str((o.metadata.annotations ?? {})['volume.beta.kubernetes.io/storage-class'])
}

const intOrString = (v: unknown) => (v === undefined || v === null ? 'N/A' : str(v))

export const CORE_PRINTERS: Record<string, TableColumns> = {
  endpoints: {
    definitions: [NAME_COLUMN, col('Endpoints', 'The set of all endpoints is the union of all subsets.'), AGE_COLUMN],
    cells: (o, now) => [o.metadata.name, endpointsText(o), age(o, now)],
  },
  persistentvolumes: {
    definitions: [
      NAME_COLUMN,
      col('Capacity', 'capacity is the description of the persistent volume\'s resources and capacity.'),
      col('Access Modes', 'accessModes contains all ways the volume can be mounted.'),
      col('Reclaim Policy', 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.'),
      col('Status', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
      col('Claim', 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.'),
      col('StorageClass', 'StorageClass of the pv'),
      col('VolumeAttributesClass', 'VolumeAttributesClass of the pv'),
      col('Reason', 'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.'),
      AGE_COLUMN,
      col('VolumeMode', 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.', 1),
    ],
    cells: (o, now) => {
      const spec = obj(o.spec)
      const claim = spec.claimRef === undefined ? '' : `${str(obj(spec.claimRef).namespace)}/${str(obj(spec.claimRef).name)}`
      const phase = o.metadata.deletionTimestamp ? 'Terminating' : str(obj(o.status).phase)
      return [
        o.metadata.name,
        str(obj(spec.capacity).storage, '0'),
        accessModes(spec.accessModes),
        str(spec.persistentVolumeReclaimPolicy),
        phase,
        claim,
        storageClassOf(o),
        str(spec.volumeAttributesClassName) || '<unset>',
        str(obj(o.status).reason),
        age(o, now),
        str(spec.volumeMode) || '<unset>',
      ]
    },
  },
  persistentvolumeclaims: {
    definitions: [
      NAME_COLUMN,
      col('Status', 'phase represents the current phase of PersistentVolumeClaim.'),
      col('Volume', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
      col('Capacity', 'capacity represents the actual resources of the underlying volume.'),
      col('Access Modes', 'accessModes contains the actual access modes the volume backing the PVC has.'),
      col('StorageClass', 'StorageClass of the pvc'),
      col('VolumeAttributesClass', 'VolumeAttributesClass of the pvc'),
      AGE_COLUMN,
      col('VolumeMode', 'volumeMode defines what type of volume is required by the claim.', 1),
    ],
    cells: (o, now) => {
      const spec = obj(o.spec)
      const status = obj(o.status)
      const bound = str(spec.volumeName) !== ''
      return [
        o.metadata.name,
        o.metadata.deletionTimestamp ? 'Terminating' : str(status.phase),
        str(spec.volumeName),
        bound ? str(obj(status.capacity).storage, '0') : '',
        bound ? accessModes(status.accessModes) : '',
        storageClassOf(o),
        str(spec.volumeAttributesClassName) || '<unset>',
        age(o, now),
        str(spec.volumeMode) || '<unset>',
      ]
    },
  },
  podtemplates: {
    definitions: [NAME_COLUMN, col('Containers', 'Names of each container in the template.'), col('Images', 'Images referenced by each container in the template.'), col('Pod Labels', 'The labels for the pod template.')],
    cells: (o) => {
      const template = obj(o.template)
      const containers = arr(obj(template.spec).containers).map(obj)
      return [o.metadata.name, containers.map((c) => str(c.name)).join(','), containers.map((c) => str(c.image)).join(','), labelsText(obj(template.metadata).labels)]
    },
  },
  resourcequotas: {
    definitions: [
      NAME_COLUMN,
      col('Request', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
      col('Limit', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
      AGE_COLUMN,
    ],
    cells: (o, now) => {
      const status = obj(o.status)
      const hard = obj(status.hard)
      const used = obj(status.used)
      const requests: string[] = []
      const limits: string[] = []
      for (const r of Object.keys(hard).sort()) {
        const text = `${r}: ${str(used[r], '0')}/${str(hard[r])}`
        if (r.split('.').length > 1 && r.split('.')[0] === 'limits') limits.push(text)
        else requests.push(text)
      }
      return [o.metadata.name, requests.join(', '), limits.join(', '), age(o, now)]
    },
  },
  controllerrevisions: {
    definitions: [NAME_COLUMN, col('Controller', 'Controller of the object'), col('Revision', 'Revision indicates the revision of the state represented by Data.'), AGE_COLUMN],
    cells: (o, now) => {
      const owner = arr(o.metadata.ownerReferences).map(obj).find((r) => r.controller === true)
      let controller = '<none>'
      if (owner) {
        const group = str(owner.apiVersion).includes('/') ? str(owner.apiVersion).split('/')[0]! : ''
        controller = `${(group ? `${str(owner.kind)}.${group}` : str(owner.kind)).toLowerCase()}/${str(owner.name)}`
      }
      return [o.metadata.name, controller, num(o.revision), age(o, now)]
    },
  },
  ingresses: {
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
  networkpolicies: {
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
  poddisruptionbudgets: {
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
  componentstatuses: {
    definitions: [NAME_COLUMN, col('Status', 'Status of the component conditions'), col('Message', 'Message of the component conditions'), col('Error', 'Error of the component conditions')],
    cells: (o) => {
      const healthy = arr(o.conditions).map(obj).find((c) => c.type === 'Healthy')
      const status = !healthy ? 'Unknown' : healthy.status === 'True' ? 'Healthy' : 'Unhealthy'
      return [o.metadata.name, status, str(healthy?.message), str(healthy?.error)]
    },
  },
}
