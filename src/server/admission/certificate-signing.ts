/**
 * The CertificateSigning admission plugin (the reference's
 * `plugin/pkg/admission/certificates/signing`): writing the certificate or the conditions of
 * a CertificateSigningRequest (status.certificate, status.conditions) or of a
 * PodCertificateRequest (status.certificateChain, status.conditions) through the `status`
 * subresource needs the `sign` verb on the stored object's signer name.
 */
import { isDeepStrictEqual } from 'node:util'
import { isPlainObject } from '../api/registry/object.js'
import type { ApiError } from '../api/status-errors.js'
import { errors } from '../api/status-errors.js'
import { type AdmissionAttributes, UPDATE, nameForRefusal } from './attributes.js'
import { isAuthorizedForSignerName, signerNameOf } from './certificates-signer-authorization.js'
import { type ValidationInterface, handlesOnly } from './interfaces.js'
import type { PluginInitialization } from './plugins.js'

export const CERTIFICATE_SIGNING = 'CertificateSigning'

/** The status field holding the issued certificate, by resource. */
const CERTIFICATE_FIELD: Readonly<Record<string, string>> = { certificatesigningrequests: 'certificate', podcertificaterequests: 'certificateChain' }

export class CertificateSigning implements ValidationInterface {
  constructor(private readonly init: PluginInitialization) {}

  readonly handles = handlesOnly(UPDATE)

  async validate(a: AdmissionAttributes): Promise<void> {
    const certificateField = CERTIFICATE_FIELD[a.resource.resource]
    if (a.subresource !== 'status' || a.resource.group !== 'certificates.k8s.io' || certificateField === undefined) return
    const kind = a.resource.resource === 'certificatesigningrequests' ? 'CertificateSigningRequest' : 'PodCertificateRequest'
    if (!a.oldObject || !a.object) throw forbidden(a, `expected type ${kind}, got: <nil>`)
    const oldStatus = isPlainObject(a.oldObject.status) ? a.oldObject.status : {}
    const status = isPlainObject(a.object.status) ? a.object.status : {}
    // Only a change of the certificate or of the conditions is signing.
    if (sameValue(oldStatus[certificateField], status[certificateField]) && sameValue(oldStatus.conditions, status.conditions)) return
    const signerName = signerNameOf(a.oldObject.spec)
    // A write without a requester is the server's own; with no authorizer there is nothing to ask.
    if (!a.userInfo || !this.init.authorizer) return
    if (!(await isAuthorizedForSignerName(this.init.authorizer, a.userInfo, 'sign', signerName))) {
      throw forbidden(a, `user not permitted to sign requests with signerName ${JSON.stringify(signerName)}`)
    }
  }
}

/** Semantic equality: absent, null, '' and an empty list are the same (no certificate, no conditions). */
function sameValue(x: unknown, y: unknown): boolean {
  const empty = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0)
  if (empty(x) && empty(y)) return true
  return isDeepStrictEqual(x, y)
}

function forbidden(a: AdmissionAttributes, why: string): ApiError {
  return errors.forbidden({ group: a.resource.group, resource: a.resource.resource }, nameForRefusal(a), why)
}
