/**
 * The DenyServiceExternalIPs admission plugin (the reference's
 * `plugin/pkg/admission/network/denyserviceexternalips`): a service may not take on external
 * IPs it did not have (CVE-2020-8554); keeping, reordering or dropping them is allowed.
 */
import { isPlainObject, type KubeObject } from '../api/registry/object.js'
import { errors } from '../api/status-errors.js'
import { type AdmissionAttributes, CREATE, UPDATE } from './attributes.js'
import { forbidden } from './forbidden.js'
import { type ValidationInterface, handlesOnly } from './interfaces.js'

export const DENY_SERVICE_EXTERNAL_IPS = 'DenyServiceExternalIPs'

export class DenyServiceExternalIPs implements ValidationInterface {
  readonly handles = handlesOnly(CREATE, UPDATE)

  async validate(attributes: AdmissionAttributes): Promise<void> {
    if (attributes.resource.group !== '' || attributes.resource.resource !== 'services' || attributes.subresource !== '') return
    const newSvc = serviceOf(attributes, attributes.object)
    const oldSvc = attributes.oldObject ? serviceOf(attributes, attributes.oldObject) : undefined
    if (isSubset(externalIPs(newSvc), oldSvc && externalIPs(oldSvc))) return
    throw forbidden(attributes, 'Use of external IPs is denied by admission control')
  }
}

function serviceOf(attributes: AdmissionAttributes, obj: KubeObject | undefined): KubeObject {
  if (!obj || (obj.kind !== undefined && obj.kind !== 'Service')) {
    const { group, version, kind } = attributes.kind
    throw errors.internal(`Expected Service resource, got: ${group === '' ? '/' : `${group}/`}${version}, Kind=${kind}`)
  }
  return obj
}

function externalIPs(svc: KubeObject): string[] {
  return isPlainObject(svc.spec) && Array.isArray(svc.spec.externalIPs) ? svc.spec.externalIPs.map(String) : []
}

/** No external IPs, or, on an update, only ones the service had. */
function isSubset(newIPs: readonly string[], oldIPs: readonly string[] | undefined): boolean {
  if (newIPs.length === 0) return true
  if (!oldIPs) return false
  const had = new Set(oldIPs)
  return newIPs.every((ip) => had.has(ip))
}
