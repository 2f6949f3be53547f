/**
 * A certificate for a PKCS#10 request signed by a CA, as the reference's CSR signer does
 * (pkg/controller/certificates/authority, PermissiveSigningPolicy): the request's subject, DNS,
 * IP, email and URI names and public key, the key usages and extended key usages named by the
 * CSR's `spec.usages`, not a CA, valid from five minutes back for the requested duration but
 * not past the CA's own expiry. The leaf alone, as PEM.
 */
import crypto from 'node:crypto'
import { loadX509 } from './generate.js'

/** KeyUsage names of certificates.k8s.io (keyUsageDict) and their bits (RFC 5280 order). */
const KEY_USAGES: Readonly<Record<string, number>> = {
  signing: 1,
  'digital signature': 1,
  'content commitment': 2,
  'key encipherment': 4,
  'key agreement': 16,
  'data encipherment': 8,
  'cert sign': 32,
  'crl sign': 64,
  'encipher only': 128,
  'decipher only': 256,
}

/** ExtKeyUsage names (extKeyUsageDict) and their OIDs. */
const EXT_KEY_USAGES: Readonly<Record<string, string>> = {
  any: '2.5.29.37.0',
  'server auth': '1.3.6.1.5.5.7.3.1',
  'client auth': '1.3.6.1.5.5.7.3.2',
  'code signing': '1.3.6.1.5.5.7.3.3',
  'email protection': '1.3.6.1.5.5.7.3.4',
  's/mime': '1.3.6.1.5.5.7.3.4',
  'ipsec end system': '1.3.6.1.5.5.7.3.5',
  'ipsec tunnel': '1.3.6.1.5.5.7.3.6',
  'ipsec user': '1.3.6.1.5.5.7.3.7',
  timestamping: '1.3.6.1.5.5.7.3.8',
  'ocsp signing': '1.3.6.1.5.5.7.3.9',
  'microsoft sgc': '1.3.6.1.4.1.311.10.3.3',
  'netscape sgc': '2.16.840.1.113730.4.1',
}

/** The reference's backdate of notBefore against clock skew. */
const BACKDATE_MS = 5 * 60 * 1000

export interface SigningCa {
  readonly certPem: string
  readonly keyPem: string
}

export interface SignRequest {
  /** The PEM `CERTIFICATE REQUEST` (spec.request decoded). */
  readonly requestPem: string
  readonly usages: readonly string[]
  readonly durationMs: number
  readonly now: Date
}

/** Unknown usage names (keyUsagesFromStrings' error), or an empty list. */
export function unknownUsages(usages: readonly string[]): string[] {
  return usages.filter((u) => KEY_USAGES[u] === undefined && EXT_KEY_USAGES[u] === undefined)
}

/** The request's subject and names, parsed (capihelper.ParseCSR); throws when it is not a CSR. */
export async function parseRequest(requestPem: string): Promise<{ commonName: string; organizations: string[]; dns: string[]; ips: string[]; emails: string[]; uris: string[] }> {
  const x509 = await loadX509()
  const csr = new x509.Pkcs10CertificateRequest(requestPem)
  if (!(await csr.verify(crypto.webcrypto))) throw new Error('signature verification failed')
  const subject = csr.subjectName
  const names = sanOf(x509, csr)?.names.items ?? []
  return {
    commonName: subject.getField('CN')[0] ?? '',
    organizations: subject.getField('O'),
    dns: names.filter((n) => n.type === 'dns').map((n) => n.value),
    ips: names.filter((n) => n.type === 'ip').map((n) => n.value),
    emails: names.filter((n) => n.type === 'email').map((n) => n.value),
    uris: names.filter((n) => n.type === 'url').map((n) => n.value),
  }
}

/** The request's subjectAltName extension, when it has one. */
function sanOf(x509: Awaited<ReturnType<typeof loadX509>>, csr: InstanceType<Awaited<ReturnType<typeof loadX509>>['Pkcs10CertificateRequest']>) {
  const ext = csr.getExtension('2.5.29.17')
  return ext ? new x509.SubjectAlternativeNameExtension(ext.rawData) : undefined
}

/** Signs the request with the CA; the certificate as PEM. */
export async function signRequest(ca: SigningCa, request: SignRequest): Promise<string> {
  const x509 = await loadX509()
  const csr = new x509.Pkcs10CertificateRequest(request.requestPem)
  const caCert = new x509.X509Certificate(ca.certPem)
  const caKey = crypto.createPrivateKey(ca.keyPem)
  const algorithm = caKey.asymmetricKeyType === 'rsa' ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } : { name: 'ECDSA', namedCurve: caKey.asymmetricKeyDetails?.namedCurve === 'secp384r1' ? 'P-384' : 'P-256', hash: 'SHA-256' }
  const signingKey = await crypto.webcrypto.subtle.importKey('pkcs8', caKey.export({ type: 'pkcs8', format: 'der' }), algorithm, false, ['sign'])
  const keyBits = request.usages.reduce((bits, u) => bits | (KEY_USAGES[u] ?? 0), 0)
  const extKeyUsages = [...new Set(request.usages.map((u) => EXT_KEY_USAGES[u]).filter((oid): oid is string => oid !== undefined))]
  const extensions: InstanceType<typeof x509.Extension>[] = [new x509.BasicConstraintsExtension(false, undefined, true)]
  if (keyBits !== 0) extensions.push(new x509.KeyUsagesExtension(keyBits, true))
  if (extKeyUsages.length > 0) extensions.push(new x509.ExtendedKeyUsageExtension(extKeyUsages))
  extensions.push(await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey, false, crypto.webcrypto))
  const san = sanOf(x509, csr)
  if (san) extensions.push(new x509.SubjectAlternativeNameExtension(san.names.toJSON()))
  const notAfter = Math.min(request.now.getTime() + request.durationMs, caCert.notAfter.getTime())
  const serial = crypto.randomBytes(16)
  serial[0] = (serial[0]! & 0x7f) || 0x01
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serial.toString('hex'),
      subject: csr.subjectName,
      issuer: caCert.subjectName,
      notBefore: new Date(request.now.getTime() - BACKDATE_MS),
      notAfter: new Date(notAfter),
      signingAlgorithm: algorithm,
      publicKey: csr.publicKey,
      signingKey,
      extensions,
    },
    crypto.webcrypto,
  )
  const pem = cert.toString('pem').replace(/\r\n/g, '\n')
  return pem.endsWith('\n') ? pem : `${pem}\n`
}
