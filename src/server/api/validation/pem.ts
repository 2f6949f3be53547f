/**
 * The PEM and X.509 checks certificate validation needs, synchronous (validation hooks are):
 * Go's `encoding/pem` Decode, `certificates.ParseCSR` + `CheckSignature` of a PKCS#10 request
 * (a small DER reader and node:crypto's verify), and `x509.ParseCertificates` (node:crypto's
 * X509Certificate). Messages are Go's where the reference prints them.
 */
import { X509Certificate, constants, createPublicKey, verify } from 'node:crypto'
import { type DerElement, derChildren, readDerElement } from '../../../core/util/der.js'

export interface PemBlock {
  type: string
  headers: Record<string, string>
  bytes: Buffer
}

const BEGIN = '-----BEGIN '
const DASHES = '-----'

/**
 * pem.Decode: the first well-formed block in `data` and what follows it; text before the
 * block is skipped, as are BEGIN lines that do not start a valid block.
 */
export function decodePEM(data: string): { block?: PemBlock; rest: string } {
  let rest = data
  for (;;) {
    const start = rest.startsWith(BEGIN) ? 0 : rest.indexOf(`\n${BEGIN}`) + 1
    if (start <= 0 && !rest.startsWith(BEGIN)) return { rest: data }
    const afterBegin = rest.slice(start + BEGIN.length)
    const lineEnd = afterBegin.indexOf('\n')
    const line = (lineEnd < 0 ? afterBegin : afterBegin.slice(0, lineEnd)).replace(/\r$/, '').trimEnd()
    if (lineEnd < 0 || !line.endsWith(DASHES)) {
      rest = afterBegin
      continue
    }
    const type = line.slice(0, -DASHES.length)
    const body = afterBegin.slice(lineEnd + 1)
    const endMarker = `${DASHES}END ${type}${DASHES}`
    const end = body.indexOf(endMarker)
    if (end < 0) {
      rest = body
      continue
    }
    const lines = body.slice(0, end).split('\n').map((l) => l.replace(/\r$/, ''))
    const headers: Record<string, string> = {}
    let i = 0
    for (; i < lines.length; i++) {
      const colon = lines[i]!.indexOf(':')
      if (colon < 0) break
      headers[lines[i]!.slice(0, colon).trim()] = lines[i]!.slice(colon + 1).trim()
    }
    if (Object.keys(headers).length > 0 && lines[i]?.trim() === '') i++
    const text = lines.slice(i).join('').replace(/[ \t]/g, '')
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) {
      rest = body
      continue
    }
    const after = body.slice(end + endMarker.length)
    return { block: { type, headers, bytes: Buffer.from(text, 'base64') }, rest: after.startsWith('\r\n') ? after.slice(2) : after.startsWith('\n') ? after.slice(1) : after }
  }
}

function oid(der: Buffer, t: DerElement): string {
  const bytes = der.subarray(t.contentStart, t.end)
  const parts: number[] = [Math.floor(bytes[0]! / 40), bytes[0]! % 40]
  let n = 0
  for (const b of bytes.subarray(1)) {
    n = n * 128 + (b & 0x7f)
    if (!(b & 0x80)) {
      parts.push(n)
      n = 0
    }
  }
  return parts.join('.')
}

/** The signature algorithms x509.CheckSignature implements, by OID: [hash, key kind]. */
const SIGNATURE_ALGORITHMS: Record<string, [string | null, 'rsa' | 'rsa-pss' | 'ecdsa' | 'ed25519']> = {
  '1.2.840.113549.1.1.5': ['sha1', 'rsa'],
  '1.2.840.113549.1.1.11': ['sha256', 'rsa'],
  '1.2.840.113549.1.1.12': ['sha384', 'rsa'],
  '1.2.840.113549.1.1.13': ['sha512', 'rsa'],
  '1.2.840.113549.1.1.10': [null, 'rsa-pss'],
  '1.2.840.10045.4.1': ['sha1', 'ecdsa'],
  '1.2.840.10045.4.3.2': ['sha256', 'ecdsa'],
  '1.2.840.10045.4.3.3': ['sha384', 'ecdsa'],
  '1.2.840.10045.4.3.4': ['sha512', 'ecdsa'],
  '1.3.101.112': [null, 'ed25519'],
}

/** The hashes Go accepts in RSASSA-PSS parameters. */
const PSS_HASHES: Record<string, string> = {
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
}

const VERIFICATION_FAILURE: Record<string, string> = {
  rsa: 'crypto/rsa: verification error',
  'rsa-pss': 'crypto/rsa: verification error',
  ecdsa: 'x509: ECDSA verification failure',
  ed25519: 'x509: Ed25519 verification failure',
}

/**
 * certificates.ParseCSR and CheckSignature: undefined for a well-formed, correctly signed
 * PKCS#10 request in a CERTIFICATE REQUEST block, else the reference's error text.
 */
export function csrError(pem: Buffer): string | undefined {
  const { block } = decodePEM(pem.toString('latin1'))
  if (!block || block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST'
  const der = block.bytes
  let tbs: DerElement
  let spki: DerElement
  let algorithm: string
  let pssHash: string | undefined
  let signature: Buffer
  try {
    const outer = readDerElement(der, 0, der.length)
    if (outer.tag !== 0x30 || outer.end !== der.length) throw new Error('not a sequence')
    const [info, algo, sig] = derChildren(der, outer)
    if (!info || !algo || !sig || info.tag !== 0x30 || algo.tag !== 0x30 || sig.tag !== 0x03) throw new Error('bad structure')
    tbs = info
    const infoParts = derChildren(der, info)
    if (infoParts.length < 3 || infoParts[2]!.tag !== 0x30) throw new Error('bad info')
    spki = infoParts[2]!
    const algoParts = derChildren(der, algo)
    if (!algoParts[0] || algoParts[0].tag !== 0x06) throw new Error('bad algorithm')
    algorithm = oid(der, algoParts[0])
    // RSASSA-PSS-params: the hash in [0] (SHA-1 when absent, which Go refuses).
    const params = algoParts[1]
    if (params && params.tag === 0x30) {
      const hashField = derChildren(der, params).find((t) => t.tag === 0xa0)
      const hashAlgorithm = hashField ? derChildren(der, hashField)[0] : undefined
      const hashOid = hashAlgorithm ? derChildren(der, hashAlgorithm)[0] : undefined
      if (hashOid && hashOid.tag === 0x06) pssHash = PSS_HASHES[oid(der, hashOid)]
    }
    signature = der.subarray(sig.contentStart + 1, sig.end)
  } catch {
    return 'x509: malformed certificate request'
  }
  const known = SIGNATURE_ALGORITHMS[algorithm]
  if (!known) return 'x509: cannot verify signature: algorithm unimplemented'
  const [defaultHash, kind] = known
  const hash = kind === 'rsa-pss' ? pssHash : defaultHash
  if (kind === 'rsa-pss' && !hash) return 'x509: cannot verify signature: algorithm unimplemented'
  try {
    const key = createPublicKey({ key: der.subarray(spki.start, spki.end), format: 'der', type: 'spki' })
    const data = der.subarray(tbs.start, tbs.end)
    const ok =
      kind === 'rsa-pss'
        ? verify(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, signature)
        : verify(hash, data, key, signature)
    return ok ? undefined : VERIFICATION_FAILURE[kind]
  } catch {
    return VERIFICATION_FAILURE[kind]
  }
}

/** validateCertificate of the CSR validation: undefined, or why the PEM bundle is not one of certificates. */
export function certificateBundleError(pem: Buffer): string | undefined {
  if (pem.length === 0) return undefined
  let rest = pem.toString('latin1')
  let blocks = 0
  for (;;) {
    const { block, rest: after } = decodePEM(rest)
    if (!block) break
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(block.type)}`
    if (Object.keys(block.headers).length > 0) return 'no PEM block headers are permitted'
    blocks++
    if (block.bytes.length === 0) return 'found CERTIFICATE PEM block containing 0 certificates'
    // x509.ParseCertificates: the block holds one or more DER certificates back to back.
    try {
      for (let at = 0; at < block.bytes.length; ) {
        const t = readDerElement(block.bytes, at, block.bytes.length)
        new X509Certificate(block.bytes.subarray(at, t.end))
        at = t.end
      }
    } catch {
      return 'x509: malformed certificate'
    }
    rest = after
  }
  return blocks === 0 ? 'must contain at least one CERTIFICATE PEM block' : undefined
}

/** x509.ParseCertificate of one DER certificate: whether it is a CA (basic constraints), or undefined when it does not parse. */
export function parseCertificate(der: Buffer): { isCA: boolean } | undefined {
  try {
    return { isCA: new X509Certificate(der).ca }
  } catch {
    return undefined
  }
}
