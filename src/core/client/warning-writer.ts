/**
 * Where server warnings go: kubectl's warning writer (client-go rest.WarningWriter with
 * Deduplicate: true) prints each distinct `Warning` text once as `Warning: <text>` on stderr
 * and counts them, for `--warnings-as-errors` (`error: 1 warning received`,
 * `error: N warnings received`, exit 1).
 */
export class WarningWriter {
  private readonly seen = new Set<string>()

  constructor(private readonly write: (text: string) => void) {}

  /** Prints the texts not printed before. */
  handle(texts: readonly string[]): void {
    for (const text of texts) {
      if (this.seen.has(text)) continue
      this.seen.add(text)
      this.write(`Warning: ${text}\n`)
    }
  }

  get count(): number {
    return this.seen.size
  }

  /** kubectl's error for `--warnings-as-errors`, or undefined when nothing was received. */
  asError(): string | undefined {
    const n = this.count
    if (n === 0) return undefined
    return `${n} ${n === 1 ? 'warning' : 'warnings'} received`
  }
}
