/**
 * Field-level validation errors, as the reference's
 * `k8s.io/apimachinery/pkg/util/validation/field/errors.go` (release 1.35): one error per bad
 * field, with a type (the Status cause's `reason`), the field's path, the bad value and a
 * detail. `message` is the reference's ErrorBody(), `toString()` its Error(); so a FieldError
 * is also a Status cause (`reason`, `message`, `field`).
 */
import { Float64, Rendered, goFloat, goInt, goJSON, goQuote } from './go-format.js'
import { type PathLike, pathString } from './path.js'

export type ErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid'

/** ErrorType.String(): the words that start a message. */
const TYPE_TEXT: Record<ErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
}

/** The reference's omitValue: the message names no value (TooMany without a count). */
export const OMIT_VALUE: unique symbol = Symbol('omitValue')

/**
 * A bad value: decoded JSON (strings, numbers, booleans, null, maps, lists), a `Float64`
 * for the reference's floats, a `Rendered` text for its Stringers and `%#v` structs, or
 * OMIT_VALUE.
 */
export type BadValue = unknown

export class FieldError {
  constructor(
    readonly type: ErrorType,
    readonly field: string,
    readonly badValue: BadValue,
    readonly detail: string,
  ) {}

  /** The Status cause's reason. */
  get reason(): ErrorType {
    return this.type
  }

  /** ErrorBody(): `<Type>[: <value>][: <detail>]`, the Status cause's message. */
  get message(): string {
    let s: string
    switch (this.type) {
      case 'FieldValueRequired':
      case 'FieldValueForbidden':
      case 'FieldValueTooLong':
      case 'InternalError':
        s = TYPE_TEXT[this.type]
        break
      default:
        s = this.badValue === OMIT_VALUE ? TYPE_TEXT[this.type] : `${TYPE_TEXT[this.type]}: ${renderBadValue(this.badValue)}`
    }
    return this.detail.length > 0 ? `${s}: ${this.detail}` : s
  }

  /** Error(): `<field>: <body>`, the text the aggregated message joins. */
  toString(): string {
    return `${this.field}: ${this.message}`
  }

  /** The plain Status cause (what `details.causes` carries). */
  toCause(): { reason: string; message: string; field: string } {
    return { reason: this.type, message: this.message, field: this.field }
  }
}

/**
 * The bad value as ErrorBody prints it: int64, int32, float and bool with `%v`, strings with
 * `%q`, anything else as its JSON.
 */
export function renderBadValue(v: BadValue): string {
  if (typeof v === 'string') return goQuote(v)
  if (typeof v === 'number') return Number.isInteger(v) ? goInt(v) : goFloat(v)
  if (typeof v === 'boolean') return String(v)
  if (v instanceof Float64) return goFloat(v.value)
  if (v instanceof Rendered) return v.text
  return goJSON(v)
}

/** An ErrorList: the reference's `field.ErrorList`, in the order the checks ran. */
export type ErrorList = FieldError[]

export function notFound(field: PathLike, value: BadValue): FieldError {
  return new FieldError('FieldValueNotFound', pathString(field), value, '')
}

export function required(field: PathLike, detail = ''): FieldError {
  return new FieldError('FieldValueRequired', pathString(field), '', detail)
}

export function duplicate(field: PathLike, value: BadValue): FieldError {
  return new FieldError('FieldValueDuplicate', pathString(field), value, '')
}

export function invalid(field: PathLike, value: BadValue, detail: string): FieldError {
  return new FieldError('FieldValueInvalid', pathString(field), value, detail)
}

export function typeInvalid(field: PathLike, value: BadValue, detail: string): FieldError {
  return new FieldError('FieldValueTypeInvalid', pathString(field), value, detail)
}

/** NotSupported: the detail lists the supported values, each quoted, in the given order. */
export function notSupported(field: PathLike, value: BadValue, validValues: readonly string[]): FieldError {
  const detail = validValues.length > 0 ? `supported values: ${validValues.map(goQuote).join(', ')}` : ''
  return new FieldError('FieldValueNotSupported', pathString(field), value, detail)
}

export function forbidden(field: PathLike, detail: string): FieldError {
  return new FieldError('FieldValueForbidden', pathString(field), '', detail)
}

/** TooLong (in bytes; a negative maximum says only "value is too long"); the value is never printed. */
export function tooLong(field: PathLike, maxLength: number): FieldError {
  const detail = maxLength >= 0 ? `may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}` : 'value is too long'
  return new FieldError('FieldValueTooLong', pathString(field), '<value omitted>', detail)
}

/** TooMany: a negative actual quantity is not printed, a negative maximum not stated. */
export function tooMany(field: PathLike, actualQuantity: number, maxQuantity: number): FieldError {
  const detail = maxQuantity >= 0 ? `must have at most ${maxQuantity} ${maxQuantity === 1 ? 'item' : 'items'}` : 'has too many items'
  return new FieldError('FieldValueTooMany', pathString(field), actualQuantity >= 0 ? actualQuantity : OMIT_VALUE, detail)
}

export function internalError(field: PathLike, err: Error | string): FieldError {
  return new FieldError('InternalError', pathString(field), null, typeof err === 'string' ? err : err.message)
}

/** Something carrying a field error's three Status fields (a FieldError, or an older plain cause). */
export interface CauseLike {
  readonly reason: string
  readonly message: string
  readonly field: string
}

/**
 * ErrorList.ToAggregate().Error(): the distinct `<field>: <body>` texts in order; one is
 * printed alone, several in brackets joined by ", ".
 */
export function aggregateMessage(list: readonly CauseLike[]): string {
  const seen = new Set<string>()
  const texts: string[] = []
  for (const e of list) {
    const text = `${e.field}: ${e.message}`
    if (seen.has(text)) continue
    seen.add(text)
    texts.push(text)
  }
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`
}
