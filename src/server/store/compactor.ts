/**
 * The Kubernetes API server's compaction rhythm: on every tick, compact to the revision that
 * was current at the previous tick, so history of at least one interval is always kept for
 * watchers and paged lists that are still catching up.
 */
export interface Compactor {
  stop(): Promise<void>
}

export function startCompactor(
  intervalMs: number,
  tick: (previous: number) => Promise<number>,
  onError: (err: unknown) => void = () => {},
): Compactor {
  if (intervalMs <= 0) return { stop: () => Promise.resolve() }
  let previous = 0
  let running: Promise<void> = Promise.resolve()
  let stopped = false
  const timer = setInterval(() => {
    if (stopped) return
    running = running.then(async () => {
      if (stopped) return
      try {
        previous = await tick(previous)
      } catch (err) {
        onError(err)
      }
    })
  }, intervalMs)
  // Compaction must never keep a process alive on its own.
  timer.unref()
  return {
    async stop() {
      stopped = true
      clearInterval(timer)
      await running
    },
  }
}
