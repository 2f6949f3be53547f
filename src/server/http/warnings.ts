/**
 * `Warning: 299` response headers as the reference's warning recorder writes them: deduplicated
 * texts, quoted with only `"` and `\` escaped (net.NewWarningHeader), the UTF-8 bytes of the
 * text sent as they are, and the reference's size bound: once the texts pass 4,096 characters,
 * each is cut to 256 and texts that would still pass the bound are left out.
 *
 * Node refuses header values with characters above U+00FF (a 500 over HTTP/1.1, a reset stream
 * over HTTP/2 after the write has happened) and writes header strings as Latin-1: the value is
 * handed over as the Latin-1 reading of its UTF-8 bytes, so the wire carries the same bytes as
 * the reference's. Line breaks and other control characters, which no header may carry, become
 * spaces (Go's server does so for CR and LF).
 */
import type { Response } from './types.js'

const TRUNCATE_AT_TOTAL_RUNES = 4 * 1024
const TRUNCATE_ITEM_RUNES = 256

interface Recorder {
  seen: Set<string>
  texts: string[]
  totalRunes: number
  truncating: boolean
}

const RECORDER = Symbol('warnings')
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

function runes(text: string): number {
  let n = 0
  for (const _ of text) n++
  return n
}

function truncateRunes(text: string, max: number): string {
  return [...text].slice(0, max).join('')
}

/** The header value for one text: `299 - "<text>"` with Go's quoting, as Latin-1 bytes of its UTF-8. */
export function warningHeaderValue(text: string): string {
  const quoted = `299 - "${text.replace(/["\\]/g, (c) => `\\${c}`)}"`
  // eslint-disable-next-line no-control-regex
  const safe = quoted.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, ' ')
  return Buffer.from(safe, 'utf8').toString('latin1')
}

/** Records warnings for the response; they are written as headers at once (before the body). */
export function addWarnings(res: Response, texts: readonly string[]): void {
  if (res.headersSent) return
  const holder = res as unknown as { [RECORDER]?: Recorder }
  const r = (holder[RECORDER] ??= { seen: new Set(), texts: [], totalRunes: 0, truncating: false })
  for (const original of texts) {
    if (original === '' || r.seen.has(original)) continue
    // Lone surrogates are not UTF-8: the reference drops such a warning.
    if (LONE_SURROGATE.test(original)) continue
    r.seen.add(original)
    let text = original
    if (!r.truncating) {
      r.totalRunes += runes(text)
      if (r.totalRunes > TRUNCATE_AT_TOTAL_RUNES) {
        r.truncating = true
        r.texts = r.texts.map((t) => truncateRunes(t, TRUNCATE_ITEM_RUNES))
        r.totalRunes = r.texts.reduce((n, t) => n + runes(t), 0)
      }
    }
    if (r.truncating) {
      text = truncateRunes(text, TRUNCATE_ITEM_RUNES)
      const n = runes(text)
      if (r.totalRunes + n > TRUNCATE_AT_TOTAL_RUNES) continue
      r.totalRunes += n
    }
    r.texts.push(text)
  }
  if (r.texts.length > 0) res.setHeader('Warning', r.texts.map(warningHeaderValue))
}
