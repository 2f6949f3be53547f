/**
 * The CSR signing controller (the reference's pkg/controller/certificates/signer,
 * kube-controller-manager's `certificatesigningrequest-signing-controller`): an approved
 * CertificateSigningRequest of one of the built-in signers (kube-apiserver-client,
 * kube-apiserver-client-kubelet, kubelet-serving, legacy-unknown), neither failed nor signed
 * yet, gets status.certificate signed by the cluster CA (kube-controller-manager's
 * --cluster-signing-cert-file / --cluster-signing-key-file; here the server's CA in
 * --cert-dir). A request its signer refuses gets the Failed condition `SignerValidationFailure`
 * with the reference's message. The certificate lasts the requested expirationSeconds, at least
 * ten minutes and at most --cluster-signing-duration (a year).
 */
import { readFileSync } from 'node:fs'
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { toApiError } from '../api/status-errors.js'
import { type SigningCa, parseRequest, signRequest } from '../tls/sign-request.js'
import {
  KUBE_APISERVER_CLIENT,
  KUBE_APISERVER_CLIENT_KUBELET,
  KUBELET_SERVING,
  LEGACY_UNKNOWN,
  type RequestNames,
  apiserverClientProblem,
  csrCertificate,
  csrSpec,
  hasTrueCondition,
  isApproved,
  kubeletClientProblem,
  kubeletServingProblem,
  requestPem,
} from './certificates/csr-requests.js'
import { type Clock, SYSTEM_CLOCK } from './clock.js'
import type { Controller, ControllerContext } from './controller.js'
import { asControllerServiceAccount } from './kit/controller-identity.js'
import { KeyedQueue } from './kit/keyed-queue.js'

const ADMISSION = asControllerServiceAccount('certificate-controller')
/** kube-controller-manager's --cluster-signing-duration default (8760h). */
const SIGNING_DURATION_MS = 365 * 24 * 60 * 60 * 1000
const MIN_DURATION_MS = 10 * 60 * 1000

/** Each signer's check (isKubeletServing, isKubeletClient, isKubeAPIServerClient, isLegacyUnknown): the refusal, if any. */
const SIGNERS: Readonly<Record<string, (req: RequestNames, usages: readonly string[]) => string | undefined>> = {
  [KUBE_APISERVER_CLIENT]: (_req, usages) => apiserverClientProblem(usages),
  [KUBE_APISERVER_CLIENT_KUBELET]: kubeletClientProblem,
  [KUBELET_SERVING]: kubeletServingProblem,
  [LEGACY_UNKNOWN]: () => undefined,
}

export interface CsrSigningOptions {
  /** The CA's certificate and key files. */
  readonly signingFiles: { readonly cert: string; readonly key: string }
  readonly clock?: Clock
  readonly durationMs?: number
  readonly onError?: (err: Error) => void
}

/** signingDuration: the requested expirationSeconds within [10 minutes, the signing duration]. */
export function signingDuration(maxMs: number, expirationSeconds: number | undefined): number {
  if (expirationSeconds === undefined) return maxMs
  return Math.min(maxMs, Math.max(MIN_DURATION_MS, expirationSeconds * 1000))
}

export class CsrSigningController implements Controller {
  readonly name = 'certificatesigningrequest-signing-controller'
  private queue: KeyedQueue | undefined
  private unsubscribe: (() => void) | undefined
  private csrs!: GenericStore
  private ca!: SigningCa
  private readonly clock: Clock

  constructor(private readonly options: CsrSigningOptions) {
    this.clock = options.clock ?? SYSTEM_CLOCK
  }

  async start(ctx: ControllerContext): Promise<void> {
    const csrs = ctx.registry.lookup('certificates.k8s.io', 'v1', 'certificatesigningrequests')
    if (!csrs) return
    this.csrs = csrs
    this.ca = { certPem: readFileSync(this.options.signingFiles.cert, 'utf8'), keyPem: readFileSync(this.options.signingFiles.key, 'utf8') }
    const onError = (err: unknown) => (this.options.onError ?? ((e: Error) => ctx.log(2, `csr signing: ${e.message}`)))(err as Error)
    this.queue = new KeyedQueue((name) => this.sync(name), { clock: this.clock, onError })
    this.unsubscribe = ctx.registry.onChange(({ type, object, strategy }) => {
      if (strategy.group === 'certificates.k8s.io' && strategy.resource === 'certificatesigningrequests' && type !== 'deleted' && wantsSigning(object)) this.queue?.add(object.metadata.name ?? '')
    })
    this.queue.start()
    for (const csr of (await csrs.list()).items) if (wantsSigning(csr)) this.queue.add(csr.metadata.name ?? '')
  }

  stop(): void {
    this.unsubscribe?.()
    this.queue?.stop()
  }

  private async sync(name: string): Promise<void> {
    let csr: KubeObject
    try {
      csr = await this.csrs.get(undefined, name)
    } catch (err) {
      if (toApiError(err).status.code === 404) return
      throw err
    }
    if (!wantsSigning(csr)) return
    const spec = csrSpec(csr)
    const check = SIGNERS[spec.signerName ?? '']!
    const pem = requestPem(csr)
    let req: RequestNames
    try {
      req = await parseRequest(pem)
    } catch (err) {
      throw new Error(`unable to parse csr "${name}": ${(err as Error).message}`)
    }
    const problem = check(req, spec.usages ?? [])
    const now = new Date(this.clock.now())
    const stamp = now.toISOString().replace(/\.\d{3}Z$/, 'Z')
    if (problem !== undefined) {
      await this.csrs.update(
        undefined,
        name,
        (c) => {
          const status = (c.status ?? {}) as { conditions?: unknown[] }
          return { ...c, status: { ...status, conditions: [...(status.conditions ?? []), { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: problem, lastUpdateTime: stamp, lastTransitionTime: stamp }] } }
        },
        { subresource: 'status', retryOnConflict: true, admission: ADMISSION },
      )
      return
    }
    const certificate = await signRequest(this.ca, { requestPem: pem, usages: spec.usages ?? [], durationMs: signingDuration(this.options.durationMs ?? SIGNING_DURATION_MS, spec.expirationSeconds), now })
    await this.csrs.update(undefined, name, (c) => (csrCertificate(c) ? c : { ...c, status: { ...(c.status as object), certificate: Buffer.from(certificate).toString('base64') } }), {
      subresource: 'status',
      retryOnConflict: true,
      admission: ADMISSION,
    })
  }
}

/** Approved, neither failed nor signed, for one of the built-in signers. */
function wantsSigning(csr: KubeObject): boolean {
  return isApproved(csr) && !hasTrueCondition(csr, 'Failed') && !csrCertificate(csr) && SIGNERS[csrSpec(csr).signerName ?? ''] !== undefined
}
