/**
 * What the certificate controllers read of a CertificateSigningRequest (certificates.k8s.io/v1)
 * and the reference's checks of a request for the kubelet signers
 * (pkg/apis/certificates/helpers.go: ValidateKubeletClientCSR, ValidateKubeletServingCSR), with
 * their error texts.
 */
import type { KubeObject } from '../../api/registry/object.js'

export const KUBE_APISERVER_CLIENT = 'kubernetes.io/kube-apiserver-client'
export const KUBE_APISERVER_CLIENT_KUBELET = 'kubernetes.io/kube-apiserver-client-kubelet'
export const KUBELET_SERVING = 'kubernetes.io/kubelet-serving'
export const LEGACY_UNKNOWN = 'kubernetes.io/legacy-unknown'

export interface CsrSpec {
  request?: string
  signerName?: string
  usages?: string[]
  expirationSeconds?: number
  username?: string
  uid?: string
  groups?: string[]
  extra?: Record<string, string[]>
}
export interface CsrCondition {
  type: string
  status: string
  reason?: string
  message?: string
  lastUpdateTime?: string
  lastTransitionTime?: string
}

export const csrSpec = (csr: KubeObject): CsrSpec => (csr.spec ?? {}) as CsrSpec
export const csrConditions = (csr: KubeObject): CsrCondition[] => ((csr.status as { conditions?: CsrCondition[] } | undefined)?.conditions ?? [])
export const csrCertificate = (csr: KubeObject): string | undefined => (csr.status as { certificate?: string } | undefined)?.certificate

/** IsCertificateRequestApproved: Approved and not Denied. */
export function isApproved(csr: KubeObject): boolean {
  const conditions = csrConditions(csr)
  return conditions.some((c) => c.type === 'Approved' && c.status === 'True') && !conditions.some((c) => c.type === 'Denied' && c.status === 'True')
}

export const hasTrueCondition = (csr: KubeObject, type: string): boolean => csrConditions(csr).some((c) => c.type === type && c.status === 'True')

/** spec.request (base64 of the PEM) as PEM text. */
export const requestPem = (csr: KubeObject): string => Buffer.from(csrSpec(csr).request ?? '', 'base64').toString('utf8')

export interface RequestNames {
  commonName: string
  organizations: string[]
  dns: string[]
  ips: string[]
  emails: string[]
  uris: string[]
}

const sameSet = (a: readonly string[], b: readonly string[]) => new Set(a).size === new Set(b).size && a.every((x) => b.includes(x))
const CLIENT_USAGES = ['client auth', 'digital signature', 'key encipherment']
const CLIENT_USAGES_NO_RSA = ['digital signature', 'client auth']
const SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth']
const SERVING_USAGES_NO_RSA = ['digital signature', 'server auth']

const onlySystemNodes = (req: RequestNames) => req.organizations.length === 1 && req.organizations[0] === 'system:nodes'

/** ValidateKubeletClientCSR: the error text, or undefined when the request is a kubelet client's. */
export function kubeletClientProblem(req: RequestNames, usages: readonly string[]): string | undefined {
  if (!onlySystemNodes(req)) return 'subject organization is not system:nodes'
  if (req.dns.length > 0) return 'DNS subjectAltNames are not allowed'
  if (req.emails.length > 0) return 'Email subjectAltNames are not allowed'
  if (req.ips.length > 0) return 'IP subjectAltNames are not allowed'
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed'
  if (!req.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:'
  if (!sameSet(usages, CLIENT_USAGES) && !sameSet(usages, CLIENT_USAGES_NO_RSA)) return `usages did not match [${CLIENT_USAGES.join(' ')}]`
  return undefined
}

/** ValidateKubeletServingCSR. */
export function kubeletServingProblem(req: RequestNames, usages: readonly string[]): string | undefined {
  if (!onlySystemNodes(req)) return 'subject organization is not system:nodes'
  if (req.dns.length === 0 && req.ips.length === 0) return 'DNS or IP subjectAltName is required'
  if (req.emails.length > 0) return 'Email subjectAltNames are not allowed'
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed'
  if (!sameSet(usages, SERVING_USAGES) && !sameSet(usages, SERVING_USAGES_NO_RSA)) return `usages did not match [${SERVING_USAGES.join(' ')}]`
  if (!req.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:'
  return undefined
}

/** validAPIServerClientUsages. */
export function apiserverClientProblem(usages: readonly string[]): string | undefined {
  let clientAuth = false
  for (const u of usages) {
    if (u === 'digital signature' || u === 'key encipherment') continue
    if (u === 'client auth') clientAuth = true
    else return `invalid usage for client certificate: ${u}`
  }
  return clientAuth ? undefined : 'missing required usage for client certificate: client auth'
}
