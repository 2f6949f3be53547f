/**
 * The reference's text log line: `Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg`, e.g.
 * `I1121 22:44:39.123456   1234 server.ts:12] Serving securely on 127.0.0.1:6443`.
 */
export type Severity = 'I' | 'W' | 'E' | 'F'

const pad = (n: number, width: number) => String(n).padStart(width, '0')

/** `when` in microseconds since the epoch. */
export function formatLine(severity: Severity, whenMicros: number, pid: number, source: string, message: string): string {
  const when = new Date(Math.floor(whenMicros / 1000))
  const stamp =
    `${pad(when.getMonth() + 1, 2)}${pad(when.getDate(), 2)} ` +
    `${pad(when.getHours(), 2)}:${pad(when.getMinutes(), 2)}:${pad(when.getSeconds(), 2)}.${pad(Math.floor(whenMicros % 1_000_000), 6)}`
  const body = message.endsWith('\n') ? message : `${message}\n`
  return `${severity}${stamp} ${String(pid).padStart(7)} ${source}] ${body}`
}

/** `file.ts:line` of the code that called the logger, read from a stack trace. */
export function callerSource(depth: number): string {
  const stack = new Error().stack?.split('\n') ?? []
  const frame = stack[depth + 1] ?? ''
  const m = /([^/\\()]+?):(\d+):\d+\)?$/.exec(frame)
  return m ? `${m[1].replace(/\.js$/, '.ts')}:${m[2]}` : '???:1'
}
