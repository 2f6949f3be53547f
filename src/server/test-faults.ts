/**
 * A test-only way to make a health check pass, fail or hang in a running server, so that
 * end-to-end tests can drive every state of the status endpoints. Documented in the README
 * as for tests; unset in normal use, when it does nothing.
 *
 * `CLIENT_TEST_FAULTS_FILE` names a file read on every check; each line is `<check>=fail`,
 * `<check>=fail:<message>` or `<check>=hang` (for example `store=fail:connection refused`
 * or `log=hang`). `store` applies to the store's liveness and readiness probes alike.
 */
import { readFileSync } from 'node:fs'

type Fault = { kind: 'fail'; message: string } | { kind: 'hang' }

interface ProbeSet<T extends { name: string; check(timeoutMs?: number): Promise<void> }> {
  healthChecks(): T[]
  readyChecks(): T[]
}

export class TestFaults {
  private constructor(private readonly file: string | undefined) {}

  static fromEnvironment(env: NodeJS.ProcessEnv = process.env): TestFaults {
    return new TestFaults(env.CLIENT_TEST_FAULTS_FILE || undefined)
  }

  /** Whether faults can be injected at all (a check may then not answer at once). */
  get enabled(): boolean {
    return this.file !== undefined
  }

  private fault(name: string): Fault | undefined {
    if (!this.file) return undefined
    let text: string
    try {
      text = readFileSync(this.file, 'utf8')
    } catch {
      return undefined
    }
    for (const line of text.split('\n')) {
      const eq = line.indexOf('=')
      if (eq === -1 || line.slice(0, eq).trim() !== name) continue
      const value = line.slice(eq + 1).trim()
      if (value === 'hang') return { kind: 'hang' }
      if (value === 'fail' || value.startsWith('fail:')) return { kind: 'fail', message: value.slice(5) || 'injected failure' }
    }
    return undefined
  }

  async wrap(name: string, run: () => Promise<void>): Promise<void> {
    const fault = this.fault(name)
    if (!fault) return run()
    if (fault.kind === 'fail') throw new Error(fault.message)
    await new Promise<never>(() => {})
  }

  wrapProbes<T extends { name: string; check(timeoutMs?: number): Promise<void> }>(probes: ProbeSet<T>): ProbeSet<T> {
    const wrapped = (list: T[]) =>
      list.map((probe) => ({ ...probe, check: (timeoutMs?: number) => this.wrap(probe.name.replace(/-readiness$/, ''), () => probe.check(timeoutMs)) }))
    return { healthChecks: () => wrapped(probes.healthChecks()), readyChecks: () => wrapped(probes.readyChecks()) }
  }
}
