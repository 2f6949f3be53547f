/**
 * Validation of the certificates.k8s.io API group, after the reference's
 * `pkg/apis/certificates/validation/validation.go`: a CertificateSigningRequest's request (a
 * PEM CERTIFICATE REQUEST whose signature verifies), usages (known, not repeated), signer name
 * (ValidateSignerName's syntax; not the legacy one), expirationSeconds, its conditions (status
 * values, Approved and Denied exclusive, no duplicates) and issued certificate; on update, what
 * each path may change: Approved and Denied only through `approval`, the certificate only
 * through `status`, and no condition removed. What the stored object already had wrong stays
 * tolerated, as the reference's getValidationOptions.
 */
import type { KubeObject } from '../registry/object.js'
import { type ErrorList, Path, duplicate, forbidden, invalid, notSupported, required, tooLong } from './field/index.js'
import { type Obj, arr, obj, str } from './helpers.js'
import { certificateBundleError, csrError, decodePEM, parseCertificate } from './pem.js'
import { DNS1123_LABEL_MAX_LENGTH, DNS1123_SUBDOMAIN_MAX_LENGTH, isDNS1123Label, isDNS1123Subdomain } from './strings.js'

const SPEC = Path.of('spec')
const CONDITIONS = Path.of('status', 'conditions')
const CERTIFICATE = Path.of('status', 'certificate')
const LEGACY_UNKNOWN_SIGNER_NAME = 'kubernetes.io/legacy-unknown'
const isSet = (v: unknown): boolean => v !== undefined && v !== null

/** Every KeyUsage, sorted (sets.NewString(...).List()). */
const ALL_VALID_USAGES = [
  'any',
  'cert sign',
  'client auth',
  'code signing',
  'content commitment',
  'crl sign',
  'data encipherment',
  'decipher only',
  'digital signature',
  'email protection',
  'encipher only',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'key agreement',
  'key encipherment',
  'microsoft sgc',
  'netscape sgc',
  'ocsp signing',
  's/mime',
  'server auth',
  'signing',
  'timestamping',
]
/** Condition types that may only be True. */
const TRUE_CONDITION_TYPES = ['Approved', 'Denied', 'Failed']
const ALL_STATUS_VALUES = ['False', 'True', 'Unknown']

/** A []byte field decoded (JSON carries it as base64). */
function bytes(v: unknown): Buffer {
  return typeof v === 'string' ? Buffer.from(v, 'base64') : Buffer.alloc(0)
}

/** ValidateSignerName (core validation): `<domain>/<path>`, each part of DNS labels, at most 571 bytes. */
export function validateSignerName(fldPath: Path, signerName: string): ErrorList {
  if (signerName.length === 0) return [required(fldPath)]
  const segments = signerName.split('/')
  if (segments.length !== 2) return [invalid(fldPath, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")]
  const [domain, path] = segments as [string, string]
  const errs: ErrorList = []
  if (Buffer.byteLength(domain) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(tooLong(fldPath, DNS1123_SUBDOMAIN_MAX_LENGTH))
  const domainLabels = domain.split('.')
  for (const label of domainLabels) {
    const msgs = isDNS1123Label(label)
    if (msgs.length === 0) continue
    for (const m of msgs) errs.push(invalid(fldPath, domain, `validating label ${JSON.stringify(label)}: ${m}`))
    break
  }
  if (domainLabels.length < 2) errs.push(invalid(fldPath, domain, 'should be a domain with at least two segments separated by dots'))
  for (const label of path.split('.')) {
    const msgs = isDNS1123Subdomain(label)
    if (msgs.length === 0) continue
    for (const m of msgs) errs.push(invalid(fldPath, path, `validating label ${JSON.stringify(label)}: ${m}`))
    break
  }
  const maxSignerNameLength = DNS1123_SUBDOMAIN_MAX_LENGTH + (DNS1123_SUBDOMAIN_MAX_LENGTH + DNS1123_LABEL_MAX_LENGTH + 1) + 1
  if (Buffer.byteLength(signerName) > maxSignerNameLength) errs.push(tooLong(fldPath, maxSignerNameLength))
  return errs
}

interface CertificateValidationOptions {
  allowSettingApprovalConditions: boolean
  allowSettingCertificate: boolean
  allowBothApprovedAndDenied: boolean
  allowResettingCertificate: boolean
  allowLegacySignerName: boolean
  allowDuplicateConditionTypes: boolean
  allowEmptyConditionType: boolean
  allowArbitraryCertificate: boolean
  allowUnknownUsages: boolean
  allowDuplicateUsages: boolean
}

const conditionsOf = (o: KubeObject): Obj[] => arr(obj(o.status).conditions).map(obj)
const usagesOf = (o: KubeObject): string[] => arr(obj(o.spec).usages).map((u) => str(u))
const hasDuplicates = (list: string[]): boolean => new Set(list).size !== list.length

/** getValidationOptions: what the stored object (none on create) already had wrong is tolerated. */
function getValidationOptions(o: KubeObject, old: KubeObject | undefined): CertificateValidationOptions {
  const oldTypes = old ? conditionsOf(old).map((c) => str(c.type)) : []
  return {
    allowSettingApprovalConditions: false,
    allowSettingCertificate: false,
    allowResettingCertificate: false,
    allowBothApprovedAndDenied: oldTypes.includes('Approved') && oldTypes.includes('Denied'),
    allowLegacySignerName: old !== undefined && str(obj(old.spec).signerName) === LEGACY_UNKNOWN_SIGNER_NAME,
    allowDuplicateConditionTypes: old !== undefined && hasDuplicates(oldTypes),
    allowEmptyConditionType: oldTypes.includes(''),
    allowArbitraryCertificate:
      old !== undefined && (bytes(obj(o.status).certificate).equals(bytes(obj(old.status).certificate)) || certificateBundleError(bytes(obj(old.status).certificate)) !== undefined),
    allowUnknownUsages: old !== undefined && usagesOf(old).some((u) => !ALL_VALID_USAGES.includes(u)),
    allowDuplicateUsages: old !== undefined && hasDuplicates(usagesOf(old)),
  }
}

/** validateConditions: status values per type, Approved xor Denied, no duplicate types. */
function validateConditions(o: KubeObject, opts: CertificateValidationOptions): ErrorList {
  const errs: ErrorList = []
  const seen = new Set<string>()
  let hasApproved = false
  let hasDenied = false
  conditionsOf(o).forEach((c, i) => {
    const p = CONDITIONS.index(i)
    const type = str(c.type)
    const status = str(c.status)
    if (!opts.allowEmptyConditionType && type === '') errs.push(required(p.child('type')))
    const allowed = TRUE_CONDITION_TYPES.includes(type) ? ['True'] : ALL_STATUS_VALUES
    if (status === '') errs.push(required(p.child('status')))
    else if (!allowed.includes(status)) errs.push(notSupported(p.child('status'), status, allowed))
    if (!opts.allowBothApprovedAndDenied) {
      if (type === 'Approved') {
        hasApproved = true
        if (hasDenied) errs.push(invalid(p.child('type'), type, 'Approved and Denied conditions are mutually exclusive'))
      } else if (type === 'Denied') {
        hasDenied = true
        if (hasApproved) errs.push(invalid(p.child('type'), type, 'Approved and Denied conditions are mutually exclusive'))
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type)) errs.push(duplicate(p.child('type'), type))
      seen.add(type)
    }
  })
  return errs
}

/** validateCertificateSigningRequest. */
function validateCertificateSigningRequest(o: KubeObject, opts: CertificateValidationOptions): ErrorList {
  const spec = obj(o.spec)
  const errs: ErrorList = []
  const request = bytes(spec.request)
  const requestError = csrError(request)
  if (requestError) errs.push(invalid(SPEC.child('request'), isSet(spec.request) ? request.toString('base64') : null, requestError))
  const usages = usagesOf(o)
  if (usages.length === 0) errs.push(required(SPEC.child('usages')))
  if (!opts.allowUnknownUsages) {
    usages.forEach((u, i) => {
      if (!ALL_VALID_USAGES.includes(u)) errs.push(notSupported(SPEC.child('usages').index(i), u, ALL_VALID_USAGES))
    })
  }
  if (!opts.allowDuplicateUsages) {
    const seen = new Set<string>()
    usages.forEach((u, i) => {
      if (seen.has(u)) errs.push(duplicate(SPEC.child('usages').index(i), u))
      seen.add(u)
    })
  }
  const signerName = str(spec.signerName)
  if (!opts.allowLegacySignerName && signerName === LEGACY_UNKNOWN_SIGNER_NAME) {
    errs.push(invalid(SPEC.child('signerName'), signerName, 'the legacy signerName is not allowed via this API version'))
  } else errs.push(...validateSignerName(SPEC.child('signerName'), signerName))
  if (typeof spec.expirationSeconds === 'number' && spec.expirationSeconds < 600) {
    errs.push(invalid(SPEC.child('expirationSeconds'), spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'))
  }
  errs.push(...validateConditions(o, opts))
  if (!opts.allowArbitraryCertificate) {
    const certificateError = certificateBundleError(bytes(obj(o.status).certificate))
    if (certificateError) errs.push(invalid(CERTIFICATE, '<certificate data>', certificateError))
  }
  return errs
}

/** ValidateCertificateSigningRequestCreate. */
export function validateCertificateSigningRequestCreate(o: KubeObject): ErrorList {
  return validateCertificateSigningRequest(o, getValidationOptions(o, undefined))
}

const countOf = (o: KubeObject, type: string): Obj[] => conditionsOf(o).filter((c) => str(c.type) === type)

/** validateCertificateSigningRequestUpdate (lower case): the object, then what this write path may not change. */
function validateUpdateWith(o: KubeObject, old: KubeObject, opts: CertificateValidationOptions): ErrorList {
  const errs = validateCertificateSigningRequest(o, opts)
  for (const t of ['Approved', 'Denied', 'Failed']) {
    if (countOf(o, t).length < countOf(old, t).length) errs.push(forbidden(CONDITIONS, `updates may not remove a condition of type ${JSON.stringify(t)}`))
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const t of ['Approved', 'Denied']) {
      const before = countOf(old, t)
      const after = countOf(o, t)
      if (after.length > before.length) errs.push(forbidden(CONDITIONS, `updates may not add a condition of type ${JSON.stringify(t)}`))
      // The reference appends a cmp.Diff of the conditions, whose format go-cmp calls unstable.
      else if (after.length === before.length && JSON.stringify(after) !== JSON.stringify(before)) {
        errs.push(forbidden(CONDITIONS, `updates may not modify a condition of type ${JSON.stringify(t)}`))
      }
    }
  }
  const certificate = bytes(obj(o.status).certificate)
  const oldCertificate = bytes(obj(old.status).certificate)
  if (!certificate.equals(oldCertificate)) {
    if (!opts.allowSettingCertificate) errs.push(forbidden(CERTIFICATE, 'updates may not set certificate content'))
    else if (!opts.allowResettingCertificate && oldCertificate.length > 0) errs.push(forbidden(CERTIFICATE, 'updates may not modify existing certificate content'))
  }
  return errs
}

/** ValidateCertificateSigningRequestUpdate (the main resource: metadata only changes). */
export function validateCertificateSigningRequestUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return validateUpdateWith(o, old, getValidationOptions(o, old))
}

/**
 * ValidateCertificateSigningRequestStatusUpdate (`status`: the certificate may be set) and
 * ValidateCertificateSigningRequestApprovalUpdate (`approval`: Approved and Denied may be set).
 */
export function validateCertificateSigningRequestStatusUpdate(o: KubeObject, old: KubeObject, subresource?: string): ErrorList {
  const opts = getValidationOptions(o, old)
  if (subresource === 'approval') opts.allowSettingApprovalConditions = true
  else opts.allowSettingCertificate = true
  return validateUpdateWith(o, old, opts)
}

// ---- ClusterTrustBundle ----

/** certificates.MaxTrustBundleSize. */
const MAX_TRUST_BUNDLE_SIZE = 1024 * 1024
const TRUST_BUNDLE = Path.of('spec', 'trustBundle')

/**
 * ValidateClusterTrustBundleName: with a signer name, `<signer name with ':' for '/'>:` then a
 * DNS subdomain; without one, a DNS subdomain without ':'.
 */
function clusterTrustBundleNameErrors(name: string, signerName: string): readonly string[] {
  if (signerName === '') return name.includes(':') ? ['ClusterTrustBundle without signer name must not have ":" in its name'] : isDNS1123Subdomain(name)
  const requiredPrefix = `${signerName.replaceAll('/', ':')}:`
  if (!name.startsWith(requiredPrefix)) return [`ClusterTrustBundle for signerName ${signerName} must be named with prefix ${requiredPrefix}`]
  return isDNS1123Subdomain(name.slice(requiredPrefix.length))
}

/** validateTrustBundle: CA certificates only, no headers, no duplicates, at least one. */
function validateTrustBundle(path: Path, bundle: string): ErrorList {
  if (Buffer.byteLength(bundle) > MAX_TRUST_BUNDLE_SIZE) return [tooLong(path, MAX_TRUST_BUNDLE_SIZE)]
  const errs: ErrorList = []
  const seen = new Map<string, number[]>()
  let rest = bundle
  for (let i = 0; ; i++) {
    const { block, rest: after } = decodePEM(rest)
    if (!block) break
    rest = after
    const entryError = (() => {
      if (block.type !== 'CERTIFICATE') return `entry ${i} has bad block type: ${block.type}`
      if (Object.keys(block.headers).length > 0) return `entry ${i} has PEM block headers`
      const cert = parseCertificate(block.bytes)
      if (!cert) return `entry ${i} does not parse as X.509`
      if (!cert.isCA) return `entry ${i} does not have the CA bit set`
      return undefined
    })()
    if (entryError) {
      errs.push(invalid(path, '<value omitted>', entryError))
      continue
    }
    const key = block.bytes.toString('base64')
    seen.set(key, [...(seen.get(key) ?? []), i])
  }
  // A malformed block is reported alone, without the redundant missing or duplicate anchors.
  if (errs.length > 0) return errs
  if (seen.size === 0) errs.push(invalid(path, '<value omitted>', 'at least one trust anchor must be provided'))
  for (const indices of seen.values()) if (indices.length > 1) errs.push(invalid(path, '<value omitted>', `duplicate trust anchor (indices [${indices.join(' ')}])`))
  return errs
}

/**
 * ValidateClusterTrustBundle: the name for its signer (reported as the metadata's name error,
 * the store having checked the rest of the metadata), the signer name, the bundle.
 */
function validateClusterTrustBundleWith(o: KubeObject, suppressBundleParsing: boolean): ErrorList {
  const spec = obj(o.spec)
  const signerName = str(spec.signerName)
  const name = str(o.metadata.name)
  const errs: ErrorList = clusterTrustBundleNameErrors(name, signerName).map((m) => invalid(Path.of('metadata', 'name'), name, m))
  if (signerName !== '') errs.push(...validateSignerName(Path.of('spec', 'signerName'), signerName))
  if (!suppressBundleParsing) errs.push(...validateTrustBundle(TRUST_BUNDLE, str(spec.trustBundle)))
  return errs
}

export function validateClusterTrustBundle(o: KubeObject): ErrorList {
  return validateClusterTrustBundleWith(o, false)
}

/** ValidateClusterTrustBundleUpdate: an unchanged bundle is not parsed again; the signer name is fixed. */
export function validateClusterTrustBundleUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const oldSpec = obj(old.spec)
  const errs = validateClusterTrustBundleWith(o, str(spec.trustBundle) === str(oldSpec.trustBundle))
  if (str(spec.signerName) !== str(oldSpec.signerName)) errs.push(invalid(Path.of('spec', 'signerName'), str(spec.signerName), 'field is immutable'))
  return errs
}
