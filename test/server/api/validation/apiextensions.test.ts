/**
 * apiextensions.k8s.io CustomResourceDefinition validation, table-driven. Expected texts are the
 * reference's: apiextensions-apiserver's `pkg/apis/apiextensions/validation/validation.go`
 * (ValidateCustomResourceDefinition and its helpers), `pkg/apiserver/schema/validation.go`
 * (ValidateStructural), `k8s.io/apiserver/pkg/util/webhook` (webhook URLs), and the messages its
 * tests and users quote. The reference validates the internal form, where a schema (and
 * subresources, printer columns) identical in every version is moved to `spec.validation`
 * (`spec.subresources`, `spec.additionalPrinterColumns`): so a one-version CRD's schema errors
 * are reported at `spec.validation.openAPIV3Schema`. Bad values that are Go structs print as
 * their JSON with Go's field names (the internal types have no json tags).
 */
import assert from 'node:assert/strict'
import { customresourcedefinitions } from '../../../../src/server/api/kinds/crd.js'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { ValidateCustomResourceDefinitionUpdate } from '../../../../src/server/api/validation/apiextensions.js'
import { type Json, createErrors, kindTable, updateTable } from './groups-support.js'

const SUB =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
const S = 'spec.validation.openAPIV3Schema'
const P = `${S}.properties[spec]`
const STORAGE_MIGRATION = (v: string) => `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`
/** An internal CustomResourceDefinitionVersion without per-version fields, as encoding/json prints it. */
const version = (name: string, storage: boolean) =>
  `{"Name":"${name}","Served":true,"Storage":${storage},"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}`
const TYPES = 'supported values: "array", "boolean", "integer", "number", "object", "string"'

/** Sets the `spec` property's schema of the (single) version. */
const specSchema = (o: Json, schema: Json) => (o.spec.versions[0].schema.openAPIV3Schema.properties.spec = schema)
const props = (o: Json, properties: Json) => specSchema(o, { type: 'object', properties })

describe('validation/apiextensions: CustomResourceDefinition', () => {
  // Not among BUILTIN_KINDS (its served resources are dynamic): its strategy is taken directly.
  const strategy = customresourcedefinitions
  const crd = (): Json => ({
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'], categories: ['all'] },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } } }],
    },
  })
  const twoVersions = (o: Json, v2: Json = {}) => o.spec.versions.push({ ...structuredClone(o.spec.versions[0]), name: 'v2', storage: false, ...v2 })

  kindTable(strategy, crd, [
    // ---- metadata, group, scope, names ----
    ['a name other than plural.group', (o) => (o.metadata.name = 'gadgets.example.com'), ['metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group']],
    ['a group without a dot', (o) => ((o.spec.group = 'example'), (o.metadata.name = 'widgets.example')), ['spec.group: Invalid value: "example": should be a domain with at least one dot']],
    ['a group that is not a DNS subdomain', (o) => ((o.spec.group = 'Example.com'), (o.metadata.name = 'widgets.Example.com')), [`metadata.name: Invalid value: "widgets.Example.com": ${SUB}`, `spec.group: Invalid value: "Example.com": ${SUB}`]],
    ['no group', (o) => (o.spec.group = ''), ['metadata.name: Invalid value: "widgets.example.com": must be spec.names.plural+"."+spec.group', 'spec.group: Required value']],
    ['an unsupported scope', (o) => (o.spec.scope = 'Global'), ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']],
    ['no scope', (o) => (o.spec.scope = ''), ['spec.scope: Required value']],
    ['a plural that is not a DNS-1035 label', (o) => ((o.spec.names.plural = 'Widgets'), (o.metadata.name = 'Widgets.example.com')), [`metadata.name: Invalid value: "Widgets.example.com": ${SUB}`, `spec.names.plural: Invalid value: "Widgets": ${DNS1035}`]],
    ['no plural', (o) => ((o.spec.names.plural = ''), (o.metadata.name = '.example.com')), [`metadata.name: Invalid value: ".example.com": ${SUB}`, 'spec.names.plural: Required value']],
    ['a singular that is not a DNS-1035 label', (o) => (o.spec.names.singular = 'wid.get'), [`spec.names.singular: Invalid value: "wid.get": ${DNS1035}`]],
    ['no kind', (o) => (o.spec.names.kind = ''), ['spec.names.kind: Required value']],
    ['a kind that is not a DNS-1035 label in lower case', (o) => (o.spec.names.kind = 'Wid_get'), [`spec.names.kind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: ${DNS1035}`]],
    ['a listKind that is not a DNS-1035 label in lower case', (o) => (o.spec.names.listKind = '1WidgetList'), [`spec.names.listKind: Invalid value: "1WidgetList": may have mixed case, but should otherwise match: ${DNS1035}`]],
    ['kind and listKind the same', (o) => (o.spec.names.listKind = 'Widget'), ['spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same']],
    ['a short name that is not a DNS-1035 label', (o) => (o.spec.names.shortNames = ['wd', '1w']), [`spec.names.shortNames[1]: Invalid value: "1w": ${DNS1035}`]],
    ['a category that is not a DNS-1035 label', (o) => (o.spec.names.categories = ['all', 'My_Things']), [`spec.names.categories[1]: Invalid value: "My_Things": ${DNS1035}`]],
    ['a protected group without the approval annotation', (o) => ((o.spec.group = 'stable.k8s.io'), (o.metadata.name = 'widgets.stable.k8s.io')), ['metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111']],
    ['a protected group with an approval that is no URL', (o) => ((o.spec.group = 'stable.k8s.io'), (o.metadata.name = 'widgets.stable.k8s.io'), (o.metadata.annotations = { 'api-approved.kubernetes.io': 'yes' })), ['metadata.annotations[api-approved.kubernetes.io]: Invalid value: "yes": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111']],
    // ---- versions ----
    ['a version name that is not a DNS-1035 label (also spec.version, the first version)', (o) => (o.spec.versions[0].name = 'V1'), [`spec.versions[0].name: Invalid value: "V1": ${DNS1035}`, `spec.version: Invalid value: "V1": ${DNS1035}`]],
    ['two storage versions', (o) => twoVersions(o, { storage: true }), [`spec.versions: Invalid value: [${version('v1', true)},${version('v2', true)}]: must have exactly one version marked as storage version`, 'status.storedVersions: Invalid value: ["v1"]: must have the storage version v2']],
    ['no storage version', (o) => (o.spec.versions[0].storage = false), [`spec.versions: Invalid value: [${version('v1', false)}]: must have exactly one version marked as storage version`, 'status.storedVersions: Invalid value: null: must have at least one stored version']],
    ['two versions of the same name', (o) => twoVersions(o, { name: 'v1' }), [`spec.versions: Invalid value: [${version('v1', true)},${version('v1', false)}]: must contain unique version names`]],
    ['a version without a schema', (o) => delete o.spec.versions[0].schema, ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required']],
    ['a deprecation warning on a version not deprecated', (o) => (o.spec.versions[0].deprecationWarning = 'old'), ['spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions']],
    ['an empty deprecation warning', (o) => ((o.spec.versions[0].deprecated = true), (o.spec.versions[0].deprecationWarning = '')), ['spec.versions[0].deprecationWarning: Invalid value: "": must not be an empty string']],
    // ---- the structural schema ----
    ['uniqueItems in the schema', (o) => props(o, { tags: { type: 'array', uniqueItems: true, items: { type: 'string' } } }), [`${P}.properties[tags].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`]],
    ['uniqueItems under items', (o) => props(o, { tags: { type: 'array', items: { type: 'array', uniqueItems: true, items: { type: 'string' } } } }), [`${P}.properties[tags].items.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`]],
    ['a field without a type', (o) => props(o, { size: { minimum: 1 } }), [`${P}.properties[size].type: Required value: must not be empty for specified object fields`]],
    ['array items without a type', (o) => props(o, { tags: { type: 'array', items: { maxLength: 3 } } }), [`${P}.properties[tags].items.type: Required value: must not be empty for specified array items`]],
    ['an array without items', (o) => props(o, { tags: { type: 'array' } }), [`${P}.properties[tags].items: Required value: must be specified`]],
    ['a root without a type', (o) => delete o.spec.versions[0].schema.openAPIV3Schema.type, [`${S}.type: Required value: must not be empty at the root`]],
    ['a root that is no object', (o) => (o.spec.versions[0].schema.openAPIV3Schema = { type: 'array', items: { type: 'string' } }), [`${S}.type: Invalid value: "array": must be object at the root`]],
    ['a nullable root', (o) => (o.spec.versions[0].schema.openAPIV3Schema.nullable = true), [`${S}.nullable: Forbidden: nullable cannot be true at the root`]],
    ['metadata at the root with more than name and generateName', (o) => (o.spec.versions[0].schema.openAPIV3Schema.properties.metadata = { type: 'object', properties: { labels: { type: 'object' } } }), [`${S}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`]],
    ['metadata at the root that is no object', (o) => (o.spec.versions[0].schema.openAPIV3Schema.properties.metadata = { type: 'string' }), [`${S}.properties[metadata].type: Invalid value: "string": must be object`]],
    ['x-kubernetes-int-or-string with x-kubernetes-preserve-unknown-fields', (o) => props(o, { port: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true } }), [`${P}.properties[port].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`]],
    ['x-kubernetes-preserve-unknown-fields false', (o) => specSchema(o, { type: 'object', 'x-kubernetes-preserve-unknown-fields': false }), [`${P}.x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`]],
    ['additionalProperties with properties', (o) => specSchema(o, { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } }), [`${P}.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`]],
    ['additionalProperties at the root', (o) => (o.spec.versions[0].schema.openAPIV3Schema = { type: 'object', additionalProperties: { type: 'string' } }), [`${S}.additionalProperties: Forbidden: must not be used at the root`]],
    ['a type under anyOf', (o) => props(o, { a: { type: 'string', anyOf: [{ type: 'string' }, { maxLength: 2 }] } }), [`${P}.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`]],
    ['a description under allOf', (o) => props(o, { a: { type: 'string', allOf: [{ description: 'x' }] } }), [`${P}.properties[a].allOf[0].description: Forbidden: must be empty to be structural`]],
    ['a property under oneOf that is not specified', (o) => (o.spec.versions[0].schema.openAPIV3Schema.oneOf = [{ properties: { b: { maxLength: 1 } } }]), [`${S}.properties[b]: Required value: because it is defined in ${S}.oneOf[0].properties[b]`]],
    ['an unsupported type', (o) => props(o, { a: { type: 'map' } }), [`${P}.properties[a].type: Unsupported value: "map": ${TYPES}`]],
    ['type null', (o) => props(o, { a: { type: 'null' } }), [`${P}.properties[a].type: Unsupported value: "null": ${TYPES}`, `${P}.properties[a].type: Forbidden: type cannot be set to null, use nullable as an alternative`]],
    ['$ref', (o) => props(o, { a: { type: 'object', $ref: '#/definitions/a' } }), [`${P}.properties[a].$ref: Forbidden: $ref is not supported`]],
    ['an id', (o) => props(o, { a: { type: 'string', id: 'a' } }), [`${P}.properties[a].id: Forbidden: id is not supported`]],
    ['patternProperties', (o) => props(o, { a: { type: 'object', patternProperties: { '^x': { type: 'string' } } } }), [`${P}.properties[a].patternProperties: Forbidden: patternProperties is not supported`]],
    ['an embedded resource without type and properties', (o) => props(o, { e: { 'x-kubernetes-embedded-resource': true } }), [`${P}.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`, `${P}.properties[e].type: Required value: must be object if x-kubernetes-embedded-resource is true`]],
    ['x-kubernetes-map-type on a string', (o) => props(o, { a: { type: 'string', 'x-kubernetes-map-type': 'atomic' } }), [`${P}.properties[a].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified`]],
    ['an unknown x-kubernetes-map-type', (o) => props(o, { a: { type: 'object', 'x-kubernetes-map-type': 'merge' } }), [`${P}.properties[a].x-kubernetes-map-type: Unsupported value: "merge": supported values: "atomic", "granular"`]],
    ['x-kubernetes-list-type on an object', (o) => props(o, { a: { type: 'object', 'x-kubernetes-list-type': 'set' } }), [`${P}.properties[a].type: Invalid value: "object": must be array if x-kubernetes-list-type is specified`]],
    ['an unknown x-kubernetes-list-type', (o) => props(o, { a: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' } }), [`${P}.properties[a].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`]],
    ['a map list without keys', (o) => props(o, { a: { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'map' } }), [`${P}.properties[a].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`]],
    ['a map list key that is no item property', (o) => props(o, { a: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] } }), [`${P}.properties[a].x-kubernetes-list-map-keys: Invalid value: ["name"]: entries must all be names of item properties`]],
    ['a map list key neither required nor defaulted', (o) => props(o, { a: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] } }), [`${P}.properties[a].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`]],
    ['list map keys without the map list type', (o) => props(o, { a: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, 'x-kubernetes-list-map-keys': ['name'] } }), [`${P}.properties[a].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`]],
    ['a set of nullable items', (o) => props(o, { a: { type: 'array', items: { type: 'string', nullable: true }, 'x-kubernetes-list-type': 'set' } }), [`${P}.properties[a].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set`]],
    ['a CEL rule that is empty', (o) => specSchema(o, { type: 'object', 'x-kubernetes-validations': [{ rule: ' ' }] }), [`${P}.x-kubernetes-validations[0].rule: Required value: rule is not specified`]],
    ['a CEL rule with an unknown reason', (o) => specSchema(o, { type: 'object', 'x-kubernetes-validations': [{ rule: 'true', reason: 'Bad' }] }), [`${P}.x-kubernetes-validations[0].reason: Unsupported value: "Bad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`]],
    // The rules' compilation (cel/compilation.go): the bad value is the internal ValidationRule.
    ['a CEL rule naming an undefined field', (o) => specSchema(o, { type: 'object', properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.b > 1' }] }), [`${P}.x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self.b \\u003e 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:5: undefined field 'b'\n | self.b > 1\n | ....^`]],
    ['a CEL rule that is not a bool', (o) => specSchema(o, { type: 'object', properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.a', reason: 'FieldValueForbidden' }] }), [`${P}.x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self.a","Message":"","MessageExpression":"","Reason":"FieldValueForbidden","FieldPath":"","OptionalOldSelf":null}: cel expression must evaluate to a bool`]],
    ['a CEL messageExpression that is not a string', (o) => specSchema(o, { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self == 5', messageExpression: '42' }] }), [`${P}.x-kubernetes-validations[0].messageExpression: Invalid value: {"Rule":"self == 5","Message":"","MessageExpression":"42","Reason":null,"FieldPath":"","OptionalOldSelf":null}: messageExpression must evaluate to a string`]],
    ['a CEL messageExpression that does not compile', (o) => specSchema(o, { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self == 5', messageExpression: 'self.x' }] }), [`${P}.x-kubernetes-validations[0].messageExpression: Invalid value: {"Rule":"self == 5","Message":"","MessageExpression":"self.x","Reason":null,"FieldPath":"","OptionalOldSelf":null}: messageExpression compilation failed: ERROR: <input>:1:5: type 'int' does not support field selection\n | self.x\n | ....^`]],
    ['a transition rule inside an atomic list', (o) => props(o, { a: { type: 'array', items: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: "oldSelf.contains('keyword')" }] } } }), [`${P}.properties[a].items.x-kubernetes-validations[0].rule: Invalid value: "oldSelf.contains('keyword')": oldSelf cannot be used on the uncorrelatable portion of the schema within ${P}.properties[a].items`]],
    ['a transition rule inside a map list', (o) => props(o, { a: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', required: ['k'], properties: { k: { type: 'string', maxLength: 10 } }, 'x-kubernetes-validations': [{ rule: 'self.k == oldSelf.k' }] } } }), []],
    ['optionalOldSelf on a rule without oldSelf', (o) => specSchema(o, { type: 'object', 'x-kubernetes-validations': [{ rule: 'true', optionalOldSelf: true }] }), [`${P}.x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`]],
    ['a CEL rule whose fieldPath names no field', (o) => specSchema(o, { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'string' } } }, m: { type: 'object', additionalProperties: { type: 'string' } } }, 'x-kubernetes-validations': [{ rule: 'true', fieldPath: '.a.b' }, { rule: 'true', fieldPath: ".m['x.y']" }, { rule: 'true', fieldPath: '.a.c' }, { rule: 'true', fieldPath: 'a' }] }), [`${P}.x-kubernetes-validations[2].fieldPath: Invalid value: ".a.c": fieldPath must be a valid path`, `${P}.x-kubernetes-validations[3].fieldPath: Invalid value: "a": fieldPath must be a valid path`]],
    ['a schema error skips the compilation of the rules above it', (o) => specSchema(o, { type: 'object', properties: { a: { type: 'bogus' } }, 'x-kubernetes-validations': [{ rule: 'self.nope' }] }), [`${P}.properties[a].type: Unsupported value: "bogus": ${TYPES}`]],
    ['per-version schemas, one of them not structural', (o) => twoVersions(o, { schema: { openAPIV3Schema: { type: 'object', properties: { spec: { properties: {} } } } } }), ['spec.versions[1].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields']],
    ['a status subresource with a root that is no object', (o) => ((o.spec.versions[0].subresources = { status: {} }), (o.spec.versions[0].schema.openAPIV3Schema = { type: 'array', items: { type: 'string' } })), [`${S}.type: Invalid value: "array": only "object" is allowed as the type at the root of the schema if the status subresource is enabled`, `${S}.type: Invalid value: "array": must be object at the root`]],
    // ---- subresources and printer columns ----
    ['a scale subresource without specReplicasPath', (o) => (o.spec.versions[0].subresources = { scale: { statusReplicasPath: '.status.replicas' } }), ['spec.subresources.scale.specReplicasPath: Required value']],
    ['a scale statusReplicasPath outside .status', (o) => (o.spec.versions[0].subresources = { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.spec.current' } }), ['spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.current": should be a json path under .status']],
    ['a scale path that is no simple json path', (o) => (o.spec.versions[0].subresources = { scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.metadata.x' } }), ['spec.subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with .', 'spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.x": should be a json path under either .spec or .status']],
    ['a per-version scale subresource', (o) => (twoVersions(o), (o.spec.versions[1].subresources = { scale: { specReplicasPath: '.spec.replicas' } })), ['spec.versions[1].subresources.scale.statusReplicasPath: Required value']],
    ['a printer column of an unknown type', (o) => (o.spec.versions[0].additionalPrinterColumns = [{ name: 'Size', type: 'int', jsonPath: '.spec.size' }]), ['spec.additionalPrinterColumns[0].type: Invalid value: "int": must be one of boolean,date,integer,number,string']],
    ['a printer column without name, type and jsonPath', (o) => (o.spec.versions[0].additionalPrinterColumns = [{ format: 'big' }]), ['spec.additionalPrinterColumns[0].name: Required value', 'spec.additionalPrinterColumns[0].type: Required value: must be one of boolean,date,integer,number,string', 'spec.additionalPrinterColumns[0].format: Invalid value: "big": must be one of byte,date,date-time,double,float,int32,int64,password', 'spec.additionalPrinterColumns[0].JSONPath: Required value']],
    ['a printer column whose jsonPath does not start with a dot', (o) => (o.spec.versions[0].additionalPrinterColumns = [{ name: 'Size', type: 'integer', jsonPath: 'spec.size' }]), ['spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.size": must be a simple json path starting with .']],
    // ---- conversion and pruning ----
    ['an unknown conversion strategy', (o) => (o.spec.conversion = { strategy: 'Magic' }), ['spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"']],
    ['Webhook conversion without a webhook', (o) => (o.spec.conversion = { strategy: 'Webhook' }), ['spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook', 'spec.conversion.conversionReviewVersions: Required value']],
    ['Webhook conversion with neither url nor service', (o) => (o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: {}, conversionReviewVersions: ['v1'] } }), ['spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required']],
    ['a conversion webhook over http', (o) => (o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'http://example.com/convert' }, conversionReviewVersions: ['v1'] } }), ["spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]"]],
    ['a conversion webhook service without a name', (o) => (o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: 'ns' } }, conversionReviewVersions: ['v1'] } }), ['spec.conversion.webhookClientConfig.service.name: Required value']],
    ['only unknown conversion review versions', (o) => (o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://example.com' }, conversionReviewVersions: ['v2'] } }), ['spec.conversion.conversionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1']],
    ['a duplicate conversion review version', (o) => (o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://example.com' }, conversionReviewVersions: ['v1', 'v1'] } }), ['spec.conversion.conversionReviewVersions[1]: Invalid value: "v1": duplicate version']],
    ['a webhook with strategy None', (o) => (o.spec.conversion = { strategy: 'None', webhook: { clientConfig: { url: 'https://example.com' }, conversionReviewVersions: ['v1'] } }), ['spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook', 'spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook']],
    ['preserveUnknownFields true', (o) => (o.spec.preserveUnknownFields = true), ['spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead']],
    // ---- valid ----
    ['a cluster-scoped CRD', (o) => (o.spec.scope = 'Cluster'), []],
    ['two versions with their own schemas, one stored', (o) => twoVersions(o, { schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }), []],
    ['an int-or-string field without a type, and its anyOf', (o) => props(o, { port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }], pattern: '^[a-z]+$' } }), []],
    ['Webhook conversion by a service', (o) => (o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: 'ns', name: 'conv', path: '/convert' } }, conversionReviewVersions: ['v1', 'v1beta1'] } }), []],
    ['a protected group with an approval URL', (o) => ((o.spec.group = 'stable.k8s.io'), (o.metadata.name = 'widgets.stable.k8s.io'), (o.metadata.annotations = { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/78458' })), []],
    ['metadata at the root limited to name', (o) => (o.spec.versions[0].schema.openAPIV3Schema.properties.metadata = { type: 'object', properties: { name: { type: 'string', maxLength: 20 } } }), []],
  ], it)

  const stored = (): Json => {
    const o = crd()
    o.spec.versions.push({ ...structuredClone(o.spec.versions[0]), name: 'v2', storage: false })
    return o
  }
  updateTable(strategy, stored, [
    ['a new group', (o) => (o.spec.group = 'other.com'), ['spec.group: Invalid value: "other.com": field is immutable']],
    ['a new plural', (o) => (o.spec.names.plural = 'gadgets'), ['spec.names.plural: Invalid value: "gadgets": field is immutable']],
    // v1 stays in status.storedVersions when v2 becomes the storage version; removing it is refused.
    ['a stored version removed', (o) => (o.spec.versions = [{ ...o.spec.versions[1], storage: true }]), [`status.storedVersions[0]: Invalid value: "v1": ${STORAGE_MIGRATION('v1')}`]],
    ['a new kind before the CRD is established', (o) => (o.spec.names.kind = 'Gadget'), []],
    ['a new scope before the CRD is established', (o) => (o.spec.scope = 'Cluster'), []],
    ['the storage version moved to v2', (o) => ((o.spec.versions[0].storage = false), (o.spec.versions[1].storage = true)), []],
  ], it)

  // A schema stored before a rule was tightened is kept (the reference's ratcheting).
  const legacy = (): Json => {
    const o = crd()
    o.spec.versions[0].schema.openAPIV3Schema.properties.spec = { type: 'object', properties: { a: { type: 'map' }, s: { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'set' } } }
    return o
  }
  updateTable(strategy, legacy, [
    ['an unsupported type and a set of granular objects kept', (o) => (o.spec.names.categories = ['things']), []],
  ], it)
  it('refuses the same unsupported type and set on create', () => {
    assert.deepEqual(createErrors(strategy, legacy()), [
      `${P}.properties[a].type: Unsupported value: "map": ${TYPES}`,
      // The reference passes the items' x-kubernetes-list-type (a nil *string) as the bad value: "null".
      `${P}.properties[s].items.x-kubernetes-map-type: Invalid value: "null": must be atomic as item of a list with x-kubernetes-list-type=set`,
    ])
  })

  describe('once established', () => {
    const established = (): KubeObject => {
      const o = crd() as KubeObject
      o.status = { storedVersions: ['v1'], conditions: [{ type: 'Established', status: 'True' }] }
      return o
    }
    it('the scope and kind are immutable', () => {
      const old = established()
      const next = structuredClone(old) as Json
      next.spec.scope = 'Cluster'
      next.spec.names.kind = 'Gadget'
      const got = ValidateCustomResourceDefinitionUpdate(next as KubeObject, old).map(String)
      assert.deepEqual(got, ['spec.scope: Invalid value: "Cluster": field is immutable', 'spec.names.kind: Invalid value: "Gadget": field is immutable'])
    })
  })
})
