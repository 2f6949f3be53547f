/**
 * The LeaseCandidates' garbage collector (pkg/controlplane/controller/leaderelection/
 * leasecandidategc_controller.go): at start and every 30 minutes, the candidates not renewed
 * for 30 minutes are read again and, still expired, deleted.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import { ApiError } from '../api/status-errors.js'
import { isLeaseCandidateExpired } from '../peers/election.js'

/** LeaseCandidateGCPeriod. */
export const LEASE_CANDIDATE_GC_PERIOD_MS = 30 * 60_000

export class LeaseCandidateGC {
  private timer: NodeJS.Timeout | undefined
  private stopped = false

  constructor(
    private readonly candidates: GenericStore,
    private readonly log: (level: number, message: string) => void,
    private readonly periodMs = LEASE_CANDIDATE_GC_PERIOD_MS,
  ) {}

  start(): void {
    const tick = () => {
      if (this.stopped) return
      void this.gc()
        .catch((err: Error) => this.log(2, `Error while listing lease candidates: ${err.message}`))
        .finally(() => {
          if (this.stopped) return
          this.timer = setTimeout(tick, this.periodMs)
          this.timer.unref()
        })
    }
    tick()
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
  }

  async gc(): Promise<void> {
    for (const candidate of (await this.candidates.list()).items) {
      if (!isLeaseCandidateExpired(candidate)) continue
      const { namespace = '', name = '' } = candidate.metadata
      try {
        // Read again: the candidate may have renewed since the list.
        if (!isLeaseCandidateExpired(await this.candidates.get(namespace, name))) continue
        await this.candidates.delete(namespace, name)
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 404) this.log(2, `Error deleting lease candidate ${namespace}/${name}: ${(err as Error).message}`)
      }
    }
  }
}
