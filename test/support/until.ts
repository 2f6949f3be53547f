/** Polls `fn` every `intervalMs` until it returns (or resolves to) a value, or fails naming `what` after `timeoutMs`. */
export async function until<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await fn()
    if (v !== undefined) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, intervalMs))
  }
}
