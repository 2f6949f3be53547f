/**
 * The X.509 v3 certificates the server generates (its CA, its serving certificate, the
 * administrator's client certificate), laid out in DER as RFC 5280 does and signed with Node's
 * crypto. @peculiar/x509 built them before: loading it (and WebCrypto under it) was most of what
 * a first start does beyond a restart once the keys are ECDSA. The fields are those the
 * library wrote: subject attributes one per RDN, as PrintableString when they can be and
 * UTF8String otherwise (as Go's pkix does); key identifiers as RFC 5280's method 1 (SHA-1 of
 * the public key's bits), which is also how earlier CAs got theirs.
 */
import crypto from 'node:crypto'
import {
  derBitString,
  derBoolean,
  derExplicit,
  derImplicit,
  derNamedBits,
  derNull,
  derObjectIdentifier,
  derOctetString,
  derPrintableString,
  derSequence,
  derSet,
  derTime,
  derUnsignedInteger,
  derUtf8String,
} from '../../core/util/der-writer.js'
import { derChildren, readDerElement } from '../../core/util/der.js'

export const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  subjectAltName: '2.5.29.17',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const

/** KeyUsage's bits (RFC 5280 4.2.1.3). */
export const KEY_USAGE = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5, cRLSign: 6 } as const

const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/

/** A Name of one attribute per RDN, in the order given. */
export function nameDer(attributes: ReadonlyArray<readonly [oid: string, value: string]>): Buffer {
  return derSequence(
    ...attributes.map(([oid, value]) => derSet(derSequence(derObjectIdentifier(oid), PRINTABLE.test(value) ? derPrintableString(value) : derUtf8String(value)))),
  )
}

/** An Extension: its OID, `critical` when true, and its value's DER in an OCTET STRING. */
export function extensionDer(oid: string, critical: boolean, value: Uint8Array): Buffer {
  return derSequence(derObjectIdentifier(oid), ...(critical ? [derBoolean(true)] : []), derOctetString(value))
}

/** BasicConstraints: cA TRUE, or the empty sequence (cA's default, FALSE). */
export const basicConstraints = (ca: boolean): Buffer => derSequence(...(ca ? [derBoolean(true)] : []))
export const keyUsage = (bits: readonly number[]): Buffer => derNamedBits(bits)
export const extKeyUsage = (oids: readonly string[]): Buffer => derSequence(...oids.map(derObjectIdentifier))
export const subjectKeyIdentifier = (id: Uint8Array): Buffer => derOctetString(id)
/** AuthorityKeyIdentifier with its keyIdentifier ([0] IMPLICIT) only. */
export const authorityKeyIdentifier = (id: Uint8Array): Buffer => derSequence(derImplicit(0, id))

/** SubjectAltName: dNSName ([2] IA5String) entries, then iPAddress ([7] OCTET STRING) ones. */
export function subjectAltName(dns: readonly string[], ips: readonly string[]): Buffer {
  return derSequence(...dns.map((name) => derImplicit(2, Buffer.from(name, 'latin1'))), ...ips.map((ip) => derImplicit(7, ipBytes(ip))))
}

/** The 4 or 16 bytes of an IPv4 or IPv6 address's text. */
export function ipBytes(text: string): Buffer {
  if (!text.includes(':')) return Buffer.from(text.split('.').map(Number))
  // A dotted IPv4 ending is two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  const [a, b, c, d] = dotted ? dotted.slice(1).map(Number) : []
  const hex = dotted ? `${text.slice(0, dotted.index)}${((a! << 8) | b!).toString(16)}:${((c! << 8) | d!).toString(16)}` : text
  const [left, right] = hex.split('::')
  const groups = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : [])
  const head = groups(left)
  const tail = groups(right)
  const all = right === undefined ? head : [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail]
  const out = Buffer.alloc(16)
  all.forEach((g, i) => out.writeUInt16BE(g, i * 2))
  return out
}

/** RFC 5280's key identifier (method 1): SHA-1 of the subjectPublicKey bits of the key's SPKI. */
export function keyIdentifier(publicKey: crypto.KeyObject): Buffer {
  const spki = publicKey.export({ type: 'spki', format: 'der' })
  const outer = readDerElement(spki, 0, spki.length)
  const bits = derChildren(spki, outer)[1]!
  // The BIT STRING's contents less its unused-bits byte.
  return crypto.createHash('sha1').update(spki.subarray(bits.contentStart + 1, bits.end)).digest()
}

/** The signature algorithm of a CA key: its AlgorithmIdentifier and the digest it signs with. */
function signatureAlgorithm(key: crypto.KeyObject): { identifier: Buffer; hash: string } {
  if (key.asymmetricKeyType === 'rsa') return { identifier: derSequence(derObjectIdentifier('1.2.840.113549.1.1.11'), derNull()), hash: 'sha256' }
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve
    if (curve === 'prime256v1' || curve === 'P-256') return { identifier: derSequence(derObjectIdentifier('1.2.840.10045.4.3.2')), hash: 'sha256' }
    if (curve === 'secp384r1' || curve === 'P-384') return { identifier: derSequence(derObjectIdentifier('1.2.840.10045.4.3.3')), hash: 'sha384' }
  }
  throw new Error(`cannot sign with a ${key.asymmetricKeyType ?? 'unknown'} key; the CA key must be RSA or EC P-256/P-384`)
}

export interface CertificateFields {
  /** The serial number's big-endian bytes (positive). */
  serial: Uint8Array
  /** The issuer's and the subject's Name, as DER. */
  issuer: Uint8Array
  subject: Uint8Array
  notBefore: Date
  notAfter: Date
  publicKey: crypto.KeyObject
  /** Each an Extension's DER (extensionDer). */
  extensions: readonly Uint8Array[]
  /** The issuer's private key. */
  signingKey: crypto.KeyObject
}

/** The signed certificate as PEM. */
export function signCertificate(fields: CertificateFields): string {
  const algorithm = signatureAlgorithm(fields.signingKey)
  const tbs = derSequence(
    derExplicit(0, derUnsignedInteger(Buffer.from([2]))),
    derUnsignedInteger(fields.serial),
    algorithm.identifier,
    Buffer.from(fields.issuer),
    derSequence(derTime(fields.notBefore), derTime(fields.notAfter)),
    Buffer.from(fields.subject),
    fields.publicKey.export({ type: 'spki', format: 'der' }),
    ...(fields.extensions.length > 0 ? [derExplicit(3, derSequence(...fields.extensions))] : []),
  )
  // ECDSA signatures come as DER (Ecdsa-Sig-Value), RSA ones as PKCS #1 v1.5: what X.509 wants.
  const signature = crypto.sign(algorithm.hash, tbs, fields.signingKey)
  const der = derSequence(tbs, algorithm.identifier, derBitString(signature))
  return `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`
}

/** The subject Name of a certificate's DER, as it is (the issuer of the certificates it signs). */
export function subjectNameDer(der: Uint8Array): Buffer {
  const cert = readDerElement(der, 0, der.length)
  const tbs = readDerElement(der, cert.contentStart, cert.end)
  const fields = derChildren(der, tbs)
  const subject = fields[(fields[0]?.tag === 0xa0 ? 1 : 0) + 4]!
  return Buffer.from(der.subarray(subject.start, subject.end))
}
