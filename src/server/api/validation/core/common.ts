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

export function validateDNS1123Label(value: string, fldPath: Path): ErrorList {
  return isDNS1123Label(value).map((m) => invalid(fldPath, value, m))
}

export function validateDNS1123Subdomain(value: string, fldPath: Path): ErrorList {
  return isDNS1123Subdomain(value).map((m) => invalid(fldPath, value, m))
}

export function validateQualifiedName(value: string, fldPath: Path): ErrorList {
  return isQualifiedName(value).map((m) => invalid(fldPath, value, m))
}

/** ValidatePortNumOrName: an IntOrString port. */
export function validatePortNumOrName(value: unknown, fldPath: Path): ErrorList {
  // An absent IntOrString is the integer 0.
  const port = value === undefined || value === null ? 0 : value
  if (typeof port === 'number') return isValidPortNum(port).map((m) => invalid(fldPath, port, m))
  if (typeof port === 'string') return isValidPortName(port).map((m) => invalid(fldPath, port, m))
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
