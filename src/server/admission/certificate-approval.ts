/**
 * The CertificateApproval admission plugin (the reference's
 * `plugin/pkg/admission/certificates/approval`): approving or denying a
 * CertificateSigningRequest (an update of its `approval` subresource) needs the `approve`
 * verb on the request's signer name (see certificates-signer-authorization.ts), checked on
 * the new object so that a changed signer name is what counts.
 */
import type { ApiError } from '../api/status-errors.js'
import { errors } from '../api/status-errors.js'
import { type AdmissionAttributes, UPDATE, nameForRefusal } from './attributes.js'
import { isAuthorizedForSignerName, signerNameOf } from './certificates-signer-authorization.js'
import { type ValidationInterface, handlesOnly } from './interfaces.js'
import type { PluginInitialization } from './plugins.js'

export const CERTIFICATE_APPROVAL = 'CertificateApproval'

export class CertificateApproval implements ValidationInterface {
  constructor(private readonly init: PluginInitialization) {}

  readonly handles = handlesOnly(UPDATE)

  async validate(a: AdmissionAttributes): Promise<void> {
    if (a.subresource !== 'approval' || a.resource.group !== 'certificates.k8s.io' || a.resource.resource !== 'certificatesigningrequests') return
    const csr = a.object
    if (!csr) throw forbidden(a, 'expected type CertificateSigningRequest, got: <nil>')
    const signerName = signerNameOf(csr.spec)
    // A write without a requester is the server's own (the reference's loopback user is in
    // system:masters), and with no authorizer wired there is nothing to ask.
    if (!a.userInfo || !this.init.authorizer) return
    if (!(await isAuthorizedForSignerName(this.init.authorizer, a.userInfo, 'approve', signerName))) {
      throw forbidden(a, `user not permitted to approve requests with signerName ${JSON.stringify(signerName)}`)
    }
  }
}

function forbidden(a: AdmissionAttributes, why: string): ApiError {
  return errors.forbidden({ group: a.resource.group, resource: a.resource.resource }, nameForRefusal(a), why)
}
