/**
 * Validation of apiextensions.k8s.io/v1 CustomResourceDefinitions, after the reference's
 * `staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go`.
 * The reference validates the internal form (apiextensions-internal.ts): a schema, subresources
 * or printer columns identical in every version are reported at `spec.validation`,
 * `spec.subresources` and `spec.additionalPrinterColumns`. The structural-schema rules are in
 * apiextensions-structural.ts; custom resources themselves are validated in ../schema/.
 *
 * The `x-kubernetes-validations` rules are compiled (../schema/cel-rules.ts) and their estimated
 * cost held to the reference's limits (apiextensions-cel-cost.ts). Not reproduced: the validation of `default`s
 * against their schema, and the caBundle of a conversion webhook.
 */
import { type KubeObject, isPlainObject } from '../registry/object.js'
import { type ErrorList, Path, duplicate, forbidden, invalid, notSupported, required, tooMany } from './field/index.js'
import { type Obj, arr, obj, str } from './helpers.js'
import { type InternalSpec, type InternalVersion, schemaValue, toInternalSpec, versionsValue } from './apiextensions-internal.js'
import { validateStructural } from './apiextensions-structural.js'
import { validateImmutableField } from './objectmeta.js'
import { isDNS1035Label, isDNS1123Subdomain } from './strings.js'
import { validateWebhookService, validateWebhookURL } from './webhook-client.js'
import { compileNodeRules } from '../schema/cel-rules.js'
import { type CelCostContext, childCostContext, rootCostContext, ruleCostErrors, totalCostErrors } from './apiextensions-cel-cost.js'
import { deepEqual } from '../../../core/patch/index.js'
import { Rendered } from './field/go-format.js'

const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string']
const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password']
const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string']
const ACCEPTED_CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1']
const SUPPORTED_VALIDATION_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired']
const MAX_SELECTABLE_FIELDS = 8
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion'])

/** The JSONSchemaProps fields (Go names, declaration order) and their JSON names, for the root rule of a status subresource. */
const SCHEMA_FIELDS: readonly [string, string][] = [
  ['ID', 'id'], ['Schema', '$schema'], ['Ref', '$ref'], ['Description', 'description'], ['Type', 'type'], ['Nullable', 'nullable'], ['Format', 'format'], ['Title', 'title'],
  ['Default', 'default'], ['Maximum', 'maximum'], ['ExclusiveMaximum', 'exclusiveMaximum'], ['Minimum', 'minimum'], ['ExclusiveMinimum', 'exclusiveMinimum'], ['MaxLength', 'maxLength'],
  ['MinLength', 'minLength'], ['Pattern', 'pattern'], ['MaxItems', 'maxItems'], ['MinItems', 'minItems'], ['UniqueItems', 'uniqueItems'], ['MultipleOf', 'multipleOf'], ['Enum', 'enum'],
  ['MaxProperties', 'maxProperties'], ['MinProperties', 'minProperties'], ['Required', 'required'], ['Items', 'items'], ['AllOf', 'allOf'], ['OneOf', 'oneOf'], ['AnyOf', 'anyOf'], ['Not', 'not'],
  ['Properties', 'properties'], ['AdditionalProperties', 'additionalProperties'], ['PatternProperties', 'patternProperties'], ['Dependencies', 'dependencies'], ['AdditionalItems', 'additionalItems'],
  ['Definitions', 'definitions'], ['ExternalDocs', 'externalDocs'], ['Example', 'example'], ['XPreserveUnknownFields', 'x-kubernetes-preserve-unknown-fields'],
  ['XEmbeddedResource', 'x-kubernetes-embedded-resource'], ['XIntOrString', 'x-kubernetes-int-or-string'], ['XListMapKeys', 'x-kubernetes-list-map-keys'], ['XListType', 'x-kubernetes-list-type'],
  ['XMapType', 'x-kubernetes-map-type'], ['XValidations', 'x-kubernetes-validations'],
]
const ALLOWED_AT_ROOT = ['Description', 'Type', 'Format', 'Title', 'Maximum', 'ExclusiveMaximum', 'Minimum', 'ExclusiveMinimum', 'MaxLength', 'MinLength', 'Pattern', 'MaxItems', 'MinItems', 'UniqueItems', 'MultipleOf', 'Required', 'Items', 'Properties', 'ExternalDocs', 'Example', 'XPreserveUnknownFields', 'XValidations']

/** validationOptions: what the reference requires of a new CRD, relaxed on update where the old one already broke it. */
interface Options {
  requireRecognizedConversionReviewVersion: boolean
  requireImmutableNames: boolean
  requireOpenAPISchema: boolean
  requireValidPropertyType: boolean
  requireStructuralSchema: boolean
  requireAtomicSetType: boolean
  requireMapListKeysMapSetValidation: boolean
  /** On update, the versions whose schema did not change: their rules skip the per-expression cost limit. */
  versionsWithUnchangedSchemas?: ReadonlySet<string>
  suppressPerExpressionCost?: boolean
}

/** suppressExpressionCostForUnchangedSchema. */
function suppressCostForUnchangedSchema(opts: Options, version: string): Options {
  return opts.versionsWithUnchangedSchemas?.has(version) ? { ...opts, suppressPerExpressionCost: true } : opts
}

/** findVersionsWithUnchangedSchemas: GetSchemaForVersion is the version's schema, else the top-level one. */
function versionsWithUnchangedSchemas(spec: InternalSpec, oldSpec: InternalSpec): Set<string> {
  const schemaFor = (s: InternalSpec, name: string): unknown => {
    const v = s.versions.find((x) => x.name === name)
    if (!v) return undefined
    return isPlainObject(v.schema) ? v.schema.openAPIV3Schema : s.validation?.openAPIV3Schema
  }
  const unchanged = new Set<string>()
  for (const v of spec.versions) {
    const before = schemaFor(oldSpec, v.name)
    if (oldSpec.versions.some((x) => x.name === v.name) && deepEqual(schemaFor(spec, v.name), before)) unchanged.add(v.name)
  }
  return unchanged
}

const CREATE_OPTIONS: Options = {
  requireRecognizedConversionReviewVersion: true,
  requireImmutableNames: false,
  requireOpenAPISchema: true,
  requireValidPropertyType: true,
  requireStructuralSchema: true,
  requireAtomicSetType: true,
  requireMapListKeysMapSetValidation: true,
}

const SPEC = Path.of('spec')
const isZero = (v: unknown): boolean => v === undefined || v === null || v === false || v === '' || v === 0 || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0)

/** The name rule's second half (NameIsDNSSubdomain is the strategy's validateName): the name is `<plural>.<group>`. */
function validateCRDName(o: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const name = o.metadata.name ?? ''
  const requiredName = `${str(obj(spec.names).plural)}.${str(spec.group)}`
  const errs: ErrorList = []
  if (typeof o.metadata.generateName === 'string' && o.metadata.generateName !== '' && o.metadata.generateName !== requiredName) {
    errs.push(invalid(Path.of('metadata', 'generateName'), o.metadata.generateName, 'must be spec.names.plural+"."+spec.group'))
  }
  if (name !== '' && name !== requiredName) errs.push(invalid(Path.of('metadata', 'name'), name, 'must be spec.names.plural+"."+spec.group'))
  return errs
}

/** ValidateCustomResourceDefinition (after ValidateObjectMeta with NameIsDNSSubdomain, which the generic store runs). */
export function ValidateCustomResourceDefinition(o: KubeObject): ErrorList {
  const spec = toInternalSpec(obj(o.spec))
  return [
    ...validateCRDName(o),
    ...validateCustomResourceDefinitionSpec(spec, CREATE_OPTIONS, SPEC),
    ...ValidateCustomResourceDefinitionStatus(obj(o.status), Path.of('status')),
    ...ValidateCustomResourceDefinitionStoredVersions(obj(o.status).storedVersions, spec.versions, Path.of('status', 'storedVersions')),
    ...validateAPIApproval(o, undefined),
    ...validatePreserveUnknownFields(spec, undefined),
  ]
}

/** ValidateCustomResourceDefinitionUpdate (after ValidateObjectMetaUpdate, which the generic store runs). */
export function ValidateCustomResourceDefinitionUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const spec = toInternalSpec(obj(o.spec))
  const oldSpec = toInternalSpec(obj(old.spec))
  const oldConversion = oldSpec.conversion
  const opts: Options = {
    requireRecognizedConversionReviewVersion: !oldConversion || hasValidConversionReviewVersionOrEmpty(arr(oldConversion.conversionReviewVersions)),
    requireImmutableNames: isEstablished(old),
    requireOpenAPISchema: allVersionsSpecifyOpenAPISchema(oldSpec),
    requireValidPropertyType: !schemas(oldSpec).some((s) => schemaHas(s, (x) => typeof x.type === 'string' && x.type !== '' && !OPENAPI_V3_TYPES.includes(x.type))),
    requireStructuralSchema: !schemas(oldSpec).some((s) => validateStructural(Path.of(''), s).length > 0),
    requireAtomicSetType: !schemas(oldSpec).some((s) => schemaHas(s, hasNonAtomicSetType)),
    requireMapListKeysMapSetValidation: !schemas(oldSpec).some((s) => schemaHas(s, (x) => validateMapListKeysMapSet(x, Path.of('')).length > 0)),
    versionsWithUnchangedSchemas: versionsWithUnchangedSchemas(spec, oldSpec),
  }
  const errs = validateCustomResourceDefinitionSpec(spec, opts, SPEC)
  if (opts.requireImmutableNames) {
    errs.push(...validateImmutableField(spec.scope, oldSpec.scope, SPEC.child('scope')))
    errs.push(...validateImmutableField(str(spec.names.kind), str(oldSpec.names.kind), SPEC.child('names', 'kind')))
  }
  errs.push(...validateImmutableField(spec.group, oldSpec.group, SPEC.child('group')))
  errs.push(...validateImmutableField(str(spec.names.plural), str(oldSpec.names.plural), SPEC.child('names', 'plural')))
  errs.push(...ValidateCustomResourceDefinitionStatus(obj(o.status), Path.of('status')))
  errs.push(...ValidateCustomResourceDefinitionStoredVersions(obj(o.status).storedVersions, spec.versions, Path.of('status', 'storedVersions')))
  errs.push(...validateAPIApproval(o, old))
  errs.push(...validatePreserveUnknownFields(spec, oldSpec))
  return errs
}

/** ValidateUpdateCustomResourceDefinitionStatus (the status subresource). */
export function ValidateUpdateCustomResourceDefinitionStatus(o: KubeObject): ErrorList {
  return ValidateCustomResourceDefinitionStatus(obj(o.status), Path.of('status'))
}

function isEstablished(crd: KubeObject): boolean {
  return arr(obj(crd.status).conditions).some((c) => obj(c).type === 'Established' && obj(c).status === 'True')
}

/** ValidateCustomResourceDefinitionStoredVersions. */
export function ValidateCustomResourceDefinitionStoredVersions(storedVersions: unknown, versions: readonly InternalVersion[], fldPath: Path): ErrorList {
  const stored = arr(storedVersions).map((v) => str(v))
  // A CRD created without a storage version has a nil list (PrepareForCreate appends nothing).
  if (stored.length === 0) return [invalid(fldPath, null, 'must have at least one stored version')]
  const errs: ErrorList = []
  const remaining = new Map<string, number>()
  stored.forEach((v, i) => remaining.set(v, i))
  for (const v of versions) {
    const ok = remaining.has(v.name)
    if (v.storage && !ok) errs.push(invalid(fldPath, stored, `must have the storage version ${v.name}`))
    if (ok) remaining.delete(v.name)
  }
  // The reference ranges over a Go map (a random order); here the order of status.storedVersions.
  for (const [v, i] of [...remaining].sort((a, b) => a[1] - b[1])) {
    errs.push(invalid(fldPath.index(i), v, `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`))
  }
  return errs
}

/** validateDeprecationWarning. */
function validateDeprecationWarning(deprecated: boolean, warning: string | undefined): string[] {
  if (!deprecated && warning !== undefined) return ['can only be set for deprecated versions']
  if (warning === undefined) return []
  const errs: string[] = []
  if (Buffer.byteLength(warning) > 256) errs.push('must be <= 256 characters long')
  if (warning.length === 0) errs.push('must not be an empty string')
  let index = 0
  for (const ch of warning) {
    if (/\p{Cc}/u.test(ch)) {
      errs.push(`must only contain printable UTF-8 characters; control character found at index ${index}`)
      break
    }
    if (/[\p{Cf}\p{Co}\p{Cs}\p{Cn}\p{Zl}\p{Zp}]/u.test(ch) || (/\p{Zs}/u.test(ch) && ch !== ' ')) {
      errs.push(`must only contain printable UTF-8 characters; non-printable character found at index ${index}`)
      break
    }
    index += Buffer.byteLength(ch)
  }
  return errs
}

/** validateCustomResourceDefinitionVersion. */
function validateCustomResourceDefinitionVersion(version: InternalVersion, fldPath: Path, statusEnabled: boolean, opts: Options): ErrorList {
  const errs: ErrorList = []
  for (const e of validateDeprecationWarning(version.deprecated, version.deprecationWarning)) errs.push(invalid(fldPath.child('deprecationWarning'), version.deprecationWarning ?? null, e))
  errs.push(...validateCustomResourceDefinitionValidation(version.schema, statusEnabled, suppressCostForUnchangedSchema(opts, version.name), fldPath.child('schema')))
  errs.push(...ValidateCustomResourceDefinitionSubresources(version.subresources, fldPath.child('subresources')))
  version.additionalPrinterColumns.forEach((c, i) => errs.push(...ValidateCustomResourceColumnDefinition(c, fldPath.child('additionalPrinterColumns').index(i))))
  if (version.selectableFields.length > 0) {
    const schema = obj(version.schema).openAPIV3Schema
    if (!isPlainObject(schema)) errs.push(invalid(fldPath.child('selectableFields'), '', 'selectableFields may only be set when version.schema.openAPIV3Schema is not included'))
    else errs.push(...ValidateCustomResourceSelectableFields(version.selectableFields, schema, fldPath.child('selectableFields')))
  }
  return errs
}

function validateEnumStrings(fldPath: Path, value: string, accepted: string[]): ErrorList {
  if (value === '') return [required(fldPath, '')]
  return accepted.includes(value) ? [] : [notSupported(fldPath, value, accepted)]
}

function schemas(spec: InternalSpec): Obj[] {
  const out: Obj[] = []
  const top = obj(spec.validation).openAPIV3Schema
  if (isPlainObject(top)) out.push(top)
  for (const v of spec.versions) {
    const s = obj(v.schema).openAPIV3Schema
    if (isPlainObject(s)) out.push(s)
  }
  return out
}

function allVersionsSpecifyOpenAPISchema(spec: InternalSpec): boolean {
  if (isPlainObject(obj(spec.validation).openAPIV3Schema)) return true
  return spec.versions.every((v) => isPlainObject(obj(v.schema).openAPIV3Schema))
}

/** SchemaHas: the predicate anywhere in the schema. */
function schemaHas(s: unknown, pred: (s: Obj) => boolean): boolean {
  if (!isPlainObject(s)) return false
  if (pred(s)) return true
  const children: unknown[] = [
    ...(Array.isArray(s.items) ? s.items : [s.items]),
    ...arr(s.allOf),
    ...arr(s.anyOf),
    ...arr(s.oneOf),
    s.not,
    ...Object.values(obj(s.properties)),
    s.additionalProperties,
    ...Object.values(obj(s.patternProperties)),
    s.additionalItems,
    ...Object.values(obj(s.definitions)),
    ...Object.values(obj(s.dependencies)),
  ]
  return children.some((c) => schemaHas(c, pred))
}

function hasNonAtomicSetType(s: Obj): boolean {
  if (s['x-kubernetes-list-type'] !== 'set' || !isPlainObject(s.items)) return false
  const is = s.items
  if (is.type === 'array') return typeof is['x-kubernetes-list-type'] === 'string' && is['x-kubernetes-list-type'] !== 'atomic'
  if (is.type === 'object') return is['x-kubernetes-map-type'] !== 'atomic'
  return false
}

/** validateCustomResourceDefinitionSpec. */
function validateCustomResourceDefinitionSpec(spec: InternalSpec, optsIn: Options, fldPath: Path): ErrorList {
  const opts = { ...optsIn }
  const errs: ErrorList = []
  if (spec.group === '') errs.push(required(fldPath.child('group'), ''))
  else {
    const groupErrs = isDNS1123Subdomain(spec.group)
    if (groupErrs.length > 0) errs.push(invalid(fldPath.child('group'), spec.group, groupErrs.join(',')))
    else if (spec.group.split('.').length < 2) errs.push(invalid(fldPath.child('group'), spec.group, 'should be a domain with at least one dot'))
  }
  errs.push(...validateEnumStrings(fldPath.child('scope'), spec.scope, ['Cluster', 'Namespaced']))

  // Pruning (preserveUnknownFields false) requires structural schemas.
  if (!spec.preserveUnknownFields) opts.requireStructuralSchema = true
  if (!isPlainObject(obj(spec.validation).openAPIV3Schema)) {
    if (opts.requireOpenAPISchema) {
      spec.versions.forEach((v, i) => {
        if (!isPlainObject(obj(v.schema).openAPIV3Schema)) errs.push(required(fldPath.child('versions').index(i).child('schema').child('openAPIV3Schema'), 'schemas are required'))
      })
    } else if (!spec.preserveUnknownFields) {
      spec.versions.forEach((v, i) => {
        if (v.served && !isPlainObject(obj(v.schema).openAPIV3Schema)) errs.push(required(fldPath.child('versions').index(i).child('schema', 'openAPIV3Schema'), 'because otherwise all fields are pruned'))
      })
    }
  }
  if (schemas(spec).some((s) => schemaHas(s, (x) => x.default !== undefined && x.default !== null))) {
    opts.requireStructuralSchema = true
    if (spec.preserveUnknownFields) errs.push(invalid(fldPath.child('preserveUnknownFields'), true, 'must be false in order to use defaults in the schema'))
  }

  let storageFlagCount = 0
  const seen = new Set<string>()
  let uniqueNames = true
  spec.versions.forEach((version, i) => {
    if (version.storage) storageFlagCount++
    if (seen.has(version.name)) uniqueNames = false
    else seen.add(version.name)
    const nameErrs = isDNS1035Label(version.name)
    if (nameErrs.length > 0) errs.push(invalid(fldPath.child('versions').index(i).child('name'), version.name, nameErrs.join(',')))
    const subresources = spec.versions.some((v) => v.subresources) ? version.subresources : spec.subresources
    errs.push(...validateCustomResourceDefinitionVersion(version, fldPath.child('versions').index(i), hasStatus(subresources), opts))
  })
  if (!uniqueNames) errs.push(invalid(fldPath.child('versions'), versionsValue(spec.versions), 'must contain unique version names'))
  if (storageFlagCount !== 1) errs.push(invalid(fldPath.child('versions'), versionsValue(spec.versions), 'must have exactly one version marked as storage version'))
  if (spec.version !== '') {
    const versionErrs = isDNS1035Label(spec.version)
    if (versionErrs.length > 0) errs.push(invalid(fldPath.child('version'), spec.version, versionErrs.join(',')))
  }

  for (const n of ['plural', 'singular', 'kind', 'listKind']) if (str(spec.names[n]) === '') errs.push(required(fldPath.child('names', n), ''))
  errs.push(...ValidateCustomResourceDefinitionNames(spec.names, fldPath.child('names')))
  const anyStatus = hasStatus(spec.subresources) || spec.versions.some((v) => hasStatus(v.subresources))
  errs.push(...validateCustomResourceDefinitionValidation(spec.validation, anyStatus, suppressCostForUnchangedSchema(opts, spec.version), fldPath.child('validation')))
  errs.push(...ValidateCustomResourceDefinitionSubresources(spec.subresources, fldPath.child('subresources')))
  spec.additionalPrinterColumns.forEach((c, i) => errs.push(...ValidateCustomResourceColumnDefinition(c, fldPath.child('additionalPrinterColumns').index(i))))
  if (spec.selectableFields.length > 0) {
    const schema = obj(spec.validation).openAPIV3Schema
    if (!spec.validation) errs.push(invalid(fldPath.child('selectableFields'), '', 'selectableFields may only be set when validations.schema is included'))
    else errs.push(...ValidateCustomResourceSelectableFields(spec.selectableFields, obj(schema), fldPath.child('selectableFields')))
  }

  const conversion = spec.conversion
  if (conversion && conversion.strategy !== 'None' && spec.preserveUnknownFields) {
    errs.push(invalid(fldPath.child('conversion').child('strategy'), conversion.strategy, 'must be None if spec.preserveUnknownFields is true'))
  }
  errs.push(...validateCustomResourceConversion(conversion, opts.requireRecognizedConversionReviewVersion, fldPath.child('conversion')))
  return errs
}

function hasStatus(subresources: Obj | undefined): boolean {
  return isPlainObject(obj(subresources).status)
}

function hasValidConversionReviewVersionOrEmpty(versions: unknown[]): boolean {
  return versions.length < 1 || versions.some((v) => ACCEPTED_CONVERSION_REVIEW_VERSIONS.includes(str(v)))
}

function validateConversionReviewVersions(versions: unknown[], requireRecognizedVersion: boolean, fldPath: Path): ErrorList {
  if (versions.length < 1) return [required(fldPath, '')]
  const errs: ErrorList = []
  const seen = new Set<string>()
  let hasAccepted = false
  versions.forEach((raw, i) => {
    const v = str(raw)
    if (seen.has(v)) {
      errs.push(invalid(fldPath.index(i), v, 'duplicate version'))
      return
    }
    seen.add(v)
    for (const e of isDNS1035Label(v)) errs.push(invalid(fldPath.index(i), v, e))
    if (ACCEPTED_CONVERSION_REVIEW_VERSIONS.includes(v)) hasAccepted = true
  })
  if (requireRecognizedVersion && !hasAccepted) errs.push(invalid(fldPath, versions, `must include at least one of ${ACCEPTED_CONVERSION_REVIEW_VERSIONS.join(', ')}`))
  return errs
}

/** validateCustomResourceConversion (in the internal form: webhookClientConfig and conversionReviewVersions under conversion). */
function validateCustomResourceConversion(conversion: InternalSpec['conversion'], requireRecognizedVersion: boolean, fldPath: Path): ErrorList {
  if (!conversion) return []
  const errs = validateEnumStrings(fldPath.child('strategy'), conversion.strategy, ['None', 'Webhook'])
  if (conversion.strategy === 'Webhook') {
    const cc = conversion.webhookClientConfig
    if (!cc) errs.push(required(fldPath.child('webhookClientConfig'), 'required when strategy is set to Webhook'))
    else {
      const hasURL = typeof cc.url === 'string'
      const hasService = isPlainObject(cc.service)
      if (hasURL === hasService) errs.push(required(fldPath.child('webhookClientConfig'), 'exactly one of url or service is required'))
      else if (hasURL) errs.push(...validateWebhookURL(fldPath.child('webhookClientConfig').child('url'), str(cc.url), true))
      else {
        const svc = obj(cc.service)
        errs.push(...validateWebhookService(fldPath.child('webhookClientConfig').child('service'), str(svc.namespace), str(svc.name), typeof svc.path === 'string' ? svc.path : undefined, typeof svc.port === 'number' ? svc.port : 443))
      }
    }
    errs.push(...validateConversionReviewVersions(arr(conversion.conversionReviewVersions), requireRecognizedVersion, fldPath.child('conversionReviewVersions')))
  } else {
    if (conversion.webhookClientConfig) errs.push(forbidden(fldPath.child('webhookClientConfig'), 'should not be set when strategy is not set to Webhook'))
    if (arr(conversion.conversionReviewVersions).length > 0) errs.push(forbidden(fldPath.child('conversionReviewVersions'), 'should not be set when strategy is not set to Webhook'))
  }
  return errs
}

/** ValidateCustomResourceDefinitionStatus. */
export function ValidateCustomResourceDefinitionStatus(status: Obj, fldPath: Path): ErrorList {
  return ValidateCustomResourceDefinitionNames(obj(status.acceptedNames), fldPath.child('acceptedNames'))
}

/** ValidateCustomResourceDefinitionNames. */
export function ValidateCustomResourceDefinitionNames(names: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const plural = str(names.plural)
  const singular = str(names.singular)
  const kind = str(names.kind)
  const listKind = str(names.listKind)
  const label = (v: string) => isDNS1035Label(v).join(',')
  if (plural !== '' && label(plural)) errs.push(invalid(fldPath.child('plural'), plural, label(plural)))
  if (singular !== '' && label(singular)) errs.push(invalid(fldPath.child('singular'), singular, label(singular)))
  if (kind !== '' && label(kind.toLowerCase())) errs.push(invalid(fldPath.child('kind'), kind, `may have mixed case, but should otherwise match: ${label(kind.toLowerCase())}`))
  if (listKind !== '' && label(listKind.toLowerCase())) errs.push(invalid(fldPath.child('listKind'), listKind, `may have mixed case, but should otherwise match: ${label(listKind.toLowerCase())}`))
  arr(names.shortNames).forEach((s, i) => {
    if (label(str(s))) errs.push(invalid(fldPath.child('shortNames').index(i), str(s), label(str(s))))
  })
  if (kind !== '' && kind === listKind) errs.push(invalid(fldPath.child('listKind'), listKind, 'kind and listKind may not be the same'))
  arr(names.categories).forEach((c, i) => {
    if (label(str(c))) errs.push(invalid(fldPath.child('categories').index(i), str(c), label(str(c))))
  })
  return errs
}

/** ValidateCustomResourceColumnDefinition. */
export function ValidateCustomResourceColumnDefinition(col: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (str(col.name) === '') errs.push(required(fldPath.child('name'), ''))
  const type = str(col.type)
  if (type === '') errs.push(required(fldPath.child('type'), `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`))
  else if (!PRINTER_COLUMN_TYPES.includes(type)) errs.push(invalid(fldPath.child('type'), type, `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`))
  const format = str(col.format)
  if (format !== '' && !PRINTER_COLUMN_FORMATS.includes(format)) errs.push(invalid(fldPath.child('format'), format, `must be one of ${PRINTER_COLUMN_FORMATS.join(',')}`))
  const jsonPath = str(col.jsonPath)
  if (jsonPath === '') errs.push(required(fldPath.child('JSONPath'), ''))
  else errs.push(...validateSimpleJSONPath(jsonPath, fldPath.child('JSONPath')))
  return errs
}

/** The schema a simple `.a.b` path leads to through properties (undefined when it leads nowhere). */
function schemaAt(schema: Obj, path: string[]): Obj | undefined {
  let cur: Obj | undefined = schema
  for (const p of path) {
    const props = obj(cur?.properties)
    if (!Object.hasOwn(props, p)) return undefined
    cur = obj(props[p])
  }
  return cur
}

/**
 * ValidateCustomResourceSelectableFields, for the simple `.a.b` paths; the reference's CEL
 * field-path parser also explains a malformed path, reported here as not found.
 */
export function ValidateCustomResourceSelectableFields(selectableFields: Obj[], schema: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const unique = new Set<string>()
  selectableFields.forEach((f, i) => {
    const p = fldPath.index(i)
    const jsonPath = str(f.jsonPath)
    if (jsonPath === '') {
      errs.push(required(p.child('jsonPath'), ''))
      return
    }
    const parts = jsonPath.startsWith('.') ? jsonPath.slice(1).split('.') : []
    const found = parts.length > 0 && parts.every((x) => x !== '') ? schemaAt(schema, parts) : undefined
    if (!found) {
      errs.push(invalid(p.child('jsonPath'), jsonPath, `is an invalid path: does not refer to a valid field`))
      return
    }
    if (parts[0] === 'metadata') errs.push(invalid(p.child('jsonPath'), jsonPath, 'must not point to fields in metadata'))
    if (!['string', 'boolean', 'integer'].includes(str(found.type))) errs.push(invalid(p.child('jsonPath'), jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'))
    const key = parts.join('.')
    if (unique.has(key)) errs.push(duplicate(p.child('jsonPath'), jsonPath))
    else unique.add(key)
  })
  if (unique.size > MAX_SELECTABLE_FIELDS) errs.push(tooMany(fldPath, unique.size, MAX_SELECTABLE_FIELDS))
  return errs
}

/** validateCustomResourceDefinitionValidation. */
function validateCustomResourceDefinitionValidation(validation: Obj | undefined, statusEnabled: boolean, opts: Options, fldPath: Path): ErrorList {
  if (!validation) return []
  const schema = validation.openAPIV3Schema
  const errs: ErrorList = []
  if (isPlainObject(schema)) {
    if (statusEnabled) {
      for (const [goName, jsonName] of SCHEMA_FIELDS) {
        if (isZero(schema[jsonName])) continue
        if (goName === 'Type') {
          if (schema.type !== 'object') {
            errs.push(invalid(fldPath.child('openAPIV3Schema.type'), str(schema.type), 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'))
            break
          }
          continue
        }
        if (!ALLOWED_AT_ROOT.includes(goName)) {
          errs.push(invalid(fldPath.child('openAPIV3Schema'), schemaValue(schema), `only [${ALLOWED_AT_ROOT.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`))
          break
        }
      }
    }
    if (schema.nullable === true) errs.push(forbidden(fldPath.child('openAPIV3Schema.nullable'), 'nullable cannot be true at the root'))
    const structuralErrs = opts.requireStructuralSchema ? validateStructural(fldPath.child('openAPIV3Schema'), schema) : []
    errs.push(...structuralErrs)
    // As the reference, the rules' costs are only counted on a valid structural schema.
    const celCost = opts.requireStructuralSchema && structuralErrs.length === 0 ? rootCostContext(opts.suppressPerExpressionCost === true) : undefined
    errs.push(...ValidateCustomResourceDefinitionOpenAPISchema(schema, fldPath.child('openAPIV3Schema'), { allowDefaults: true, disallowDefaultsReason: '', insideResourceMeta: false, requireValidPropertyType: opts.requireValidPropertyType, celCost }, true, opts))
    if (celCost) errs.push(...totalCostErrors(celCost, fldPath.child('openAPIV3Schema')))
  }
  return errs
}

interface SpecStandardValidator {
  allowDefaults: boolean
  disallowDefaultsReason: string
  insideResourceMeta: boolean
  requireValidPropertyType: boolean
  /** The items of the first list above that is not a map list: where `oldSelf` cannot correlate. */
  uncorrelatableOldSelfPath?: Path
  /** The rules' cost context (CELSchemaContext); only properties, items and additionalProperties carry it. */
  celCost?: CelCostContext
}

/** specStandardValidatorV3.validate: the OpenAPI v3 features a CRD schema may not use. */
function validateSpecStandard(v: SpecStandardValidator, schema: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const type = str(schema.type)
  if (v.requireValidPropertyType && type !== '' && !OPENAPI_V3_TYPES.includes(type)) errs.push(notSupported(fldPath.child('type'), type, OPENAPI_V3_TYPES))
  if (schema.default !== undefined && schema.default !== null && !v.allowDefaults) {
    errs.push(forbidden(fldPath.child('default'), `must not be set${v.disallowDefaultsReason ? ` ${v.disallowDefaultsReason}` : ''}`))
  }
  if (str(schema.id) !== '') errs.push(forbidden(fldPath.child('id'), 'id is not supported'))
  if (schema.additionalItems !== undefined && schema.additionalItems !== null) errs.push(forbidden(fldPath.child('additionalItems'), 'additionalItems is not supported'))
  if (Object.keys(obj(schema.patternProperties)).length > 0) errs.push(forbidden(fldPath.child('patternProperties'), 'patternProperties is not supported'))
  if (Object.keys(obj(schema.definitions)).length > 0) errs.push(forbidden(fldPath.child('definitions'), 'definitions is not supported'))
  if (isPlainObject(schema.dependencies)) errs.push(forbidden(fldPath.child('dependencies'), 'dependencies is not supported'))
  if (typeof schema.$ref === 'string') errs.push(forbidden(fldPath.child('$ref'), '$ref is not supported'))
  if (type === 'null') errs.push(forbidden(fldPath.child('type'), 'type cannot be set to null, use nullable as an alternative'))
  if (Array.isArray(schema.items) && schema.items.length > 0) errs.push(forbidden(fldPath.child('items'), 'items must be a schema object and not an array'))
  if (v.insideResourceMeta && schema['x-kubernetes-embedded-resource'] === true) errs.push(forbidden(fldPath.child('x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'))
  return errs
}

/** ValidateCustomResourceDefinitionOpenAPISchema (with the rules' compilation and estimated cost). */
export function ValidateCustomResourceDefinitionOpenAPISchema(schema: Obj, fldPath: Path, ssv: SpecStandardValidator, isRoot: boolean, opts: Options): ErrorList {
  const errs = validateSpecStandard(ssv, schema, fldPath)
  if (schema.uniqueItems === true) errs.push(forbidden(fldPath.child('uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'))
  const properties = obj(schema.properties)
  const additional = schema.additionalProperties
  if (additional !== undefined && additional !== null) {
    if (Object.keys(properties).length > 0 && (additional === false || isPlainObject(additional))) {
      errs.push(forbidden(fldPath.child('additionalProperties'), 'additionalProperties and properties are mutual exclusive'))
    }
    const base = { ...ssv, celCost: childCostContext(ssv.celCost, schema) }
    const sub = ssv.insideResourceMeta ? { ...base, allowDefaults: false, disallowDefaultsReason: 'inside additionalProperties applying to object metadata' } : base
    if (isPlainObject(additional)) errs.push(...ValidateCustomResourceDefinitionOpenAPISchema(additional, fldPath.child('additionalProperties'), sub, false, opts))
  }
  for (const [property, p] of Object.entries(properties)) {
    let sub = { ...ssv, celCost: childCostContext(ssv.celCost, schema) }
    if ((isRoot || schema['x-kubernetes-embedded-resource'] === true) && META_FIELDS.has(property)) {
      sub = { ...sub, insideResourceMeta: true }
      if (isRoot) sub = { ...sub, allowDefaults: false, disallowDefaultsReason: `in top-level ${property}` }
    }
    errs.push(...ValidateCustomResourceDefinitionOpenAPISchema(obj(p), fldPath.child('properties').key(property), sub, false, opts))
  }
  // The reference gives these no CEL context: no cost is counted below them.
  const noCost = { ...ssv, celCost: undefined }
  if (isPlainObject(schema.not)) errs.push(...ValidateCustomResourceDefinitionOpenAPISchema(schema.not, fldPath.child('not'), noCost, false, opts))
  for (const j of ['allOf', 'oneOf', 'anyOf'] as const) arr(schema[j]).forEach((s, i) => errs.push(...ValidateCustomResourceDefinitionOpenAPISchema(obj(s), fldPath.child(j).index(i), noCost, false, opts)))
  for (const [k, s] of Object.entries(obj(schema.definitions))) errs.push(...ValidateCustomResourceDefinitionOpenAPISchema(obj(s), fldPath.child('definitions').key(k), noCost, false, opts))
  if (isPlainObject(schema.items)) {
    // Only map-list items correlate with their old values (sets and atomic lists do not).
    const forbidOldSelf = schema['x-kubernetes-list-type'] !== 'map' && ssv.uncorrelatableOldSelfPath === undefined
    const withCost = { ...ssv, celCost: childCostContext(ssv.celCost, schema) }
    const sub = forbidOldSelf ? { ...withCost, uncorrelatableOldSelfPath: fldPath.child('items') } : withCost
    errs.push(...ValidateCustomResourceDefinitionOpenAPISchema(schema.items, fldPath.child('items'), sub, false, opts))
  }
  else if (Array.isArray(schema.items)) schema.items.forEach((s, i) => errs.push(...ValidateCustomResourceDefinitionOpenAPISchema(obj(s), fldPath.child('items').index(i), ssv, false, opts)))
  for (const [k, d] of Object.entries(obj(schema.dependencies))) if (isPlainObject(d)) errs.push(...ValidateCustomResourceDefinitionOpenAPISchema(d, fldPath.child('dependencies').key(k), ssv, false, opts))

  if (schema['x-kubernetes-preserve-unknown-fields'] === false) errs.push(invalid(fldPath.child('x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'))
  const type = str(schema.type)
  const mapType = schema['x-kubernetes-map-type']
  if (typeof mapType === 'string' && type !== 'object') {
    if (type === '') errs.push(required(fldPath.child('type'), 'must be object if x-kubernetes-map-type is specified'))
    else errs.push(invalid(fldPath.child('type'), type, 'must be object if x-kubernetes-map-type is specified'))
  }
  if (typeof mapType === 'string' && mapType !== 'atomic' && mapType !== 'granular') errs.push(notSupported(fldPath.child('x-kubernetes-map-type'), mapType, ['atomic', 'granular']))
  const listType = schema['x-kubernetes-list-type']
  const items = isPlainObject(schema.items) ? schema.items : undefined
  if (typeof listType === 'string' && type !== 'array') {
    if (type === '') errs.push(required(fldPath.child('type'), 'must be array if x-kubernetes-list-type is specified'))
    else errs.push(invalid(fldPath.child('type'), type, 'must be array if x-kubernetes-list-type is specified'))
  } else if (opts.requireAtomicSetType && listType === 'set' && items) {
    if (items.type === 'array' && typeof items['x-kubernetes-list-type'] === 'string' && items['x-kubernetes-list-type'] !== 'atomic') {
      errs.push(invalid(fldPath.child('items').child('x-kubernetes-list-type'), items['x-kubernetes-list-type'], 'must be atomic as item of a list with x-kubernetes-list-type=set'))
    } else if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // The reference reports the items' x-kubernetes-list-type as the bad value here; a nil
      // pointer prints as "null".
      errs.push(invalid(fldPath.child('items').child('x-kubernetes-map-type'), typeof items['x-kubernetes-list-type'] === 'string' ? items['x-kubernetes-list-type'] : 'null', 'must be atomic as item of a list with x-kubernetes-list-type=set'))
    }
  }
  if (typeof listType === 'string' && !['atomic', 'set', 'map'].includes(listType)) errs.push(notSupported(fldPath.child('x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']))
  const mapKeys = arr(schema['x-kubernetes-list-map-keys']).map((k) => str(k))
  if (mapKeys.length > 0) {
    if (typeof listType !== 'string') errs.push(required(fldPath.child('x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'))
    else if (listType !== 'map') errs.push(invalid(fldPath.child('x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'))
  }
  if (listType === 'map') {
    if (mapKeys.length === 0) errs.push(required(fldPath.child('x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'))
    if (schema.items === undefined || schema.items === null) errs.push(required(fldPath.child('items'), 'must have a schema if x-kubernetes-list-type is map'))
    if (items && str(items.type) !== 'object') errs.push(invalid(fldPath.child('items').child('type'), str(items.type), "must be object if parent array's x-kubernetes-list-type is map"))
    if (items && items.type === 'object') {
      const keys = new Set<string>()
      const itemProps = obj(items.properties)
      for (const k of mapKeys) {
        if (Object.hasOwn(itemProps, k)) {
          const t = str(obj(itemProps[k]).type)
          if (t === 'array' || t === 'object') errs.push(invalid(fldPath.child('items').child('properties').key(k).child('type'), 'object', "must be a scalar type if parent array's x-kubernetes-list-type is map"))
        } else errs.push(invalid(fldPath.child('x-kubernetes-list-map-keys'), mapKeys, 'entries must all be names of item properties'))
        if (keys.has(k)) errs.push(invalid(fldPath.child('x-kubernetes-list-map-keys'), mapKeys, 'must not contain duplicate entries'))
        keys.add(k)
      }
    }
  }
  if (opts.requireMapListKeysMapSetValidation) errs.push(...validateMapListKeysMapSet(schema, fldPath))
  arr(schema['x-kubernetes-validations']).forEach((raw, i) => {
    const rule = obj(raw)
    const p = fldPath.child('x-kubernetes-validations').index(i)
    const ruleText = str(rule.rule)
    const message = str(rule.message)
    const trimmedRule = ruleText.trim()
    const trimmedMsg = message.trim()
    if (trimmedRule === '') errs.push(required(p.child('rule'), 'rule is not specified'))
    else if (message.length > 0 && trimmedMsg === '') errs.push(invalid(p.child('message'), message, 'message must be non-empty if specified'))
    else if (/[\n\r]/.test(trimmedMsg)) errs.push(invalid(p.child('message'), message, 'message must not contain line breaks'))
    else if (/[\n\r]/.test(trimmedRule) && trimmedMsg === '') errs.push(required(p.child('message'), 'message must be specified if rule contains line breaks'))
    const messageExpression = str(rule.messageExpression)
    if (messageExpression.length > 0 && messageExpression.trim() === '') errs.push(required(p.child('messageExpression'), 'messageExpression must be non-empty if specified'))
    if (typeof rule.reason === 'string' && !SUPPORTED_VALIDATION_REASONS.includes(rule.reason)) errs.push(notSupported(p.child('reason'), rule.reason, SUPPORTED_VALIDATION_REASONS))
    const fieldPath = str(rule.fieldPath)
    if (fieldPath.length > 0 && fieldPath.trim() === '') errs.push(invalid(p.child('fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'))
    if (/[\n\r]/.test(fieldPath)) errs.push(invalid(p.child('fieldPath'), fieldPath, 'fieldPath must not contain line breaks'))
    if (fieldPath.length > 0 && !fieldPathValid(schema, fieldPath)) errs.push(invalid(p.child('fieldPath'), fieldPath, 'fieldPath must be a valid path'))
  })
  // The rules are compiled only where this node and those below have no schema error: an
  // invalid schema gives no usable CEL types (and no actionable messages).
  if (errs.every((e) => CEL_ERRORS.has(e))) {
    for (const e of validateRuleCompilation(schema, fldPath, isRoot, ssv.uncorrelatableOldSelfPath, ssv.celCost)) {
      CEL_ERRORS.add(e)
      errs.push(e)
    }
  }
  return errs
}

/** The errors of the rules' compilation, told apart from the schema's. */
const CEL_ERRORS = new WeakSet<object>()

/** ValidFieldPath: `.name` and `['name']` steps through properties and additionalProperties. */
function fieldPathValid(schema: Obj, fieldPath: string): boolean {
  const step = /\.([^.[\]]+)|\['((?:\\.|[^'\\])*)'\]/y
  let node = schema
  for (let pos = 0; pos < fieldPath.length; pos = step.lastIndex) {
    step.lastIndex = pos
    const m = step.exec(fieldPath)
    if (!m) return false
    const name = m[1] ?? m[2]!.replace(/\\(.)/g, '$1')
    const properties = obj(node.properties)
    if (Object.keys(properties).length > 0) {
      if (!isPlainObject(properties[name])) return false
      node = properties[name]
    } else if (isPlainObject(node.additionalProperties)) node = node.additionalProperties
    else return false
  }
  return true
}

/**
 * The rules' compilation (the reference's CEL pass over the structural schema): a rule or a
 * message expression that does not compile or has the wrong type refuses the CRD, the bad value
 * being the rule.
 */
function validateRuleCompilation(schema: Obj, fldPath: Path, isRoot: boolean, uncorrelatable: Path | undefined, celCost: CelCostContext | undefined): ErrorList {
  const errs: ErrorList = []
  const raw = arr(schema['x-kubernetes-validations'])
  compileNodeRules(schema, isRoot).forEach((c, i) => {
    const p = fldPath.child('x-kubernetes-validations').index(i)
    if (celCost) errs.push(...ruleCostErrors(c, p, celCost))
    const value = validationRuleGoValue(obj(raw[i]))
    if (c.error !== undefined) errs.push(invalid(p.child('rule'), value, c.error))
    if (c.messageExpressionError !== undefined) errs.push(invalid(p.child('messageExpression'), value, c.messageExpressionError))
    if (c.usesOldSelf) {
      if (uncorrelatable) errs.push(invalid(p.child('rule'), c.rule.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable.toString()}`))
    } else if (typeof obj(raw[i]).optionalOldSelf === 'boolean') {
      errs.push(invalid(p.child('optionalOldSelf'), obj(raw[i]).optionalOldSelf, 'may not be set if oldSelf is not used in rule'))
    }
  })
  return errs
}

/**
 * The internal apiextensions.ValidationRule as the bad value: its JSON with Go's field names in
 * the struct's order (the internal type has no json tags), escaped as encoding/json does.
 */
function validationRuleGoValue(rule: Obj): Rendered {
  const goStruct = {
    Rule: str(rule.rule),
    Message: str(rule.message),
    MessageExpression: str(rule.messageExpression),
    Reason: typeof rule.reason === 'string' ? rule.reason : null,
    FieldPath: str(rule.fieldPath),
    OptionalOldSelf: typeof rule.optionalOldSelf === 'boolean' ? rule.optionalOldSelf : null,
  }
  const escapes: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' }
  return new Rendered(JSON.stringify(goStruct).replace(/[<>&\u2028\u2029]/g, (c) => escapes[c]!))
}

/** validateMapListKeysMapSet: set and map list items not nullable; map keys required or defaulted, not nullable. */
function validateMapListKeysMapSet(schema: Obj, fldPath: Path): ErrorList {
  const items = isPlainObject(schema.items) ? schema.items : undefined
  const listType = schema['x-kubernetes-list-type']
  if (!items || (listType !== 'set' && listType !== 'map')) return []
  const errs: ErrorList = []
  if (items.nullable === true) errs.push(forbidden(fldPath.child('items').child('nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`))
  if (listType === 'map') {
    const requiredKeys = new Set(arr(items.required).map((r) => str(r)))
    const props = obj(items.properties)
    for (const k of arr(schema['x-kubernetes-list-map-keys']).map((x) => str(x))) {
      if (!Object.hasOwn(props, k)) continue
      const p = obj(props[k])
      if (!requiredKeys.has(k) && (p.default === undefined || p.default === null)) {
        errs.push(required(fldPath.child('items').child('properties').key(k).child('default'), 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'))
      }
      if (p.nullable === true) errs.push(forbidden(fldPath.child('items').child('properties').key(k).child('nullable'), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'))
    }
  }
  return errs
}

/** ValidateCustomResourceDefinitionSubresources. */
export function ValidateCustomResourceDefinitionSubresources(subresources: Obj | undefined, fldPath: Path): ErrorList {
  if (!subresources || !isPlainObject(subresources.scale)) return []
  const scale = subresources.scale
  const errs: ErrorList = []
  const specPath = str(scale.specReplicasPath)
  if (specPath === '') errs.push(required(fldPath.child('scale.specReplicasPath'), ''))
  else {
    const e = validateSimpleJSONPath(specPath, fldPath.child('scale.specReplicasPath'))
    if (e.length > 0) errs.push(...e)
    else if (!specPath.startsWith('.spec.')) errs.push(invalid(fldPath.child('scale.specReplicasPath'), specPath, 'should be a json path under .spec'))
  }
  const statusPath = str(scale.statusReplicasPath)
  if (statusPath === '') errs.push(required(fldPath.child('scale.statusReplicasPath'), ''))
  else {
    const e = validateSimpleJSONPath(statusPath, fldPath.child('scale.statusReplicasPath'))
    if (e.length > 0) errs.push(...e)
    else if (!statusPath.startsWith('.status.')) errs.push(invalid(fldPath.child('scale.statusReplicasPath'), statusPath, 'should be a json path under .status'))
  }
  const selectorPath = str(scale.labelSelectorPath)
  if (selectorPath !== '') {
    const e = validateSimpleJSONPath(selectorPath, fldPath.child('scale.labelSelectorPath'))
    if (e.length > 0) errs.push(...e)
    else if (!selectorPath.startsWith('.spec.') && !selectorPath.startsWith('.status.')) errs.push(invalid(fldPath.child('scale.labelSelectorPath'), selectorPath, 'should be a json path under either .spec or .status'))
  }
  return errs
}

function validateSimpleJSONPath(s: string, fldPath: Path): ErrorList {
  if (s.length === 0) return [invalid(fldPath, s, 'must not be empty')]
  if (s[0] !== '.') return [invalid(fldPath, s, 'must be a simple json path starting with .')]
  return []
}

const APPROVAL_ANNOTATION = 'api-approved.kubernetes.io'
const APPROVAL_MISSING = `protected groups must have approval annotation "${APPROVAL_ANNOTATION}", see https://github.com/kubernetes/enhancements/pull/1111`
const APPROVAL_INVALID = `protected groups must have approval annotation "${APPROVAL_ANNOTATION}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`

/** apihelpers.IsProtectedCommunityGroup. */
function isProtectedCommunityGroup(group: string): boolean {
  return group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io')
}

/** apihelpers.GetAPIApprovalState: missing, bypassed ("unapproved..."), approved (a URL) or invalid. */
function apiApprovalState(o: KubeObject): 'missing' | 'bypassed' | 'approved' | 'invalid' {
  const annotations = obj(o.metadata.annotations)
  const value = str(annotations[APPROVAL_ANNOTATION])
  if (value === '') return 'missing'
  if (value.startsWith('unapproved')) return 'bypassed'
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]+/.test(value) ? 'approved' : 'invalid'
}

/** validateAPIApproval: a CRD of a protected group (k8s.io, kubernetes.io) carries the approval annotation. */
function validateAPIApproval(o: KubeObject, old: KubeObject | undefined): ErrorList {
  if (!isProtectedCommunityGroup(str(obj(o.spec).group))) return []
  const state = apiApprovalState(o)
  // An unchanged state never fails (a controller updating the spec keeps working).
  if (old && apiApprovalState(old) === state) return []
  const fldPath = Path.of('metadata', 'annotations').key(APPROVAL_ANNOTATION)
  if (state === 'missing') return [required(fldPath, APPROVAL_MISSING)]
  if (state === 'invalid') return [invalid(fldPath, str(obj(o.metadata.annotations)[APPROVAL_ANNOTATION]), APPROVAL_INVALID)]
  return []
}

/** validatePreserveUnknownFields: true is refused, unless the old CRD already had it. */
function validatePreserveUnknownFields(spec: InternalSpec, old: InternalSpec | undefined): ErrorList {
  if (old?.preserveUnknownFields) return []
  return spec.preserveUnknownFields ? [invalid(SPEC.child('preserveUnknownFields'), true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead')] : []
}
