/**
 * Reading DER (X.690's distinguished encoding, the form of certificates, requests and keys) one
 * element at a time: enough to walk a structure whose layout the caller knows, without an ASN.1
 * library. Shared by the server's reading of certificate names (src/server/tls/der-names.ts)
 * and the certificate-request checks of validation (src/server/api/validation/pem.ts).
 */

/** One element: its tag, where the element starts, where its contents start and where it ends. */
export interface DerElement {
  tag: number
  start: number
  contentStart: number
  end: number
}

export class DerError extends Error {}

/** The element at `at`, which must end by `limit` (single-byte tags; definite lengths of at most 4 bytes). */
export function readDerElement(der: Uint8Array, at: number, limit: number): DerElement {
  if (at + 2 > limit) throw new DerError('truncated DER')
  const tag = der[at]!
  let length = der[at + 1]!
  let contentStart = at + 2
  if (length & 0x80) {
    const bytes = length & 0x7f
    if (bytes === 0 || bytes > 4 || contentStart + bytes > limit) throw new DerError('bad DER length')
    length = 0
    for (let i = 0; i < bytes; i++) length = length * 256 + der[contentStart + i]!
    contentStart += bytes
  }
  const end = contentStart + length
  if (end > limit) throw new DerError('truncated DER')
  return { tag, start: at, contentStart, end }
}

/** The elements directly inside a constructed element, read with `read`. */
export function derChildren(der: Uint8Array, parent: DerElement, read: typeof readDerElement = readDerElement): DerElement[] {
  const out: DerElement[] = []
  for (let at = parent.contentStart; at < parent.end; ) {
    const e = read(der, at, parent.end)
    out.push(e)
    at = e.end
  }
  return out
}
