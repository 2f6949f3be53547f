import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

/** A helper script under test/support/ running in its own Node process (through tsx). */
export class ChildScript {
  readonly child: ChildProcess
  private out = ''
  private err = ''
  private readonly exited: Promise<void>

  constructor(script: string, args: readonly string[]) {
    this.child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'test', 'support', script), ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    this.child.stdout?.on('data', (chunk: Buffer) => (this.out += chunk.toString()))
    this.child.stderr?.on('data', (chunk: Buffer) => (this.err += chunk.toString()))
    this.exited = new Promise(resolve => this.child.once('exit', () => resolve()))
    const child = this.child
    process.once('exit', () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        try {
          process.kill(child.pid, 'SIGKILL')
        } catch {
          // Gone already.
        }
      }
    })
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error('child process did not start')
    return this.child.pid
  }

  get stdout(): string {
    return this.out
  }

  get stderr(): string {
    return this.err
  }

  /** Waits until stdout satisfies `done`; fails if the child exits first or time runs out. */
  async waitFor(done: (stdout: string) => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!done(this.out)) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`child exited (${this.child.exitCode ?? this.child.signalCode}) early:\n${this.err}`)
      }
      if (Date.now() > deadline) throw new Error(`child did not get there within ${timeoutMs}ms:\n${this.err}`)
      await new Promise(resolve => setTimeout(resolve, 20))
    }
  }

  /** Sends `signal` to the child by PID and waits for it to exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) process.kill(this.pid, signal)
    await this.exited
  }
}
