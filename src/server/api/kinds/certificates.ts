/**
 * certificates.k8s.io/v1 CertificateSigningRequests: spec.username, uid, groups and extra are
 * the requester's (whatever the body says), status starts empty, the `approval` subresource
 * writes only status.conditions (with their timestamps filled) and `status` the rest, as
 * pkg/registry/certificates/certificates/strategy.go; validation in validation/certificates.ts.
 * Table as the reference's printer.
 */
import type { UserInfo } from '../../http/types.js'
import { type KubeObject, nowTimestamp } from '../registry/object.js'
import {
  validateCertificateSigningRequestCreate,
  validateClusterTrustBundle,
  validateClusterTrustBundleUpdate,
  validateCertificateSigningRequestStatusUpdate,
  validateCertificateSigningRequestUpdate,
} from '../validation/certificates.js'
import { validatePodCertificateRequestCreate, validatePodCertificateRequestStatusUpdate, validatePodCertificateRequestUpdate } from '../validation/certificates-pod.js'
import { anyName } from '../validation/names.js'
import { NAME_COLUMN, age, humanDuration } from '../table.js'
import type { KindOverrides, KindTable } from './kind.js'
import { arr, col, obj, str } from './values.js'

/** The requester's identity in the spec (the reference's PrepareForCreate). */
export function fillRequester(o: KubeObject, user: UserInfo | undefined): void {
  const spec = obj(o.spec)
  delete spec.username
  delete spec.uid
  delete spec.groups
  delete spec.extra
  if (user) {
    spec.username = user.name
    if (user.uid) spec.uid = user.uid
    if (user.groups.length > 0) spec.groups = [...user.groups]
    if (user.extra && Object.keys(user.extra).length > 0) spec.extra = structuredClone(user.extra)
  }
  o.spec = spec
}

/** Conditions written without timestamps get them now (populateConditionTimestamps). */
export function stampConditions(o: KubeObject): void {
  const now = nowTimestamp()
  for (const c of arr(obj(o.status).conditions)) {
    const condition = obj(c)
    condition.lastUpdateTime ??= now
    condition.lastTransitionTime ??= condition.lastUpdateTime
  }
}

/** extractCSRStatus: Denied before Approved, else Pending; then Failed and Issued. */
function condition(o: KubeObject): string {
  const types = new Set(arr(obj(o.status).conditions).map((c) => str(obj(c).type)))
  let status = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending'
  if (types.has('Failed')) status += ',Failed'
  if (str(obj(o.status).certificate) !== '') status += ',Issued'
  return status
}

export const CERTIFICATES: KindTable = {
  // Beta only: its version is its own override (no GA version to borrow from).
  'certificates.k8s.io/v1beta1/podcertificaterequests': {
    defaults(o) {
      // Omitted, kube-apiserver sets a day (the API's documented default, set before validation).
      const spec = obj(o.spec)
      spec.maxExpirationSeconds ??= 86400
      o.spec = spec
    },
    validate: validatePodCertificateRequestCreate,
    validateUpdate: validatePodCertificateRequestUpdate,
    validateStatusUpdate: (o, old) => validatePodCertificateRequestStatusUpdate(o, old),
  },
  'certificates.k8s.io/v1/certificatesigningrequests': {
    statusOwnedBySubresource: true,
    fromRequester: fillRequester,
    prepareForStatusUpdate: stampConditions,
    prepareForCreate(o) {
      o.status = {}
    },
    prepareForUpdate(o, old) {
      // The spec is immutable after creation: an update writes metadata only.
      o.spec = old.spec
    },
    // ValidateCertificateRequestName: any name (the generic path-segment rule still applies).
    validateName: anyName,
    validate: validateCertificateSigningRequestCreate,
    validateUpdate: validateCertificateSigningRequestUpdate,
    validateStatusUpdate: validateCertificateSigningRequestStatusUpdate,
    selectableFields: ['spec.signerName'],
    fields: (o) => ({ 'spec.signerName': str(obj(o.spec).signerName) }),
    table: {
      definitions: [
        NAME_COLUMN,
        col('Age', 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata'),
        col('SignerName', 'signerName indicates the requested signer, and is a qualified name.'),
        col('Requestor', 'request contains an x509 certificate signing request encoded in a "CERTIFICATE REQUEST" PEM block. When serialized as JSON or YAML, the data is additionally base64-encoded.'),
        col('RequestedDuration', 'expirationSeconds is the requested duration of validity of the issued certificate.'),
        col('Condition', 'conditions applied to the request. Known conditions are "Approved", "Denied", and "Failed".'),
      ],
      cells: (o, now) => {
        const spec = obj(o.spec)
        const duration = typeof spec.expirationSeconds === 'number' ? humanDuration(spec.expirationSeconds * 1000) : '<none>'
        return [o.metadata.name, age(o, now), str(spec.signerName) || '<none>', str(spec.username), duration, condition(o)]
      },
    },
  },
  // Beta and alpha (served with --runtime-config); the name rule depends on spec.signerName,
  // so validate reports it.
  'certificates.k8s.io/v1beta1/clustertrustbundles': clusterTrustBundles(),
  'certificates.k8s.io/v1alpha1/clustertrustbundles': clusterTrustBundles(),
}

function clusterTrustBundles(): KindOverrides {
  return { validateName: anyName, validate: validateClusterTrustBundle, validateUpdate: validateClusterTrustBundleUpdate }
}
