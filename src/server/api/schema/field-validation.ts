/**
 * The `fieldValidation` directive (Strict, Warn, Ignore; Warn when absent, as the reference)
 * and the `Warning: 299` headers its Warn mode sends, one per unknown field.
 */
import { errors } from '../status-errors.js'

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore'

export function fieldValidationOf(query: URLSearchParams): FieldValidation {
  const v = query.get('fieldValidation')
  if (v === null || v === '') return 'Warn'
  if (v === 'Strict' || v === 'Warn' || v === 'Ignore') return v
  throw errors.badRequest(`fieldValidation: Unsupported value: ${JSON.stringify(v)}: supported values: "Ignore", "Strict", "Warn"`)
}

/** `unknown field "spec.foo"`, as the strict decoder words it. */
export function unknownFieldMessage(path: string): string {
  return `unknown field ${JSON.stringify(path)}`
}

/** runtime.StrictDecodingError's text: its errors joined with ", ". */
export function strictDecodingError(messages: readonly string[]): string {
  return `strict decoding error: ${messages.join(', ')}`
}

/** Adds `Warning: 299 - "<text>"` headers (the reference's warning recorder). */
export { addWarnings } from '../../http/warnings.js'
