/**
 * The texts of an answer's Warning headers, as kubectl prints them (`Warning: <text>`): each
 * value is `299 - "<text>"`, Go-quoted, its UTF-8 bytes carried as Latin-1 (http/warnings.ts
 * writes them so).
 */
export function warningTexts(header: string | readonly string[] | undefined): string[] {
  if (header === undefined) return []
  const values = typeof header === 'string' ? [header] : header
  const texts: string[] = []
  for (const value of values) {
    const utf8 = Buffer.from(value, 'latin1').toString('utf8')
    const m = /^\d{3} \S+ "((?:[^"\\]|\\.)*)"/.exec(utf8)
    if (m) texts.push(m[1]!.replace(/\\(.)/g, '$1'))
  }
  return texts
}
