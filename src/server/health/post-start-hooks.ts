/**
 * Post-start hooks: work that starts once the server listens. Each hook has a check
 * `poststarthook/<name>` that fails with `not finished` until the hook's run() resolves
 * and never fails after that. A hook that rejects is fatal (the reference's klog.Fatal):
 * `onFatal(name, err)` is called and the server is expected to log and exit 1.
 */
import type { HealthCheck } from './check.js'

export type PostStartHook = () => Promise<void>

interface PostStartHooksOptions {
  onFatal(name: string, err: Error): void
}

interface Entry {
  readonly name: string
  readonly run: PostStartHook
  finished: boolean
  readonly check: HealthCheck
}

export class PostStartHooks {
  private readonly entries: Entry[] = []
  private started: Promise<void> | undefined

  constructor(private readonly options: PostStartHooksOptions) {}

  /** Registers a hook and returns its `poststarthook/<name>` check. */
  add(name: string, run: PostStartHook): HealthCheck {
    if (name === '') throw new Error('missing name for post-start hook')
    if (this.started) throw new Error(`unable to add "${name}" because PostStartHooks have already been executed`)
    if (this.entries.some((e) => e.name === name)) throw new Error(`unable to add "${name}" because it was already registered`)
    const entry: Entry = {
      name,
      run,
      finished: false,
      check: {
        name: `poststarthook/${name}`,
        check: async () => {
          if (!entry.finished) throw new Error('not finished')
        },
        immediate: () => (entry.finished ? null : 'not finished'),
      },
    }
    this.entries.push(entry)
    return entry.check
  }

  /** Hook names in registration order. */
  get names(): string[] {
    return this.entries.map((e) => e.name)
  }

  checks(): HealthCheck[] {
    return this.entries.map((e) => e.check)
  }

  isFinished(name: string): boolean {
    return this.entries.find((e) => e.name === name)?.finished ?? false
  }

  /**
   * Starts every hook in parallel. Resolves when all have settled (a failed one has been
   * reported to onFatal). Calling it again returns the same promise.
   */
  startAll(): Promise<void> {
    this.started ??= Promise.all(
      this.entries.map(async (entry) => {
        try {
          await entry.run()
          entry.finished = true
        } catch (err) {
          this.options.onFatal(entry.name, err instanceof Error ? err : new Error(String(err)))
        }
      }),
    ).then(() => undefined)
    return this.started
  }
}
