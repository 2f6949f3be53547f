/**
 * The CSR approving controller (the reference's pkg/controller/certificates/approver,
 * sarapprove.go; kube-controller-manager's `certificatesigningrequest-approving-controller`): a
 * pending request for the kube-apiserver-client-kubelet signer that is a kubelet client's
 * (ValidateKubeletClientCSR) is approved when its requester may create
 * `certificatesigningrequests/selfnodeclient` (renewing its own node's certificate: the
 * username is the subject's common name) or `certificatesigningrequests/nodeclient` (a new
 * node), asked of the server's authorizer as the reference's SubjectAccessReview does. The
 * Approved condition carries the reference's reason `AutoApproved` and messages.
 */
import type { Authorizer } from '../authorization/authorizer.js'
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { toApiError } from '../api/status-errors.js'
import { parseRequest } from '../tls/sign-request.js'
import { KUBE_APISERVER_CLIENT_KUBELET, type RequestNames, csrConditions, csrSpec, kubeletClientProblem, requestPem } from './certificates/csr-requests.js'
import { type Clock, SYSTEM_CLOCK } from './clock.js'
import type { Controller, ControllerContext } from './controller.js'
import { asControllerServiceAccount } from './kit/controller-identity.js'
import { KeyedQueue } from './kit/keyed-queue.js'

const ADMISSION = asControllerServiceAccount('certificate-controller')

interface Recognizer {
  recognize(csr: KubeObject, req: RequestNames): boolean
  readonly subresource: string
  readonly successMessage: string
}

const isNodeClientCert = (csr: KubeObject, req: RequestNames): boolean => csrSpec(csr).signerName === KUBE_APISERVER_CLIENT_KUBELET && kubeletClientProblem(req, csrSpec(csr).usages ?? []) === undefined

/** The reference's recognizers, in its order. */
const RECOGNIZERS: readonly Recognizer[] = [
  { recognize: (csr, req) => isNodeClientCert(csr, req) && csrSpec(csr).username === req.commonName, subresource: 'selfnodeclient', successMessage: 'Auto approving self kubelet client certificate after SubjectAccessReview.' },
  { recognize: isNodeClientCert, subresource: 'nodeclient', successMessage: 'Auto approving kubelet client certificate after SubjectAccessReview.' },
]

export interface CsrApprovingOptions {
  readonly authorizer: Authorizer
  readonly clock?: Clock
  readonly onError?: (err: Error) => void
}

export class CsrApprovingController implements Controller {
  readonly name = 'certificatesigningrequest-approving-controller'
  private queue: KeyedQueue | undefined
  private unsubscribe: (() => void) | undefined
  private csrs!: GenericStore
  private readonly clock: Clock

  constructor(private readonly options: CsrApprovingOptions) {
    this.clock = options.clock ?? SYSTEM_CLOCK
  }

  async start(ctx: ControllerContext): Promise<void> {
    const csrs = ctx.registry.lookup('certificates.k8s.io', 'v1', 'certificatesigningrequests')
    if (!csrs) return
    this.csrs = csrs
    const onError = (err: unknown) => (this.options.onError ?? ((e: Error) => ctx.log(2, `csr approving: ${e.message}`)))(err as Error)
    this.queue = new KeyedQueue((name) => this.sync(name), { clock: this.clock, onError })
    this.unsubscribe = ctx.registry.onChange(({ type, object, strategy }) => {
      if (strategy.group === 'certificates.k8s.io' && strategy.resource === 'certificatesigningrequests' && type !== 'deleted' && pending(object)) this.queue?.add(object.metadata.name ?? '')
    })
    this.queue.start()
    for (const csr of (await csrs.list()).items) if (pending(csr)) this.queue.add(csr.metadata.name ?? '')
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
    if (!pending(csr) || csrSpec(csr).signerName !== KUBE_APISERVER_CLIENT_KUBELET) return
    let req: RequestNames
    try {
      req = await parseRequest(requestPem(csr))
    } catch (err) {
      throw new Error(`unable to parse csr "${name}": ${(err as Error).message}`)
    }
    for (const recognizer of RECOGNIZERS) {
      if (!recognizer.recognize(csr, req)) continue
      if (!(await this.authorized(csr, recognizer.subresource))) continue
      const stamp = new Date(this.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z')
      await this.csrs.update(
        undefined,
        name,
        (c) => {
          if (!pending(c)) return c
          const status = (c.status ?? {}) as { conditions?: unknown[] }
          return { ...c, status: { ...status, conditions: [...(status.conditions ?? []), { type: 'Approved', status: 'True', reason: 'AutoApproved', message: recognizer.successMessage, lastUpdateTime: stamp, lastTransitionTime: stamp }] } }
        },
        { subresource: 'approval', retryOnConflict: true, admission: ADMISSION },
      )
      return
    }
  }

  /** The SubjectAccessReview of the requester for `create certificatesigningrequests/<subresource>`. */
  private async authorized(csr: KubeObject, subresource: string): Promise<boolean> {
    const spec = csrSpec(csr)
    const decision = await this.options.authorizer.authorize({
      user: { name: spec.username ?? '', ...(spec.uid ? { uid: spec.uid } : {}), groups: spec.groups ?? [], ...(spec.extra ? { extra: spec.extra } : {}) },
      verb: 'create',
      resourceRequest: true,
      path: '',
      namespace: '',
      apiGroup: 'certificates.k8s.io',
      apiVersion: '*',
      resource: 'certificatesigningrequests',
      subresource,
      name: '',
    })
    return decision.decision === 'allow'
  }
}

/** Neither approved nor denied yet (the reference skips both). */
const pending = (csr: KubeObject): boolean => !csrConditions(csr).some((c) => c.type === 'Approved' || c.type === 'Denied')
