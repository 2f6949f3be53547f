/** Small renderings of Go values that kubectl's messages embed. */
import { goQuote } from '../util/go-quote.js'

export { goQuote }

/** klog's header for a warning line: `W1122 00:34:13.014838   19568 helpers.go:702] `. */
export function klogWarning(message: string, where = 'helpers.go:702', now = new Date()): string {
  const p2 = (n: number) => String(n).padStart(2, '0')
  const micro = String(now.getMilliseconds() * 1000).padStart(6, '0')
  const header = `W${p2(now.getMonth() + 1)}${p2(now.getDate())} ${p2(now.getHours())}:${p2(now.getMinutes())}:${p2(now.getSeconds())}.${micro} ${String(process.pid).padStart(7, ' ')} ${where}] `
  return header + message + '\n'
}
