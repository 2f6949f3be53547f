/**
 * The names in a certificate, read from its DER (RFC 5280's layout) without a certificate
 * library: the subject's CommonNames and Organizations, as Go's pkix.Name collects them, and the
 * DNS and IP subject alternative names. Node's own X509Certificate gives the DER but prints
 * names only as escaped text; @peculiar/x509 reads them too but costs a tenth of the server's
 * start-up to load, which the server otherwise needs only to generate a certificate.
 */

import { type DerElement as Element, DerError, derChildren, readDerElement } from '../../core/util/der.js'

export { DerError }

/** An element of a certificate: certificates use single-byte tags only. */
function element(der: Uint8Array, at: number, limit: number): Element {
  if (at < limit && (der[at]! & 0x1f) === 0x1f) throw new DerError('multi-byte DER tags are not used in certificates')
  return readDerElement(der, at, limit)
}

/** The elements directly inside a constructed element. */
function children(der: Uint8Array, parent: Element): Element[] {
  return derChildren(der, parent, element)
}

function bytesOf(der: Uint8Array, e: Element): Buffer {
  return Buffer.from(der.buffer, der.byteOffset + e.contentStart, e.end - e.contentStart)
}

function sameBytes(der: Uint8Array, e: Element, expected: readonly number[]): boolean {
  if (e.end - e.contentStart !== expected.length) return false
  for (let i = 0; i < expected.length; i++) if (der[e.contentStart + i] !== expected[i]) return false
  return true
}

/** A directory string's text: UTF-16 for BMPString, UTF-32 for UniversalString, else its bytes as UTF-8 (as Go keeps them). */
function text(der: Uint8Array, e: Element): string {
  const bytes = bytesOf(der, e)
  if (e.tag === 0x1e) return Buffer.from(bytes).swap16().toString('utf16le')
  if (e.tag === 0x1c) {
    let s = ''
    for (let i = 0; i + 4 <= bytes.length; i += 4) s += String.fromCodePoint(bytes.readUInt32BE(i))
    return s
  }
  return bytes.toString('utf8')
}

const OID_COMMON_NAME = [0x55, 0x04, 0x03]
const OID_ORGANIZATION = [0x55, 0x04, 0x0a]
const OID_SUBJECT_ALT_NAME = [0x55, 0x1d, 0x11]

/** tbsCertificate's fields: the subject Name and the extensions' list (when present). */
function tbsFields(der: Uint8Array): { subject: Element; extensions: Element | undefined } {
  const cert = element(der, 0, der.length)
  const tbs = element(der, cert.contentStart, cert.end)
  const fields = children(der, tbs)
  // [0] version is optional; then serial, signature, issuer, validity, subject.
  const first = fields[0]?.tag === 0xa0 ? 1 : 0
  const subject = fields[first + 4]
  if (!subject || subject.tag !== 0x30) throw new DerError('no subject in the certificate')
  const wrapper = fields.find((f) => f.tag === 0xa3)
  return { subject, extensions: wrapper ? element(der, wrapper.contentStart, wrapper.end) : undefined }
}

/** The subject's attribute values of one type, in order (every RDN, every value in it). */
function subjectValues(der: Uint8Array, subject: Element, oid: readonly number[]): string[] {
  const out: string[] = []
  for (const rdn of children(der, subject)) {
    for (const atv of children(der, rdn)) {
      const [type, value] = children(der, atv)
      if (type && value && type.tag === 0x06 && sameBytes(der, type, oid)) out.push(text(der, value))
    }
  }
  return out
}

/** The subject's CommonNames and Organizations, in the certificate's order (Go's pkix.Name keeps the last CN). */
export function subjectFromDer(der: Uint8Array): { commonNames: string[]; organizations: string[] } {
  const { subject } = tbsFields(der)
  return { commonNames: subjectValues(der, subject, OID_COMMON_NAME), organizations: subjectValues(der, subject, OID_ORGANIZATION) }
}

function ipText(bytes: Buffer): string {
  if (bytes.length === 4) return [...bytes].join('.')
  if (bytes.length === 16) {
    const groups: string[] = []
    for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16))
    // The longest run of zero groups (two or more) as `::`.
    let best = -1
    let bestLength = 1
    for (let i = 0; i < 8; ) {
      let j = i
      while (j < 8 && groups[j] === '0') j++
      if (j - i > bestLength) {
        best = i
        bestLength = j - i
      }
      i = j === i ? i + 1 : j
    }
    if (best < 0) return groups.join(':')
    return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLength).join(':')}`
  }
  return bytes.toString('hex')
}

/** The DNS and IP subject alternative names, in order (of the first such extension). */
export function altNamesFromDer(der: Uint8Array): { dns: string[]; ips: string[] } {
  const dns: string[] = []
  const ips: string[] = []
  const { extensions } = tbsFields(der)
  if (!extensions) return { dns, ips }
  for (const extension of children(der, extensions)) {
    const parts = children(der, extension)
    if (!parts[0] || !sameBytes(der, parts[0], OID_SUBJECT_ALT_NAME)) continue
    const value = parts[parts.length - 1]!
    const names = element(der, value.contentStart, value.end)
    for (const name of children(der, names)) {
      if (name.tag === 0x82) dns.push(bytesOf(der, name).toString('latin1'))
      else if (name.tag === 0x87) ips.push(ipText(bytesOf(der, name)))
    }
    break
  }
  return { dns, ips }
}
