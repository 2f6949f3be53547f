/**
 * The subject common name of a PEM certificate request, as certificates.ParseCSR and Go's
 * x509.ParseCertificateRequest read it, with their messages when it does not parse: a kubelet's
 * CSR must name the node itself.
 */
import { derChildren, readDerElement } from '../../../core/util/der.js'
import { decodePEM } from '../../api/validation/pem.js'

const OID_COMMON_NAME = '550403'

export function requestCommonName(pem: Buffer): string {
  const { block } = decodePEM(pem.toString('latin1'))
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST')
  const der = block.bytes
  // encoding/asn1 on no bytes at all.
  if (der.length === 0) throw new Error('asn1: syntax error: sequence truncated')
  try {
    const outer = readDerElement(der, 0, der.length)
    const [info] = derChildren(der, outer)
    // CertificationRequestInfo: version, subject, subjectPKInfo, attributes.
    const subject = info ? derChildren(der, info)[1] : undefined
    if (!subject || subject.tag !== 0x30) throw new Error('no subject')
    let commonName = ''
    for (const rdn of derChildren(der, subject)) {
      for (const atv of derChildren(der, rdn)) {
        const [type, value] = derChildren(der, atv)
        if (type?.tag === 0x06 && value && der.subarray(type.contentStart, type.end).toString('hex') === OID_COMMON_NAME) {
          commonName = der.subarray(value.contentStart, value.end).toString('utf8')
        }
      }
    }
    return commonName
  } catch {
    throw new Error('x509: malformed certificate request')
  }
}
