/**
 * The times of coordination.k8s.io objects: `renewTime`, `acquireTime` and `pingTime` are
 * MicroTime (RFC 3339 with six fractional digits), and a Lease is expired once its renewTime
 * and leaseDurationSeconds are past, or either is missing (isLeaseExpired in
 * pkg/controlplane/controller/leaderelection/election.go and apiserverleasegc).
 */
import type { KubeObject } from '../api/registry/object.js'

/** metav1.MicroTime's JSON form of `epochMs`. */
export function microTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z')
}

/** A MicroTime or Time as epoch milliseconds; undefined when absent or unreadable. */
export function timeOf(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? undefined : ms
}

export type LeaseSpec = {
  holderIdentity?: string
  leaseDurationSeconds?: number
  acquireTime?: string
  renewTime?: string
  leaseTransitions?: number
  strategy?: string
  preferredHolder?: string
}

export function leaseSpec(lease: KubeObject): LeaseSpec {
  return ((lease as { spec?: LeaseSpec }).spec ?? {}) as LeaseSpec
}

/** Whether the Lease's holder has let it run out (or it never had the times). */
export function isLeaseExpired(lease: KubeObject, now = Date.now()): boolean {
  const spec = leaseSpec(lease)
  const renewed = timeOf(spec.renewTime)
  if (renewed === undefined || typeof spec.leaseDurationSeconds !== 'number') return true
  return renewed + spec.leaseDurationSeconds * 1000 < now
}
