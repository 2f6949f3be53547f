/**
 * The server's logger: the reference's text format, `-v` verbosity with `--vmodule`
 * overrides per file, buffered output flushed at most every --log-flush-frequency. It
 * also answers the `log` health check: logging is healthy while flushes succeed.
 *
 * With --log-text-split-stream, as the reference's klogMsgRouter: info lines go to standard
 * output and every other severity to standard error; --log-text-info-buffer-size then holds
 * info lines back in a buffer of that size (info-writer.ts).
 */
import { basename } from 'node:path'
import { BufferedInfoWriter } from './info-writer.js'
import { type Severity, callerSource, formatLine, sourceName } from './klog-format.js'

interface LoggerOptions {
  verbosity: number
  /** `pattern=N`: files whose base name (without extension) matches the glob log at level N. */
  vmodule: Record<string, string>
  flushFrequencyMs: number
  /** Where lines go; stderr by default. */
  sink?: NodeJS.WritableStream
  /** --log-text-split-stream: info lines to `infoSink` (stdout by default), the others to `sink`. */
  splitStream?: boolean
  infoSink?: NodeJS.WritableStream
  /** --log-text-info-buffer-size in bytes (0: no buffer); only with splitStream. */
  infoBufferSize?: number
  /** Microseconds since the epoch. */
  now?: () => number
}

function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`)
}

/** A line not formatted yet: its source is named (through a source map) only when flushed. */
interface Pending {
  severity: Severity
  whenMicros: number
  source: string
  message: string
}

export class Logger {
  private buffer: Pending[] = []
  private timer: NodeJS.Timeout | undefined
  private lastFlushOk = Date.now()
  private flushError: Error | undefined
  private readonly sink: NodeJS.WritableStream
  /** The info stream when split, buffered or not; undefined when every line goes to `sink`. */
  private readonly infoStream: { write(text: string): void; flush?(): void } | undefined
  private readonly modules: Array<[RegExp, number]>
  private readonly now: () => number

  constructor(private readonly options: LoggerOptions) {
    this.sink = options.sink ?? process.stderr
    if (options.splitStream) {
      const infoSink = options.infoSink ?? process.stdout
      infoSink.on?.('error', (err: Error) => {
        this.flushError = err
      })
      const size = Math.min(options.infoBufferSize ?? 0, 2 * 1024 * 1024 * 1024)
      this.infoStream = size > 0 ? new BufferedInfoWriter(infoSink, size) : { write: (text) => infoSink.write(text) }
    }
    this.now = options.now ?? (() => Math.floor((performance.timeOrigin + performance.now()) * 1000))
    this.modules = Object.entries(options.vmodule).map(([glob, level]) => [globToRegExp(glob), Number(level)])
    this.sink.on?.('error', (err: Error) => {
      this.flushError = err
    })
  }

  /** Whether a message at verbosity `level` from the caller's file would be logged. */
  enabled(level: number, source?: string): boolean {
    if (level <= this.options.verbosity) return true
    if (this.modules.length === 0) return false
    const file = basename(sourceName(source ?? callerSource(3)).split(':')[0]).replace(/\.[jt]s$/, '')
    const rule = this.modules.find(([pattern]) => pattern.test(file))
    return rule !== undefined && level <= rule[1]
  }

  info(message: string): void {
    this.write('I', message)
  }

  /** Logged only at `-v=level` or above (or by a matching --vmodule rule). */
  v(level: number, message: string): void {
    // Reading the caller from a stack trace is costly: only when a --vmodule rule may apply.
    if (level > this.options.verbosity && this.modules.length === 0) return
    const source = callerSource(2)
    if (this.enabled(level, source)) this.write('I', message, source)
  }

  warning(message: string): void {
    this.write('W', message)
  }

  error(message: string): void {
    this.write('E', message)
    // Errors are not left in the buffer: they may be the last thing a dying server says.
    // The info stream's own buffer is left alone, as the reference's is drained only by flushes.
    this.writeOut()
  }

  private write(severity: Severity, message: string, source = callerSource(3)): void {
    this.buffer.push({ severity, whenMicros: this.now(), source, message })
    if (this.options.flushFrequencyMs <= 0) this.writeOut()
    else this.timer ??= setTimeout(() => this.flush(), this.options.flushFrequencyMs).unref()
  }

  /** Writes every pending line out, and what the info stream's buffer holds. */
  flush(): void {
    this.writeOut()
    try {
      this.infoStream?.flush?.()
    } catch (err) {
      this.flushError = err as Error
    }
  }

  private writeOut(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    if (this.buffer.length === 0) {
      this.lastFlushOk = Date.now()
      return
    }
    const lines = this.buffer
    this.buffer = []
    const line = (l: Pending) => formatLine(l.severity, l.whenMicros, process.pid, sourceName(l.source), l.message)
    try {
      if (this.infoStream) {
        const info = lines.filter((l) => l.severity === 'I').map(line).join('')
        const others = lines.filter((l) => l.severity !== 'I').map(line).join('')
        if (info !== '') this.infoStream.write(info)
        if (others !== '') this.sink.write(others)
      } else {
        this.sink.write(lines.map(line).join(''))
      }
      this.lastFlushOk = Date.now()
    } catch (err) {
      this.flushError = err as Error
    }
  }

  /** The `log` health check: fails when the last flush failed or flushing has stalled. */
  async check(): Promise<void> {
    const failure = this.checkNow()
    if (failure !== null) throw new Error(failure)
  }

  /** The same check, answered at once: null when healthy, else the failure text. */
  checkNow(): string | null {
    this.flush()
    if (this.flushError) return `logging blocked: ${this.flushError.message}`
    if (Date.now() - this.lastFlushOk > 120_000) return 'logging blocked'
    return null
  }
}
