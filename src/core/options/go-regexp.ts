/**
 * Whether a regular expression compiles under Go's RE2 syntax, and if not, Go's error text
 * (`error parsing regexp: <code>: \`<fragment>\``). JavaScript's engine does the parsing; its
 * errors are mapped to Go's words, and the Perl features RE2 refuses are refused here too.
 */
export function goRegexpError(expr: string): string | undefined {
  const unsupported = /\(\?(<?[=!])/.exec(expr)
  if (unsupported) return `error parsing regexp: invalid or unsupported Perl syntax: \`${unsupported[0]}\``
  const backReference = /\\[1-9]/.exec(expr)
  if (backReference) return `error parsing regexp: invalid escape sequence: \`${backReference[0]}\``
  try {
    new RegExp(expr)
    return undefined
  } catch (err) {
    const js = (err as Error).message
    if (/Unterminated group/.test(js)) return `error parsing regexp: missing closing ): \`${expr}\``
    if (/Unmatched '\)'/.test(js)) return `error parsing regexp: unexpected ): \`${expr}\``
    if (/Unterminated character class/.test(js)) return `error parsing regexp: missing closing ]: \`${expr.slice(expr.lastIndexOf('['))}\``
    if (/\\ at end of pattern/.test(js)) return 'error parsing regexp: trailing backslash at end of expression: ``'
    if (/Nothing to repeat/.test(js)) {
      const op = /(^|[(|])([*+?]|\{\d+(,\d*)?\})/.exec(expr)
      return `error parsing regexp: missing argument to repetition operator: \`${op ? op[2] : '*'}\``
    }
    return `error parsing regexp: ${js.replace(/^Invalid regular expression: \/.*\/[a-z]*: /, '')}: \`${expr}\``
  }
}
