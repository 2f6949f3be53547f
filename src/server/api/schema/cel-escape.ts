/** A schema property name as a CEL field name, after the reference's apiserver/pkg/cel/escaping.go. */

const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while'])
const ESCAPABLE = /^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/

/** escaping.go's Escape: a property name as a CEL field name, or undefined when it cannot be one. */
export function escapeProperty(name: string): string | undefined {
  if (CEL_RESERVED.has(name)) return `__${name}__`
  if (!ESCAPABLE.test(name)) return undefined
  return name.replace(/__|\.|-|\//g, (m) => ({ __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' })[m]!)
}
