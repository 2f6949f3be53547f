/**
 * The coordinated leader election controller (pkg/controlplane/controller/leaderelection/
 * leaderelection_controller.go): for each Lease that LeaseCandidates contend for, one step of
 * the election at a time, worked out again from the Lease and its candidates each time. An
 * election is needed when the Lease is missing, expired or without holder, when a candidate has
 * not renewed for 15 minutes, or when a better leader than the holder is among the candidates.
 * The candidates not renewed within the last 5 s are pinged (their pingTime set) and given 5 s
 * to answer by renewing; then the best of those that did (election.ts) is written as the
 * Lease's holder with the strategy, for 5 s, or as its preferredHolder when the Lease is held
 * and not expired. Each Lease is looked at again every 5 s.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { ApiError } from '../api/status-errors.js'
import {
  LEASE_CANDIDATE_VALID_MS,
  OLDEST_EMULATION_VERSION,
  candidateSpec,
  isLeaseCandidateExpired,
  pickBestLeaderOldestEmulationVersion,
  pickBestStrategy,
} from '../peers/election.js'
import { type LeaseSpec, isLeaseExpired, leaseSpec, microTime, timeOf } from '../peers/lease-times.js'

/** defaultRequeueInterval, defaultLeaseDurationSeconds and electionDuration of the reference. */
export const REQUEUE_INTERVAL_MS = 5_000
export const ELECTED_LEASE_DURATION_SECONDS = 5
export const ELECTION_DURATION_MS = 5_000
const NO_REQUEUE = 0

export interface LeaseElectionStores {
  readonly leases: GenericStore
  readonly candidates: GenericStore
  log(level: number, message: string): void
}

const isNotFound = (err: unknown) => err instanceof ApiError && err.code === 404
const isAlreadyExists = (err: unknown) => err instanceof ApiError && err.code === 409 && err.status.reason === 'AlreadyExists'

export class LeaseElection {
  /** namespace/name → its next look. */
  private readonly timers = new Map<string, NodeJS.Timeout>()
  private queue: Promise<void> = Promise.resolve()
  private stopped = false

  constructor(private readonly stores: LeaseElectionStores) {}

  /** Looks at every Lease a candidate contends for now. */
  async start(): Promise<void> {
    for (const c of (await this.stores.candidates.list()).items) this.enqueueCandidate(c)
  }

  stop(): void {
    this.stopped = true
    for (const timer of this.timers.values()) clearTimeout(timer)
    this.timers.clear()
  }

  /** A candidate changed: its Lease is looked at, unless the candidate is answering a ping (reelection runs). */
  enqueueCandidate(candidate: KubeObject): void {
    const spec = candidateSpec(candidate)
    const ping = timeOf(spec.pingTime)
    const renew = timeOf(spec.renewTime)
    if (ping !== undefined && (renew === undefined || renew < ping)) return
    if (spec.leaseName) this.schedule(candidate.metadata.namespace ?? '', spec.leaseName, 0)
  }

  enqueueLease(lease: KubeObject): void {
    this.schedule(lease.metadata.namespace ?? '', lease.metadata.name ?? '', 0)
  }

  private schedule(namespace: string, name: string, delayMs: number): void {
    if (this.stopped) return
    const key = `${namespace}/${name}`
    const pending = this.timers.get(key)
    if (pending && delayMs > 0) return
    if (pending) clearTimeout(pending)
    const timer = setTimeout(() => {
      this.timers.delete(key)
      this.queue = this.queue.then(async () => {
        if (this.stopped) return
        let requeue = REQUEUE_INTERVAL_MS
        try {
          requeue = await this.reconcileElectionStep(namespace, name)
        } catch (err) {
          this.stores.log(2, `election for lease ${key}: ${(err as Error).message}`)
          requeue = REQUEUE_INTERVAL_MS
        }
        if (requeue !== NO_REQUEUE) this.schedule(namespace, name, requeue)
      })
    }, delayMs)
    timer.unref()
    this.timers.set(key, timer)
  }

  /** listAdmissableCandidates: the unexpired candidates for the Lease. */
  private async admissableCandidates(namespace: string, name: string, now: number): Promise<KubeObject[]> {
    const { items } = await this.stores.candidates.list({ namespace })
    return items.filter((c) => candidateSpec(c).leaseName === name && !isLeaseCandidateExpired(c, now))
  }

  private async lease(namespace: string, name: string): Promise<KubeObject | undefined> {
    try {
      return await this.stores.leases.get(namespace, name)
    } catch (err) {
      if (isNotFound(err)) return undefined
      throw err
    }
  }

  /** electionNeeded. */
  private electionNeeded(candidates: readonly KubeObject[], lease: KubeObject | undefined, now: number): boolean {
    if (!lease) return true
    const holder = leaseSpec(lease).holderIdentity
    if (isLeaseExpired(lease, now) || !holder) return true
    // Every 15 minutes an election refreshes all candidates (they are collected after 30).
    if (candidates.some((c) => (timeOf(candidateSpec(c).renewTime) ?? Infinity) + LEASE_CANDIDATE_VALID_MS / 2 < now)) return true
    if (pickBestStrategy(candidates) !== OLDEST_EMULATION_VERSION) return false
    const electee = pickBestLeaderOldestEmulationVersion(candidates)
    return electee !== undefined && electee.metadata.name !== holder
  }

  /** reconcileElectionStep: one step; answers when to look again (0: not until something changes). */
  async reconcileElectionStep(namespace: string, name: string): Promise<number> {
    const now = Date.now()
    const candidates = await this.admissableCandidates(namespace, name, now)
    if (candidates.length === 0) return NO_REQUEUE
    let needed: boolean
    try {
      needed = this.electionNeeded(candidates, await this.lease(namespace, name), now)
    } catch (err) {
      this.stores.log(2, `election for lease ${namespace}/${name}: ${(err as Error).message}`)
      return REQUEUE_INTERVAL_MS
    }
    if (!needed) return REQUEUE_INTERVAL_MS

    let canVoteYet = true
    for (const candidate of candidates) {
      const spec = candidateSpec(candidate)
      const ping = timeOf(spec.pingTime)
      const renew = timeOf(spec.renewTime)
      if (ping !== undefined && ping + ELECTION_DURATION_MS > now && renew !== undefined && renew < ping) {
        canVoteYet = false // still waiting for its answer
        continue
      }
      if (renew !== undefined && renew + ELECTION_DURATION_MS > now) continue
      // Pinged again only once it answered the last ping.
      if (ping === undefined || (ping + ELECTION_DURATION_MS < now && renew !== undefined && ping < renew)) {
        await this.stores.candidates.update(namespace, candidate.metadata.name ?? '', (current) => ({
          ...current,
          metadata: { ...current.metadata, resourceVersion: candidate.metadata.resourceVersion },
          spec: { ...(current.spec as object), pingTime: microTime(now) },
        }))
        canVoteYet = false
      }
    }
    if (!canVoteYet) return REQUEUE_INTERVAL_MS

    for (const candidate of candidates) {
      const spec = candidateSpec(candidate)
      const ping = timeOf(spec.pingTime)
      const renew = timeOf(spec.renewTime)
      if (ping === undefined) continue
      if (renew !== undefined && ping < renew) continue
      if (ping + ELECTION_DURATION_MS > now) return NO_REQUEUE
    }
    const acked = candidates.filter((c) => (timeOf(candidateSpec(c).renewTime) ?? -Infinity) + ELECTION_DURATION_MS > now)
    if (acked.length === 0) throw new Error('no available candidates')
    const strategy = pickBestStrategy(acked)
    const leaderSpec: LeaseSpec = { strategy, leaseDurationSeconds: ELECTED_LEASE_DURATION_SECONDS, renewTime: microTime(now) }
    if (strategy === OLDEST_EMULATION_VERSION) {
      const electee = pickBestLeaderOldestEmulationVersion(acked)
      if (!electee) throw new Error('should not happen, could not find suitable electee')
      leaderSpec.holderIdentity = electee.metadata.name
    } else {
      this.stores.log(2, `Election for strategy "${strategy}" is not handled by leader-election-controller`)
    }

    try {
      await this.stores.leases.create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec: leaderSpec })
      this.stores.log(0, leaderSpec.holderIdentity ? `Created lease ${namespace}/${name} for "${leaderSpec.holderIdentity}"` : `Created lease ${namespace}/${name} without leader`)
      return REQUEUE_INTERVAL_MS
    } catch (err) {
      if (!isAlreadyExists(err)) throw err
    }
    await this.stores.leases.update(namespace, name, (existing) => this.updatedLease(existing, leaderSpec, strategy, now))
    return REQUEUE_INTERVAL_MS
  }

  /** The existing Lease with the election's result (the reference's update of an existing Lease). */
  private updatedLease(existing: KubeObject, leader: LeaseSpec, strategy: string, now: number): KubeObject {
    const spec = { ...leaseSpec(existing) }
    const held = spec.holderIdentity !== undefined && spec.holderIdentity !== ''
    const noHolder = leader.holderIdentity !== undefined && !held
    const expiredAndNewHolder = isLeaseExpired(existing, now) && leader.holderIdentity !== undefined && spec.holderIdentity !== leader.holderIdentity
    const differentHolder = leader.holderIdentity !== undefined && leader.holderIdentity !== spec.holderIdentity
    if (spec.strategy !== strategy) spec.strategy = strategy
    if (noHolder || expiredAndNewHolder) {
      this.stores.log(0, `Lease ${existing.metadata.namespace}/${existing.metadata.name} ${noHolder ? 'had no holder' : 'expired, resetting it and'} setting holder to "${leader.holderIdentity}"`)
      delete spec.preferredHolder
      delete spec.acquireTime
      spec.holderIdentity = leader.holderIdentity
      spec.renewTime = microTime(now)
      spec.leaseDurationSeconds = ELECTED_LEASE_DURATION_SECONDS
    } else if (differentHolder) {
      spec.preferredHolder = leader.holderIdentity
    }
    // An unchanged Lease is not written (the store keeps its resourceVersion).
    return { ...existing, spec }
  }
}
