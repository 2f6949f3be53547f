/**
 * `--request-timeout`, read as clientcmd's ParseTimeout does: a bare non-negative integer is
 * seconds, anything else a Go duration with units (`500ms`, `1m30s`); `0` means no timeout.
 * A negative duration also means none (Go's http.Client ignores a timeout <= 0).
 */
import { parseGoDuration } from '../options/go-syntax.js'
import { ClientConfigError } from './errors.js'

export const INVALID_TIMEOUT =
  'Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)'

/** Milliseconds, 0 for none. Throws ClientConfigError with kubectl's text. */
export function parseRequestTimeout(value: string | undefined): number {
  if (value === undefined || value === '') return 0
  // strconv.ParseInt(s, 10, 64) with a non-negative result.
  if (/^[+-]?\d+$/.test(value)) {
    const n = Number(value)
    if (n >= 0 && Number.isSafeInteger(n)) return n * 1000
  }
  let ms: number
  try {
    ms = parseGoDuration(value)
  } catch {
    throw new ClientConfigError(INVALID_TIMEOUT)
  }
  return ms > 0 ? ms : 0
}
