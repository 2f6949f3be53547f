/**
 * Leases for keys written with a TTL, as the reference's lease manager hands them out: one
 * lease serves every write whose TTL ends within the reuse window, so a stream of events does
 * not grant a lease per write. A granted lease lives `ttl + reuse` seconds, where reuse is 5 %
 * of the TTL, at most `--lease-reuse-duration-seconds` (60 by default).
 */
interface LeaseGranter {
  /** Grants a lease of `ttlSeconds`; resolves with its ID. */
  grant(ttlSeconds: number): Promise<string>
}

const REUSE_PERCENT = 0.05

export class LeaseManager {
  private prevId: string | undefined
  private prevExpiresAt = 0
  private pending: Promise<string> | undefined

  constructor(
    private readonly granter: LeaseGranter,
    private readonly reuseDurationSeconds = 60,
    private readonly now: () => number = Date.now,
  ) {}

  /** A lease that outlives `ttlSeconds` from now. */
  async leaseFor(ttlSeconds: number): Promise<string> {
    // Concurrent writers wait for one grant rather than granting one each.
    while (this.pending) await this.pending.catch(() => undefined)
    const now = this.now()
    const reuse = Math.min(Math.floor(REUSE_PERCENT * ttlSeconds), this.reuseDurationSeconds)
    const valid = now + ttlSeconds * 1000 < this.prevExpiresAt
    const sufficient = now + (ttlSeconds + reuse) * 1000 >= this.prevExpiresAt
    if (this.prevId !== undefined && valid && sufficient) return this.prevId
    const ttl = ttlSeconds + reuse
    this.pending = this.granter.grant(ttl)
    try {
      const id = await this.pending
      this.prevId = id
      this.prevExpiresAt = now + ttl * 1000
      return id
    } finally {
      this.pending = undefined
    }
  }
}
