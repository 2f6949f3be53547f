/**
 * A CA file read again when it changes while the server runs (the reference's
 * dynamiccertificates.DynamicFileCAContent, behind --client-ca-file and
 * --requestheader-client-ca-file): the file is read every second and compared, a new valid bundle
 * replaces the old one for every later request (connections already verified are verified
 * again), and an unreadable, empty or malformed file is logged and the last good bundle stays,
 * so a half-written file never locks everyone out. The first read happens at start-up, where a
 * bad file stops the server.
 */
import fs from 'node:fs'
import { type CaBundle, loadCaBundle, parseCaBundle } from './x509.js'

export interface CaProvider {
  /** The bundle in effect now; a new object each time it changes. */
  current(): CaBundle
}

export class DynamicCaFile implements CaProvider {
  private bundle: CaBundle
  private text: string
  private timer: NodeJS.Timeout | undefined
  /** The last failure logged: a file that stays bad is reported once, not every second. */
  private lastError = ''
  private readonly listeners: Array<() => void> = []
  /** The reference's controller name, `<purpose>::<file>`, as its log lines say. */
  readonly name: string

  constructor(
    private readonly file: string,
    option: string,
    purpose: string,
    private readonly log: { info(message: string): void; error(message: string): void } = { info: () => {}, error: () => {} },
  ) {
    this.name = `${purpose}::${file}`
    this.bundle = loadCaBundle(file, option)
    this.text = fs.readFileSync(file, 'utf8')
  }

  current(): CaBundle {
    return this.bundle
  }

  /** Called after each change. */
  onChange(listener: () => void): void {
    this.listeners.push(listener)
  }

  /** Reads the file; a changed valid bundle replaces the current one. Returns whether it changed. */
  check(): boolean {
    let text: string
    try {
      text = fs.readFileSync(this.file, 'utf8')
    } catch (err) {
      this.fail(`key failed with : open ${this.file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`)
      return false
    }
    if (text === this.text) return false
    if (text.length === 0) {
      this.fail(`key failed with : missing content for CA bundle "${this.name}"`)
      return false
    }
    let bundle: CaBundle
    try {
      bundle = parseCaBundle(text, this.file)
    } catch (err) {
      const detail = (err as Error).message.replace(`${this.file}: `, '')
      this.fail(`key failed with : error loading CA bundle for "${this.name}": ${detail}`)
      return false
    }
    this.text = text
    this.bundle = bundle
    this.lastError = ''
    this.log.info(`"Loaded a new CA Bundle and Verifier" name="${this.name}"`)
    for (const listener of this.listeners) listener()
    return true
  }

  private fail(message: string): void {
    if (message === this.lastError) return
    this.lastError = message
    this.log.error(message)
  }

  /** Reads the file every interval and compares the content (a CA file is small), so no change between a stat and a write is missed. */
  start(intervalMs = 1000): void {
    if (this.timer) return
    this.timer = setInterval(() => this.check(), intervalMs)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
  }
}

/** A fixed bundle as a provider. */
export function staticCa(bundle: CaBundle): CaProvider {
  return { current: () => bundle }
}

/** Several providers as one set of authorities, merged again only when one of them changed. */
export function mergedCa(providers: readonly CaProvider[], merge: (bundles: CaBundle[]) => CaBundle): CaProvider {
  let inputs: CaBundle[] = []
  let merged: CaBundle | undefined
  return {
    current() {
      const now = providers.map((p) => p.current())
      if (!merged || now.some((b, i) => b !== inputs[i])) {
        inputs = now
        merged = merge(now)
      }
      return merged
    },
  }
}
