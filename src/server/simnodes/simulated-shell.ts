/**
 * What `exec` runs in a simulated container, which has no processes: a small shell of the
 * commands tests send through exec. Scripts (`sh -c '...'`, or lines on stdin to `sh`) of
 * statements separated by `;` or newlines, `for v in words; do ...; done` with `$(seq a b)`
 * and `$v`, a pipe into `gzip`, a `>&2` redirection, quotes; the commands `echo [-n]`, `date`,
 * `uptime`, `ls`, `hostname`, `seq`, `sleep`, `true`, `false`, `exit [n]`, `cat` (stdin).
 * Another command prints busybox sh's `sh: <name>: not found` and exits 127.
 */
import { gzipSync } from 'node:zlib'

export interface ShellIO {
  out(data: Buffer | string): void
  err(data: Buffer | string): void
  readonly hostname: string
  now(): number
}

/** `exit` ends the script with its status. */
class Exit {
  constructor(readonly code: number) {}
}

/** Go's time layout of busybox date: `Mon Jan  2 15:04:05 UTC 2006`. */
function dateText(ms: number): string {
  const d = new Date(ms)
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()]
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()]
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${day} ${month} ${String(d.getUTCDate()).padStart(2, ' ')} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`
}

type Word = { text: string; quoted: boolean }

/** Words and operators (`;`, newline, `|`, `>&2`), with quotes kept as one word. */
function lex(script: string): Word[] {
  const words: Word[] = []
  let i = 0
  while (i < script.length) {
    const c = script[i]!
    if (c === ' ' || c === '\t') {
      i++
      continue
    }
    if (c === ';' || c === '\n' || c === '|') {
      words.push({ text: c === '\n' ? ';' : c, quoted: false })
      i++
      continue
    }
    if (script.startsWith('>&2', i)) {
      words.push({ text: '>&2', quoted: false })
      i += 3
      continue
    }
    let text = ''
    let quoted = false
    while (i < script.length && !' \t;\n|'.includes(script[i]!)) {
      const ch = script[i]!
      if (ch === '"' || ch === "'") {
        const end = script.indexOf(ch, i + 1)
        text += script.slice(i + 1, end === -1 ? undefined : end)
        quoted = true
        i = end === -1 ? script.length : end + 1
      } else if (script.startsWith('$(', i)) {
        const end = script.indexOf(')', i)
        text += script.slice(i, end + 1)
        i = end + 1
      } else {
        text += ch
        i++
      }
    }
    words.push({ text, quoted })
  }
  return words
}

/** Statements: lists of words between `;`, with `for ... done` kept whole. */
function statements(words: Word[]): Word[][] {
  const out: Word[][] = []
  let current: Word[] = []
  let depth = 0
  for (const w of words) {
    if (!w.quoted && w.text === 'for' && current.length === 0) depth++
    if (!w.quoted && w.text === 'done') depth--
    if (w.text === ';' && !w.quoted && depth === 0) {
      if (current.length > 0) out.push(current)
      current = []
    } else current.push(w)
  }
  if (current.length > 0) out.push(current)
  return out
}

export class SimulatedShell {
  private readonly vars = new Map<string, string>()

  constructor(private readonly io: ShellIO) {}

  /** Runs a script: its exit status, and whether it ended with `exit` (an interactive shell then closes). */
  run(script: string): Promise<{ status: number; exited: boolean }> {
    return this.ending(() => this.list(statements(lex(script))))
  }

  /** Runs one command given as its arguments (exec without a shell). */
  runArgv(argv: readonly string[]): Promise<{ status: number; exited: boolean }> {
    return this.ending(() => this.command(argv.map((text) => ({ text, quoted: true })), this.io))
  }

  private async ending(body: () => Promise<number>): Promise<{ status: number; exited: boolean }> {
    try {
      return { status: await body(), exited: false }
    } catch (e) {
      if (e instanceof Exit) return { status: e.code, exited: true }
      throw e
    }
  }

  private async list(stmts: Word[][]): Promise<number> {
    let status = 0
    for (const s of stmts) status = await this.statement(s)
    return status
  }

  private async statement(words: Word[]): Promise<number> {
    if (words[0]?.text === 'for' && !words[0].quoted) return this.forLoop(words)
    const pipe = words.findIndex((w) => w.text === '|' && !w.quoted)
    if (pipe !== -1) {
      const captured: Buffer[] = []
      const status = await this.command(words.slice(0, pipe), { ...this.io, out: (d) => captured.push(Buffer.from(d)) })
      const next = words.slice(pipe + 1).map((w) => w.text)
      if (next[0] === 'gzip') {
        this.io.out(gzipSync(Buffer.concat(captured)))
        return 0
      }
      if (next[0] === 'cat') {
        this.io.out(Buffer.concat(captured))
        return status
      }
      return this.command(words.slice(pipe + 1), this.io)
    }
    return this.command(words, this.io)
  }

  private async forLoop(words: Word[]): Promise<number> {
    const name = words[1]?.text ?? ''
    const doAt = words.findIndex((w) => w.text === 'do' && !w.quoted)
    const body = words.slice(doAt + 1, words.length - 1)
    const items = words.slice(3, doAt).filter((w) => w.text !== ';').flatMap((w) => this.expand(w))
    let status = 0
    for (const item of items) {
      this.vars.set(name, item)
      status = await this.list(statements(body))
    }
    return status
  }

  /** A word after `$v` and `$(seq a b)` expansion (unquoted command substitutions split into words). */
  private expand(w: Word): string[] {
    const seq = /^\$\(seq\s+(\d+)(?:\s+(\d+))?\)$/.exec(w.text)
    if (seq && !w.quoted) {
      const [from, to] = seq[2] === undefined ? [1, Number(seq[1])] : [Number(seq[1]), Number(seq[2])]
      return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => String(from + i))
    }
    return [w.text.replace(/\$(\w+)/g, (_, v: string) => this.vars.get(v) ?? '')]
  }

  private async command(words: Word[], io: ShellIO): Promise<number> {
    const toStderr = words.some((w) => w.text === '>&2' && !w.quoted)
    const args = words.filter((w) => !(w.text === '>&2' && !w.quoted)).flatMap((w) => this.expand(w))
    const write = toStderr ? io.err : io.out
    const [name = '', ...rest] = args
    switch (name.replace(/^\/(usr\/)?bin\//, '')) {
      case 'echo': {
        const noNewline = rest[0] === '-n'
        write(`${(noNewline ? rest.slice(1) : rest).join(' ')}${noNewline ? '' : '\n'}`)
        return 0
      }
      case 'date':
        write(`${dateText(this.io.now())}\n`)
        return 0
      case 'uptime':
        write(` ${dateText(this.io.now()).slice(11, 19)} up 0 min,  0 users,  load average: 0.00, 0.00, 0.00\n`)
        return 0
      case 'ls':
        write('bin\ndev\netc\nhome\nproc\nroot\nsys\ntmp\nusr\nvar\n')
        return 0
      case 'hostname':
        write(`${this.io.hostname}\n`)
        return 0
      case 'seq': {
        const [from, to] = rest.length > 1 ? [Number(rest[0]), Number(rest[1])] : [1, Number(rest[0])]
        for (let i = from; i <= to; i++) write(`${i}\n`)
        return 0
      }
      case 'sleep':
        await new Promise((r) => setTimeout(r, Math.min(Number(rest[0] ?? 0), 3600) * 1000))
        return 0
      case 'true':
      case ':':
        return 0
      case 'false':
        return 1
      case 'exit':
        throw new Exit(Number(rest[0] ?? 0))
      default:
        io.err(`sh: ${name}: not found\n`)
        return 127
    }
  }
}
