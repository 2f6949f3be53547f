/**
 * Small rules the core group's validation shares (pkg/apis/core/validation/validation.go):
 * DNS names and qualified names as field errors, ports by number or name, quantities.
 */
import { type ErrorList, type Path, Rendered, internalError, invalid } from '../field/index.js'
import { IS_NEGATIVE_ERROR_MSG } from '../objectmeta.js'
import { type Quantity, ZERO_QUANTITY, compareQuantity, parseQuantity, quantityString } from '../quantity.js'
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidPortName, isValidPortNum } from '../strings.js'

export const IS_NOT_POSITIVE_ERROR_MSG = 'must be greater than zero'
export const IS_NOT_INTEGER_ERROR_MSG = 'must be an integer'
export const FILE_MODE_ERROR_MSG = 'must be a number between 0 and 0777 (octal), both inclusive'

/**
 * One Invalid error of the value per message, in order. A loop, not `messages.map(m => ...)`:
 * that is a closure per call, and these run for nearly every name a valid object has.
 */
function invalidEach(fldPath: Path, value: unknown, messages: readonly string[]): ErrorList {
  const errs: ErrorList = []
  for (let i = 0; i < messages.length; i++) errs.push(invalid(fldPath, value, messages[i]!))
  return errs
}

export function validateDNS1123Label(value: string, fldPath: Path): ErrorList {
  return invalidEach(fldPath, value, isDNS1123Label(value))
}

export function validateDNS1123Subdomain(value: string, fldPath: Path): ErrorList {
  return invalidEach(fldPath, value, isDNS1123Subdomain(value))
}

export function validateQualifiedName(value: string, fldPath: Path): ErrorList {
  return invalidEach(fldPath, value, isQualifiedName(value))
}

/** ValidatePortNumOrName: an IntOrString port. */
export function validatePortNumOrName(value: unknown, fldPath: Path): ErrorList {
  // An absent IntOrString is the integer 0.
  const port = value === undefined || value === null ? 0 : value
  if (typeof port === 'number') return invalidEach(fldPath, port, isValidPortNum(port))
  if (typeof port === 'string') return invalidEach(fldPath, port, isValidPortName(port))
  return [internalError(fldPath, 'unknown type: 2')]
}

/** A decoded quantity (the typed decoder already refused unparsable ones; those read as zero). */
export function quantity(value: unknown): Quantity {
  return parseQuantity(value) ?? ZERO_QUANTITY
}

/** The bad value of a quantity passed as itself (json.Marshal: its canonical text, quoted). */
export function quantityValue(q: Quantity): Rendered {
  return new Rendered(JSON.stringify(quantityString(q)))
}

/** ValidateNonnegativeQuantity (the value printed as its String()). */
export function validateNonnegativeQuantity(q: Quantity, fldPath: Path): ErrorList {
  return compareQuantity(q, ZERO_QUANTITY) < 0 ? [invalid(fldPath, quantityString(q), IS_NEGATIVE_ERROR_MSG)] : []
}

/** ValidatePositiveQuantityValue. */
export function validatePositiveQuantityValue(q: Quantity, fldPath: Path): ErrorList {
  return compareQuantity(q, ZERO_QUANTITY) <= 0 ? [invalid(fldPath, quantityString(q), IS_NOT_POSITIVE_ERROR_MSG)] : []
}

/** A file mode: between 0 and 0777. */
export function validFileMode(mode: unknown): boolean {
  return typeof mode !== 'number' || (mode >= 0 && mode <= 0o777)
}
