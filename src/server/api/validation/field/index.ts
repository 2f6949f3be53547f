/**
 * The field-error framework of the validation files (the reference's
 * `k8s.io/apimachinery/pkg/util/validation/field`): paths, errors and their messages.
 */
export { Path, type PathLike, pathString } from './path.js'
export {
  type BadValue,
  type CauseLike,
  type ErrorList,
  type ErrorType,
  FieldError,
  OMIT_VALUE,
  aggregateMessage,
  duplicate,
  forbidden,
  internalError,
  invalid,
  notFound,
  notSupported,
  renderBadValue,
  required,
  tooLong,
  tooMany,
  typeInvalid,
} from './errors.js'
export { Float64, Rendered, type StructField, goFloat, goInt, goJSON, goQuote, goV, structJSON } from './go-format.js'
