/**
 * The CSR cleaner (the reference's pkg/controller/certificates/cleaner,
 * kube-controller-manager's `certificatesigningrequest-cleaner-controller`): every hour of the
 * cluster's clock, a CertificateSigningRequest is deleted when it was issued and approved more
 * than an hour ago, denied or failed more than an hour ago (its condition's lastUpdateTime),
 * pending for more than a day, or when its certificate has expired.
 */
import crypto from 'node:crypto'
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { toApiError } from '../api/status-errors.js'
import { csrCertificate, csrConditions } from './certificates/csr-requests.js'
import { type Clock, SYSTEM_CLOCK } from './clock.js'
import type { Controller, ControllerContext } from './controller.js'
import { asControllerServiceAccount } from './kit/controller-identity.js'
import { KeyedQueue } from './kit/keyed-queue.js'

const ADMISSION = asControllerServiceAccount('certificate-controller')
const HOUR_MS = 60 * 60 * 1000
const POLLING_INTERVAL_MS = HOUR_MS
const APPROVED_EXPIRATION_MS = HOUR_MS
const DENIED_EXPIRATION_MS = HOUR_MS
const PENDING_EXPIRATION_MS = 24 * HOUR_MS
const ALL = 'all'

export interface CsrCleanerOptions {
  readonly clock?: Clock
  readonly recheckMs?: number
  readonly onError?: (err: Error) => void
}

/** Why the CSR is to go (the reference's checks, in its order), or undefined. */
export function expiredReason(csr: KubeObject, now: number): string | undefined {
  const olderThan = (time: string | undefined, ms: number) => time !== undefined && now - Date.parse(time) > ms
  const conditions = csrConditions(csr)
  const certificate = csrCertificate(csr)
  if (certificate && conditions.some((c) => c.type === 'Approved' && olderThan(c.lastUpdateTime, APPROVED_EXPIRATION_MS))) return 'issued'
  if (conditions.some((c) => c.type === 'Denied' && olderThan(c.lastUpdateTime, DENIED_EXPIRATION_MS))) return 'denied'
  if (conditions.some((c) => c.type === 'Failed' && olderThan(c.lastUpdateTime, DENIED_EXPIRATION_MS))) return 'failed'
  const decided = conditions.some((c) => c.type === 'Approved' || c.type === 'Denied')
  if (!decided && olderThan(csr.metadata.creationTimestamp, PENDING_EXPIRATION_MS)) return 'pending'
  if (certificate && certificateExpired(certificate, now)) return 'expired'
  return undefined
}

function certificateExpired(base64: string, now: number): boolean {
  try {
    return Date.parse(new crypto.X509Certificate(Buffer.from(base64, 'base64')).validTo) < now
  } catch {
    return false
  }
}

export class CsrCleanerController implements Controller {
  readonly name = 'certificatesigningrequest-cleaner-controller'
  private queue: KeyedQueue | undefined
  private csrs!: GenericStore
  private readonly clock: Clock

  constructor(private readonly options: CsrCleanerOptions = {}) {
    this.clock = options.clock ?? SYSTEM_CLOCK
  }

  start(ctx: ControllerContext): void {
    const csrs = ctx.registry.lookup('certificates.k8s.io', 'v1', 'certificatesigningrequests')
    if (!csrs) return
    this.csrs = csrs
    const onError = (err: unknown) => (this.options.onError ?? ((e: Error) => ctx.log(2, `csr cleaner: ${e.message}`)))(err as Error)
    this.queue = new KeyedQueue(() => this.sweep(), { clock: this.clock, recheckMs: this.options.recheckMs ?? 1000, onError })
    this.queue.start()
    this.queue.add(ALL)
  }

  stop(): void {
    this.queue?.stop()
  }

  private async sweep(): Promise<void> {
    this.queue?.addAfter(ALL, POLLING_INTERVAL_MS)
    const now = this.clock.now()
    for (const csr of (await this.csrs.list()).items) {
      if (expiredReason(csr, now) === undefined) continue
      try {
        await this.csrs.delete(undefined, csr.metadata.name ?? '', { preconditions: { uid: csr.metadata.uid! }, admission: ADMISSION })
      } catch (err) {
        const code = toApiError(err).status.code
        if (code !== 404 && code !== 409) throw err
      }
    }
  }
}
