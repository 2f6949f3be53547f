/**
 * Certificate generation: keys with Node's crypto, certificates built and signed with
 * @peculiar/x509 on Node's WebCrypto (passed explicitly; no global provider is set).
 */
import crypto from 'node:crypto'
import { promisify } from 'node:util'
import type { KeyAuth } from './ciphers.js'
import { altNamesFromDer, subjectFromDer } from './der-names.js'

const generateKeyPair = promisify(crypto.generateKeyPair)
const webcrypto = crypto.webcrypto
type WebKey = crypto.webcrypto.CryptoKey
type SigningAlgorithm = crypto.webcrypto.RsaHashedImportParams | (crypto.webcrypto.EcKeyImportParams & crypto.webcrypto.EcdsaParams)

type X509Module = typeof import('@peculiar/x509')
let x509Module: Promise<X509Module> | undefined

/** Loads @peculiar/x509 on first use: it is only needed when certificates are generated or inspected. */
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

function signingAlgorithm(key: crypto.KeyObject): SigningAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve
    const named = curve === 'prime256v1' || curve === 'P-256' ? 'P-256' : curve === 'secp384r1' || curve === 'P-384' ? 'P-384' : undefined
    if (named) return { name: 'ECDSA', namedCurve: named, hash: named === 'P-384' ? 'SHA-384' : 'SHA-256' }
  }
  throw new Error(`cannot sign with a ${key.asymmetricKeyType ?? 'unknown'} key; the CA key must be RSA or EC P-256/P-384`)
}

async function toCryptoKeys(pair: { privateKey: crypto.KeyObject; publicKey?: crypto.KeyObject }): Promise<{ privateKey: WebKey; publicKey?: WebKey; algorithm: SigningAlgorithm }> {
  const algorithm = signingAlgorithm(pair.privateKey)
  const privateKey = await webcrypto.subtle.importKey('pkcs8', pair.privateKey.export({ type: 'pkcs8', format: 'der' }), algorithm, false, ['sign'])
  if (!pair.publicKey) return { privateKey, algorithm }
  const publicKey = await webcrypto.subtle.importKey('spki', pair.publicKey.export({ type: 'spki', format: 'der' }), algorithm, true, ['verify'])
  return { privateKey, publicKey, algorithm }
}

/** A random positive 128-bit serial number as hex. */
function serialNumber(): string {
  const bytes = crypto.randomBytes(16)
  bytes[0] = (bytes[0]! & 0x7f) || 0x01
  return bytes.toString('hex')
}

/** Escapes an RDN value for a string DN (RFC 4514). */
function rdnValue(value: string): string {
  return value.replace(/([,+"\\<>;=])/g, '\\$1').replace(/^([ #])/, '\\$1').replace(/ $/, '\\ ')
}

interface CaParams {
  key: KeyPair
  commonName: string
  notBefore: Date
  notAfter: Date
}

/** A self-signed CA certificate as PEM. */
export async function createCaCertificate(params: CaParams): Promise<string> {
  const x509 = await loadX509()
  const keys = await toCryptoKeys(params.key)
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serialNumber(),
      name: `CN=${rdnValue(params.commonName)}`,
      notBefore: params.notBefore,
      notAfter: params.notAfter,
      signingAlgorithm: keys.algorithm,
      keys: { privateKey: keys.privateKey, publicKey: keys.publicKey! },
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey!, false, webcrypto),
      ],
    },
    webcrypto,
  )
  return withNewline(cert.toString('pem'))
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
  const x509 = await loadX509()
  const caCert = new x509.X509Certificate(params.ca.certPem)
  const signer = await toCryptoKeys({ privateKey: params.ca.privateKey })
  const spki = params.publicKey.export({ type: 'spki', format: 'der' })
  const rsa = params.publicKey.asymmetricKeyType === 'rsa'
  const names = [
    ...params.dns.map((value) => ({ type: 'dns' as const, value })),
    ...params.ips.map((value) => ({ type: 'ip' as const, value })),
  ]
  const extensions: InstanceType<X509Module['Extension']>[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | (rsa ? x509.KeyUsageFlags.keyEncipherment : 0), true),
    new x509.ExtendedKeyUsageExtension([params.usage === 'client' ? x509.ExtendedKeyUsage.clientAuth : x509.ExtendedKeyUsage.serverAuth]),
    await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey, false, webcrypto),
    await x509.SubjectKeyIdentifierExtension.create(new x509.PublicKey(spki), false, webcrypto),
  ]
  if (names.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(names))
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serialNumber(),
      subject: [...(params.organizations ?? []).map((o) => `O=${rdnValue(o)}`), `CN=${rdnValue(params.commonName)}`].join(', '),
      issuer: caCert.subjectName,
      notBefore: params.notBefore,
      notAfter: params.notAfter,
      signingAlgorithm: signer.algorithm,
      publicKey: new x509.PublicKey(spki),
      signingKey: signer.privateKey,
      extensions,
    },
    webcrypto,
  )
  return withNewline(cert.toString('pem'))
}

function withNewline(pem: string): string {
  const text = pem.replace(/\r\n/g, '\n')
  return text.endsWith('\n') ? text : `${text}\n`
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
