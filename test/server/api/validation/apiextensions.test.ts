/**
 * apiextensions.k8s.io CustomResourceDefinition validation, table-driven. Expected texts are the
 * reference's (apiextensions-apiserver's `pkg/apis/apiextensions/validation/validation.go`:
 * ValidateCustomResourceDefinition, ValidateCustomResourceDefinitionSpec,
 * ValidateCustomResourceDefinitionNames and the OpenAPI schema's uniqueItems rule).
 */
import { customresourcedefinitions } from '../../../../src/server/api/kinds/crd.js'
import { type Json, kindTable } from './groups-support.js'

const SUB =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"

describe('validation/apiextensions: CustomResourceDefinition', () => {
  // Not among BUILTIN_KINDS (its served resources are dynamic): its strategy is taken directly.
  const strategy = customresourcedefinitions
  const crd = (): Json => ({
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } } }],
    },
  })
  kindTable(strategy, crd, [
    ['a name other than plural.group', (o) => (o.metadata.name = 'gadgets.example.com'), ['metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group']],
    ['a group without a dot', (o) => ((o.spec.group = 'example'), (o.metadata.name = 'widgets.example')), ['spec.group: Invalid value: "example": should be a domain with at least one dot']],
    ['an unsupported scope', (o) => (o.spec.scope = 'Global'), ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']],
    ['a plural that is not a DNS-1035 label', (o) => ((o.spec.names.plural = 'Widgets'), (o.metadata.name = 'Widgets.example.com')), [`metadata.name: Invalid value: "Widgets.example.com": ${SUB}`, `spec.names.plural: Invalid value: "Widgets": ${DNS1035}`]],
    ['a singular that is not a DNS-1035 label', (o) => (o.spec.names.singular = 'wid.get'), [`spec.names.singular: Invalid value: "wid.get": ${DNS1035}`]],
    ['a short name that is not a DNS-1035 label', (o) => (o.spec.names.shortNames = ['wd', '1w']), [`spec.names.shortNames[1]: Invalid value: "1w": ${DNS1035}`]],
    ['a version name that is not a DNS-1035 label', (o) => (o.spec.versions[0].name = 'V1'), [`spec.versions[0].name: Invalid value: "V1": ${DNS1035}`]],
    ['uniqueItems in the schema', (o) => (o.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties = { tags: { type: 'array', uniqueItems: true, items: { type: 'string' } } }), ['spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic']],
    ['uniqueItems under items', (o) => (o.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties = { tags: { type: 'array', items: { type: 'array', uniqueItems: true, items: { type: 'string' } } } }), ['spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags].items.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic']],
    ['a scale subresource without specReplicasPath', (o) => (o.spec.versions[0].subresources = { scale: { statusReplicasPath: '.status.replicas' } }), ['spec.versions[0].subresources.scale.specReplicasPath: Required value']],
    ['a cluster-scoped CRD', (o) => (o.spec.scope = 'Cluster'), []],
  ], it)
})
