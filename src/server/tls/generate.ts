/**
 * Certificate generation: keys with Node's crypto, certificates laid out in DER and signed with
 * it too (certificate-der.ts). @peculiar/x509 is loaded only where a certificate request is
 * read and signed (sign-request.ts, request-header.ts).
 */
import crypto from 'node:crypto'
import { promisify } from 'node:util'
import {
  KEY_USAGE,
  OID,
  authorityKeyIdentifier,
  basicConstraints,
  extKeyUsage,
  extensionDer,
  keyIdentifier,
  keyUsage,
  nameDer,
  signCertificate,
  subjectAltName,
  subjectKeyIdentifier,
  subjectNameDer,
} from './certificate-der.js'
import type { KeyAuth } from './ciphers.js'
import { altNamesFromDer, subjectFromDer } from './der-names.js'

const generateKeyPair = promisify(crypto.generateKeyPair)

type X509Module = typeof import('@peculiar/x509')
let x509Module: Promise<X509Module> | undefined

/** Loads @peculiar/x509 on first use: only certificate requests need it. */
export function loadX509(): Promise<X509Module> {
  x509Module ??= import('@peculiar/x509')
  return x509Module
}

export const HOUR_MS = 60 * 60 * 1000
export const DAY_MS = 24 * HOUR_MS
/** Lifetime of a generated CA. */
export const CA_LIFETIME_MS = 10 * 365 * DAY_MS
/** Lifetime of a generated serving certificate (as the reference: one year). */
export const SERVING_LIFETIME_MS = 365 * DAY_MS
/** Backdating of notBefore against clock skew (as the reference: one hour). */
export const BACKDATE_MS = HOUR_MS

export interface KeyPair {
  privateKey: crypto.KeyObject
  publicKey: crypto.KeyObject
}

/** RSA 2048 (`rsa`) or EC P-256 (`ecdsa`), generated off the main thread. */
export async function generateKey(type: KeyAuth = 'rsa'): Promise<KeyPair> {
  if (type === 'ecdsa') return generateKeyPair('ec', { namedCurve: 'P-256' })
  return generateKeyPair('rsa', { modulusLength: 2048 })
}

/** PKCS#8 PEM of a private key. */
export function privateKeyPem(key: crypto.KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString()
}

/** A random positive 128-bit serial number. */
function serialNumber(): Buffer {
  const bytes = crypto.randomBytes(16)
  bytes[0] = (bytes[0]! & 0x7f) || 0x01
  return bytes
}

interface CaParams {
  key: KeyPair
  commonName: string
  notBefore: Date
  notAfter: Date
}

/** A self-signed CA certificate as PEM. */
export async function createCaCertificate(params: CaParams): Promise<string> {
  const name = nameDer([[OID.commonName, params.commonName]])
  return signCertificate({
    serial: serialNumber(),
    issuer: name,
    subject: name,
    notBefore: params.notBefore,
    notAfter: params.notAfter,
    publicKey: params.key.publicKey,
    signingKey: params.key.privateKey,
    extensions: [
      extensionDer(OID.basicConstraints, true, basicConstraints(true)),
      extensionDer(OID.keyUsage, true, keyUsage([KEY_USAGE.digitalSignature, KEY_USAGE.keyCertSign, KEY_USAGE.cRLSign])),
      extensionDer(OID.subjectKeyIdentifier, false, subjectKeyIdentifier(keyIdentifier(params.key.publicKey))),
    ],
  })
}

interface LeafParams {
  /** The issuing CA. */
  ca: { certPem: string; privateKey: crypto.KeyObject }
  /** The public key of the new certificate. */
  publicKey: crypto.KeyObject
  commonName: string
  dns: readonly string[]
  ips: readonly string[]
  notBefore: Date
  notAfter: Date
  /** Extended key usage; default server authentication. */
  usage?: 'server' | 'client'
  /** Subject O values: the groups of a client certificate's user. */
  organizations?: readonly string[]
}

/** A certificate signed by `ca`, as PEM (the leaf only). */
export async function createLeafCertificate(params: LeafParams): Promise<string> {
  const caCert = new crypto.X509Certificate(params.ca.certPem)
  const rsa = params.publicKey.asymmetricKeyType === 'rsa'
  const extensions = [
    extensionDer(OID.basicConstraints, true, basicConstraints(false)),
    extensionDer(OID.keyUsage, true, keyUsage(rsa ? [KEY_USAGE.digitalSignature, KEY_USAGE.keyEncipherment] : [KEY_USAGE.digitalSignature])),
    extensionDer(OID.extKeyUsage, false, extKeyUsage([params.usage === 'client' ? OID.clientAuth : OID.serverAuth])),
    extensionDer(OID.authorityKeyIdentifier, false, authorityKeyIdentifier(keyIdentifier(caCert.publicKey))),
    extensionDer(OID.subjectKeyIdentifier, false, subjectKeyIdentifier(keyIdentifier(params.publicKey))),
  ]
  if (params.dns.length > 0 || params.ips.length > 0) extensions.push(extensionDer(OID.subjectAltName, false, subjectAltName(params.dns, params.ips)))
  return signCertificate({
    serial: serialNumber(),
    issuer: subjectNameDer(caCert.raw),
    subject: nameDer([...(params.organizations ?? []).map((o) => [OID.organization, o] as const), [OID.commonName, params.commonName] as const]),
    notBefore: params.notBefore,
    notAfter: params.notAfter,
    publicKey: params.publicKey,
    signingKey: params.ca.privateKey,
    extensions,
  })
}

/**
 * Names a certificate serves: its last subject CN, DNS and IP SANs (IPs canonical as parsed).
 * Read from the DER (der-names.ts), so that a start with its certificates present does not load
 * @peculiar/x509.
 */
export async function certificateNames(certPem: string): Promise<{ commonName?: string; dns: string[]; ips: string[] }> {
  const der = new crypto.X509Certificate(certPem).raw
  const cns = subjectFromDer(der).commonNames
  const result: { commonName?: string; dns: string[]; ips: string[] } = altNamesFromDer(der)
  if (cns.length > 0) result.commonName = cns[cns.length - 1]!
  return result
}
