/**
 * The CertificateSubjectRestriction admission plugin (the reference's
 * `plugin/pkg/admission/certificates/subjectrestriction`): a new CertificateSigningRequest
 * for the `kubernetes.io/kube-apiserver-client` signer may not ask for the `system:masters`
 * group (an Organization of its subject), which would make its holder a superuser; a request
 * for that signer that does not parse is refused too.
 */
import { derChildren, readDerElement } from '../../core/util/der.js'
import type { ApiError } from '../api/status-errors.js'
import { errors } from '../api/status-errors.js'
import { isPlainObject } from '../api/registry/object.js'
import { decodePEM } from '../api/validation/pem.js'
import { type AdmissionAttributes, CREATE, nameForRefusal } from './attributes.js'
import { signerNameOf } from './certificates-signer-authorization.js'
import { type ValidationInterface, actsOnOnly, handlesOnly } from './interfaces.js'

export const CERTIFICATE_SUBJECT_RESTRICTION = 'CertificateSubjectRestriction'

const KUBE_APISERVER_CLIENT_SIGNER_NAME = 'kubernetes.io/kube-apiserver-client'
const SYSTEM_MASTERS = 'system:masters'
const OID_ORGANIZATION = '55040a'

export class CertificateSubjectRestriction implements ValidationInterface {
  readonly handles = handlesOnly(CREATE)
  readonly actsOn = actsOnOnly('certificatesigningrequests.certificates.k8s.io')

  async validate(a: AdmissionAttributes): Promise<void> {
    if (a.resource.group !== 'certificates.k8s.io' || a.resource.resource !== 'certificatesigningrequests' || a.subresource !== '') return
    const csr = a.object
    if (!csr) throw forbidden(a, 'expected type CertificateSigningRequest, got: <nil>')
    const signerName = signerNameOf(csr.spec)
    if (signerName !== KUBE_APISERVER_CLIENT_SIGNER_NAME) return
    const request = isPlainObject(csr.spec) && typeof csr.spec.request === 'string' ? Buffer.from(csr.spec.request, 'base64') : Buffer.alloc(0)
    let organizations: string[]
    try {
      organizations = requestOrganizations(request)
    } catch (err) {
      throw forbidden(a, `failed to parse CSR: ${(err as Error).message}`)
    }
    if (organizations.includes(SYSTEM_MASTERS)) throw forbidden(a, `use of ${signerName} signer with ${SYSTEM_MASTERS} group is not allowed`)
  }
}

/**
 * The Organizations of a PEM certificate request's subject (certificates.ParseCSR, then
 * x509's reading of the subject), with ParseCSR's message for a block of another type.
 */
function requestOrganizations(pem: Buffer): string[] {
  const { block } = decodePEM(pem.toString('latin1'))
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST')
  const der = block.bytes
  try {
    const outer = readDerElement(der, 0, der.length)
    const [info] = derChildren(der, outer)
    // CertificationRequestInfo: version, subject, subjectPKInfo, attributes.
    const subject = info ? derChildren(der, info)[1] : undefined
    if (!subject || subject.tag !== 0x30) throw new Error('no subject')
    const organizations: string[] = []
    for (const rdn of derChildren(der, subject)) {
      for (const atv of derChildren(der, rdn)) {
        const [type, value] = derChildren(der, atv)
        if (type?.tag === 0x06 && value && der.subarray(type.contentStart, type.end).toString('hex') === OID_ORGANIZATION) {
          organizations.push(der.subarray(value.contentStart, value.end).toString('utf8'))
        }
      }
    }
    return organizations
  } catch {
    throw new Error('x509: malformed certificate request')
  }
}

function forbidden(a: AdmissionAttributes, why: string): ApiError {
  return errors.forbidden({ group: a.resource.group, resource: a.resource.resource }, nameForRefusal(a), why)
}
