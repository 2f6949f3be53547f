/**
 * Validation of certificates.k8s.io PodCertificateRequest (v1beta1, feature gate
 * PodCertificateRequest), after the reference's `pkg/apis/certificates/validation/validation.go`
 * (ValidatePodCertificateRequestCreate, ...Update, ...StatusUpdate): the signer name, the pod,
 * service account and node names with their UIDs, `maxExpirationSeconds` in the signer's
 * range, the PKIX public key (Ed25519, ECDSA P-256/384/521, RSA 3072/4096) and the proof of
 * possession, its signature of the pod UID, verified against it; the spec immutable; on
 * `/status`, at most one terminal condition (Issued, Denied, Failed) and only as True, the
 * status fixed once terminal, and an issued chain of PEM certificates whose leaf was issued to
 * the requested key, with its validity and refresh times consistent.
 */
import { X509Certificate, constants, createPublicKey, verify, type KeyObject } from 'node:crypto'
import type { KubeObject } from '../registry/object.js'
import { type ErrorList, OMIT_VALUE, Path, Rendered, invalid, notSupported, required, tooLong } from './field/index.js'
import { arr, obj, semanticEqual, str } from './helpers.js'
import { validateSignerName } from './certificates.js'
import { validateConditions } from './meta-v1.js'
import { validateAnnotations } from './objectmeta.js'
import { decodePEM } from './pem.js'
import { isDNS1123Subdomain } from './strings.js'

const MIN_MAX_EXPIRATION_SECONDS = 3600
const KUBERNETES_MAX_MAX_EXPIRATION_SECONDS = 86400
const MAX_MAX_EXPIRATION_SECONDS = 91 * 86400
const MAX_PKIX_PUBLIC_KEY_SIZE = 10 * 1024
const MAX_PROOF_OF_POSSESSION_SIZE = 10 * 1024
const MAX_CERTIFICATE_CHAIN_SIZE = 100 * 1024
const MAX_UID_LENGTH = 128
const TERMINAL = ['Issued', 'Denied', 'Failed']

const SPEC = Path.of('spec')
const PKIX = Path.of('spec', 'pkixPublicKey')
const POP = Path.of('spec', 'proofOfPossession')
const CHAIN = Path.of('status', 'certificateChain')
const NOT_BEFORE = Path.of('status', 'notBefore')
const NOT_AFTER = Path.of('status', 'notAfter')
const BEGIN_REFRESH = Path.of('status', 'beginRefreshAt')

/** A []byte field decoded (JSON carries it as base64). */
const bytes = (v: unknown): Buffer => (typeof v === 'string' ? Buffer.from(v, 'base64') : Buffer.alloc(0))

/** x509.ParsePKIXPublicKey: the key, or undefined when Go would refuse it (ECDSA on other curves included). */
function parsePKIXPublicKey(der: Buffer): KeyObject | undefined {
  try {
    const key = createPublicKey({ key: der, format: 'der', type: 'spki' })
    if (key.asymmetricKeyType === 'ec' && !['prime256v1', 'secp384r1', 'secp521r1'].includes(key.asymmetricKeyDetails?.namedCurve ?? '')) return undefined
    return key
  } catch {
    return undefined
  }
}

/** The key's type, or the reference's "unknown public key type" error, and the signature check. */
function verifyProofOfPossession(key: KeyObject, podUID: string, pop: Buffer, pkix: string): ErrorList {
  const data = Buffer.from(podUID)
  const popFailed = [invalid(POP, OMIT_VALUE, 'could not verify proof-of-possession signature')]
  const safely = (f: () => boolean) => {
    try {
      return f()
    } catch {
      return false
    }
  }
  switch (key.asymmetricKeyType) {
    case 'ed25519':
      return safely(() => verify(null, data, key, pop)) ? [] : popFailed
    case 'ec':
      // ecdsa.VerifyASN1 over the SHA-256 of the pod UID.
      return safely(() => verify('sha256', data, key, pop)) ? [] : popFailed
    case 'rsa': {
      const bits = key.asymmetricKeyDetails?.modulusLength ?? 0
      if (bits !== 3072 && bits !== 4096) return [invalid(PKIX, `${bits}-bit modulus`, 'RSA keys must have modulus size 3072 or 4096')]
      return safely(() => verify('sha256', data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, pop)) ? [] : popFailed
    }
    default:
      return [invalid(PKIX, pkix, 'unknown public key type; supported types are Ed25519, ECDSA, and RSA')]
  }
}

const subdomainErrors = (path: Path, value: string): ErrorList => isDNS1123Subdomain(value).map((m) => invalid(path, value, m))

function uidErrors(path: Path, value: string): ErrorList {
  const errs: ErrorList = []
  if (value.length === 0) errs.push(invalid(path, value, 'must not be empty'))
  if (value.length > MAX_UID_LENGTH) errs.push(tooLong(path, MAX_UID_LENGTH))
  return errs
}

/** ValidatePodCertificateRequestCreate (without the object metadata). */
export function validatePodCertificateRequestCreate(o: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const signerName = str(spec.signerName)
  const errs: ErrorList = [...validateSignerName(SPEC.child('signerName'), signerName)]
  if (spec.unverifiedUserAnnotations !== undefined && spec.unverifiedUserAnnotations !== null) {
    errs.push(...validateAnnotations(spec.unverifiedUserAnnotations, SPEC.child('unverifiedUserAnnotations')))
  }
  errs.push(...subdomainErrors(SPEC.child('podName'), str(spec.podName)))
  errs.push(...uidErrors(SPEC.child('podUID'), str(spec.podUID)))
  errs.push(...subdomainErrors(SPEC.child('serviceAccountName'), str(spec.serviceAccountName)))
  errs.push(...uidErrors(SPEC.child('serviceAccountUID'), str(spec.serviceAccountUID)))
  errs.push(...subdomainErrors(SPEC.child('nodeName'), str(spec.nodeName)))
  errs.push(...uidErrors(SPEC.child('nodeUID'), str(spec.nodeUID)))

  if (typeof spec.maxExpirationSeconds !== 'number') {
    errs.push(required(SPEC.child('maxExpirationSeconds'), 'must be set'))
    return errs
  }
  const max = signerName.startsWith('kubernetes.io/') ? KUBERNETES_MAX_MAX_EXPIRATION_SECONDS : MAX_MAX_EXPIRATION_SECONDS
  if (spec.maxExpirationSeconds < MIN_MAX_EXPIRATION_SECONDS || spec.maxExpirationSeconds > max) {
    errs.push(invalid(SPEC.child('maxExpirationSeconds'), spec.maxExpirationSeconds, `must be in the range [${MIN_MAX_EXPIRATION_SECONDS}, ${max}]`))
  }

  const pkix = bytes(spec.pkixPublicKey)
  if (pkix.length > MAX_PKIX_PUBLIC_KEY_SIZE) return [...errs, tooLong(PKIX, MAX_PKIX_PUBLIC_KEY_SIZE)]
  const pop = bytes(spec.proofOfPossession)
  if (pop.length > MAX_PROOF_OF_POSSESSION_SIZE) return [...errs, tooLong(POP, MAX_PROOF_OF_POSSESSION_SIZE)]
  const key = parsePKIXPublicKey(pkix)
  if (!key) return [...errs, invalid(PKIX, str(spec.pkixPublicKey), 'must be a valid PKIX-serialized public key')]
  return [...errs, ...verifyProofOfPossession(key, str(spec.podUID), pop, str(spec.pkixPublicKey))]
}

/** ValidatePodCertificateRequestUpdate: every spec field is immutable. */
export function validatePodCertificateRequestUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return semanticEqual(o.spec, old.spec) ? [] : [invalid(SPEC, OMIT_VALUE, 'field is immutable')]
}

const hasTrueCondition = (o: KubeObject, type: string) => arr(obj(o.status).conditions).some((c) => obj(c).type === type && obj(c).status === 'True')
const statusUnchanged = (a: unknown, b: unknown, detail: string): ErrorList => (semanticEqual(a, b) ? [] : [invalid(Path.of('status'), OMIT_VALUE, detail)])
const time = (v: unknown): Date | undefined => (typeof v === 'string' && v !== '' ? new Date(v) : undefined)
/** A time.Time bad value, printed by its String(): `2006-01-02 15:04:05 +0000 UTC`. */
const timeValue = (d: Date) => new Rendered(`${d.toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`)

/** ValidatePodCertificateRequestStatusUpdate (the metadata rules are the generic store's). */
export function validatePodCertificateRequestStatusUpdate(o: KubeObject, old: KubeObject, now: Date = new Date()): ErrorList {
  const status = obj(o.status)
  const errs: ErrorList = []
  let known = 0
  arr(status.conditions).forEach((c, i) => {
    const cond = obj(c)
    const path = Path.of('status', 'conditions', `[${i}]`)
    const type = str(cond.type)
    if (TERMINAL.includes(type)) {
      known++
      if (known > 1) errs.push(invalid(path.child('type'), type, 'There may be at most one condition with type "Issued", "Denied", or "Failed"'))
      if (cond.status !== 'True') errs.push(notSupported(path.child('status'), str(cond.status), ['True']))
    } else {
      errs.push(notSupported(path.child('type'), type, TERMINAL))
    }
  })
  errs.push(...validateConditions(status.conditions, Path.of('status', 'conditions')))
  if (errs.length > 0) return errs

  if (TERMINAL.some((t) => hasTrueCondition(old, t))) return statusUnchanged(o.status, old.status, 'immutable after PodCertificateRequest is issued, denied, or failed')
  if (hasTrueCondition(o, 'Denied') || hasTrueCondition(o, 'Failed')) {
    return statusUnchanged(status, { conditions: status.conditions }, 'non-condition status fields must be empty when denying or failing the PodCertificateRequest')
  }
  if (!hasTrueCondition(o, 'Issued')) return statusUnchanged(o.status, old.status, 'status is immutable unless transitioning to "Issued", "Denied", or "Failed"')
  return validateIssued(o, old, now)
}

function validateIssued(o: KubeObject, old: KubeObject, now: Date): ErrorList {
  const status = obj(o.status)
  const chainText = str(status.certificateChain)
  if (Buffer.byteLength(chainText) > MAX_CERTIFICATE_CHAIN_SIZE) return [tooLong(CHAIN, MAX_CERTIFICATE_CHAIN_SIZE)]
  const first = decodePEM(chainText)
  if (!first.block) return [invalid(CHAIN, chainText, 'issued certificate chain must contain at least one certificate')]
  if (first.block.type !== 'CERTIFICATE') return [invalid(CHAIN, chainText, 'issued certificate chain must consist entirely of CERTIFICATE PEM blocks')]
  let leaf: X509Certificate
  try {
    leaf = new X509Certificate(first.block.bytes)
  } catch {
    return [invalid(CHAIN, chainText, 'leaf certificate does not parse as valid X.509')]
  }
  const errs: ErrorList = []
  for (const entry of (leaf.subjectAltName ?? '').split(', ').filter((e) => e.startsWith('DNS:'))) {
    const dnsName = entry.slice(4)
    if (dnsName === '') errs.push(invalid(CHAIN, dnsName, 'leaf certificate should not contain empty DNSName'))
    if (dnsName.includes('..')) errs.push(invalid(CHAIN, dnsName, "leaf certificate's DNSName should not contain '..'"))
    if (dnsName.startsWith('.') || dnsName.endsWith('.')) errs.push(invalid(CHAIN, dnsName, "leaf certificate's DNSName should not start or end with '.'"))
  }
  const oldSpec = obj(old.spec)
  const wanted = parsePKIXPublicKey(bytes(oldSpec.pkixPublicKey))
  if (!wanted) return [...errs, invalid(PKIX, str(oldSpec.pkixPublicKey), 'must be a valid PKIX-serialized public key')]
  const spki = (k: KeyObject) => k.export({ type: 'spki', format: 'der' })
  if (!spki(wanted).equals(spki(leaf.publicKey))) return [...errs, invalid(CHAIN, chainText, 'leaf certificate was not issued to the requested public key')]

  const notBefore = time(status.notBefore)
  const notAfter = time(status.notAfter)
  const beginRefresh = time(status.beginRefreshAt)
  if (!notBefore) errs.push(required(NOT_BEFORE, 'must be present and consistent with the issued certificate'))
  if (!notAfter) errs.push(required(NOT_AFTER, 'must be present and consistent with the issued certificate'))
  if (!beginRefresh) errs.push(required(BEGIN_REFRESH, 'must be present and in the range [notbefore+10min, notafter-10min]'))
  if (errs.length > 0 || !notBefore || !notAfter || !beginRefresh) return errs

  const leafNotBefore = new Date(leaf.validFrom)
  const leafNotAfter = new Date(leaf.validTo)
  if (notBefore.getTime() !== leafNotBefore.getTime()) return [invalid(NOT_BEFORE, timeValue(notBefore), 'must be set to the NotBefore time encoded in the leaf certificate')]
  const skew = 5 * 60 * 1000
  if (!(notBefore.getTime() > now.getTime() - skew && notBefore.getTime() < now.getTime() + skew)) {
    return [invalid(NOT_BEFORE, timeValue(notBefore), "must be set to within 5 minutes of kube-apiserver's current time")]
  }
  if (notAfter.getTime() !== leafNotAfter.getTime()) return [invalid(NOT_AFTER, timeValue(notAfter), 'must be set to the NotAfter time encoded in the leaf certificate')]
  const lifetimeSeconds = (leafNotAfter.getTime() - leafNotBefore.getTime()) / 1000
  if (lifetimeSeconds < 3600) return [invalid(CHAIN, goDuration(lifetimeSeconds), 'leaf certificate lifetime must be >= 1 hour')]
  const maxSeconds = typeof obj(o.spec).maxExpirationSeconds === 'number' ? (obj(o.spec).maxExpirationSeconds as number) : 0
  if (lifetimeSeconds > maxSeconds) return [invalid(CHAIN, goDuration(lifetimeSeconds), `leaf certificate lifetime must be <= spec.maxExpirationSeconds (${maxSeconds})`)]
  const tenMinutes = 10 * 60 * 1000
  if (beginRefresh.getTime() < notBefore.getTime() + tenMinutes) return [invalid(BEGIN_REFRESH, timeValue(beginRefresh), 'must be at least 10 minutes after status.notBefore')]
  if (beginRefresh.getTime() > notAfter.getTime() - tenMinutes) return [invalid(BEGIN_REFRESH, timeValue(beginRefresh), 'must be at least 10 minutes before status.notAfter')]

  // The rest of the chain: certificates that parse (the reference cannot verify a partial chain either).
  let rest = first.rest
  for (;;) {
    const next = decodePEM(rest)
    if (!next.block) break
    rest = next.rest
    // The reference's message spells CERTFICATE here.
    if (next.block.type !== 'CERTIFICATE') return [invalid(CHAIN, chainText, 'issued certificate chain must consist entirely of CERTFICATE PEM blocks')]
    try {
      new X509Certificate(next.block.bytes)
    } catch {
      return [invalid(CHAIN, chainText, 'intermediate certificate does not parse as valid X.509')]
    }
  }
  return []
}

/** A time.Duration bad value, printed by its String() ("1h0m0s", "30m0s", "45s"), for whole seconds. */
function goDuration(seconds: number): Rendered {
  return new Rendered(durationText(seconds))
}

function durationText(seconds: number): string {
  const s = Math.round(seconds)
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const sec = s % 60
  if (h > 0) return `${h}h${m}m${sec}s`
  if (m > 0) return `${m}m${sec}s`
  return `${sec}s`
}
