/** Server-side apply: field sets, merge, conflicts and managedFields, without a server. */
export { FieldSet, FieldsV1Error, pathString } from './fieldpath.js'
export { type TypeNode, builtInType, crdType, DEDUCED, fieldType, isNamedField, resolve } from './schema.js'
export { ApplySchemaError, compare, merge, removeItems, toFieldSet, validationErrors } from './walk.js'
export {
  ApplyBadRequest,
  ApplyConflictError,
  type FieldManagerScope,
  LAST_APPLIED_ANNOTATION,
  type ManagedFieldsEntry,
  applyConfiguration,
  decodeManagedFields,
  encodeManagedFields,
  nowRfc3339,
  onlyStatus,
  updateManagedFields,
  withoutStatus,
} from './field-manager.js'
