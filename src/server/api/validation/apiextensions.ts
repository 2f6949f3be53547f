/**
 * Validation of the apiextensions.k8s.io API group, after the reference's
 * `staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation`: a
 * CustomResourceDefinition's group, names, scope and versions (one storage version, at least
 * one served, scale subresource paths, no uniqueItems in a schema) and its name
 * (`<plural>.<group>`).
 */
import { type KubeObject, isPlainObject } from '../registry/object.js'
import { invalidValue, isDNS1123Subdomain, requiredValue } from '../registry/strategy.js'
import type { Cause } from '../status-errors.js'
import { isDNS1035Label } from './core.js'
import { forbidden } from './field/index.js'
import { type Obj, arr, obj } from './helpers.js'

const str = (v: unknown): string => (typeof v === 'string' ? v : '')
const specOf = (o: KubeObject): Obj => obj(o.spec)

function validateNames(names: Obj, path: string): Cause[] {
  const causes: Cause[] = []
  for (const field of ['plural', 'singular', 'kind', 'listKind'] as const) {
    const value = str(names[field])
    if (value === '') {
      causes.push(requiredValue(`${path}.${field}`, ''))
      continue
    }
    if (field === 'plural' || field === 'singular') {
      const errs = isDNS1035Label(value)
      if (errs.length > 0) causes.push(invalidValue(`${path}.${field}`, value, errs.join(',')))
    } else if (!/^[A-Za-z]([-A-Za-z0-9]*[A-Za-z0-9])?$/.test(value) || value.length > 63) {
      causes.push(invalidValue(`${path}.${field}`, value, `may have mixed case, but should otherwise match: [a-z]([-a-z0-9]*[a-z0-9])?`))
    }
  }
  for (const [i, s] of arr(names.shortNames).entries()) {
    const errs = isDNS1035Label(str(s))
    if (errs.length > 0) causes.push(invalidValue(`${path}.shortNames[${i}]`, s, errs.join(',')))
  }
  return causes
}

/**
 * ValidateCustomResourceDefinitionOpenAPISchema's rule for uniqueItems (the runtime check is
 * quadratic, so the reference refuses it), through properties, items and additionalProperties.
 */
function forbiddenUniqueItems(schema: Obj, path: string): Cause[] {
  const causes: Cause[] = []
  if (schema.uniqueItems === true) causes.push(forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'))
  for (const [k, v] of Object.entries(obj(schema.properties))) if (isPlainObject(v)) causes.push(...forbiddenUniqueItems(v, `${path}.properties[${k}]`))
  if (isPlainObject(schema.items)) causes.push(...forbiddenUniqueItems(schema.items, `${path}.items`))
  if (isPlainObject(schema.additionalProperties)) causes.push(...forbiddenUniqueItems(schema.additionalProperties, `${path}.additionalProperties`))
  return causes
}

export function validateCRD(o: KubeObject): Cause[] {
  const causes: Cause[] = []
  const spec = specOf(o)
  const group = str(spec.group)
  if (group === '') causes.push(requiredValue('spec.group', ''))
  else {
    const errs = isDNS1123Subdomain(group)
    if (errs.length > 0) causes.push(invalidValue('spec.group', group, errs.join(',')))
    else if (group.split('.').length < 2) causes.push(invalidValue('spec.group', group, 'should be a domain with at least one dot'))
  }
  const names = obj(spec.names)
  causes.push(...validateNames(names, 'spec.names'))
  const scope = str(spec.scope)
  if (scope === '') causes.push(requiredValue('spec.scope', ''))
  else if (scope !== 'Namespaced' && scope !== 'Cluster') {
    causes.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(scope)}: supported values: "Cluster", "Namespaced"`, field: 'spec.scope' })
  }
  const versions = arr(spec.versions).map(obj)
  if (versions.length === 0) causes.push(requiredValue('spec.versions', 'must have exactly one version marked as storage version'))
  else {
    const seen = new Set<string>()
    versions.forEach((v, i) => {
      const name = str(v.name)
      if (name === '') causes.push(requiredValue(`spec.versions[${i}].name`, ''))
      else if (isDNS1035Label(name).length > 0) causes.push(invalidValue(`spec.versions[${i}].name`, name, isDNS1035Label(name).join(',')))
      else if (seen.has(name)) causes.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(name)}`, field: `spec.versions[${i}].name` })
      seen.add(name)
      const schema = obj(v.schema).openAPIV3Schema
      if (isPlainObject(schema)) causes.push(...forbiddenUniqueItems(schema, `spec.versions[${i}].schema.openAPIV3Schema`))
      const scale = obj(obj(v.subresources).scale)
      if (isPlainObject(obj(v.subresources).scale)) {
        for (const p of ['specReplicasPath', 'statusReplicasPath'] as const) {
          const path = str(scale[p])
          if (path === '') causes.push(requiredValue(`spec.versions[${i}].subresources.scale.${p}`, ''))
          else if (!path.startsWith('.')) causes.push(invalidValue(`spec.versions[${i}].subresources.scale.${p}`, path, 'should be a json path'))
        }
      }
    })
    const storage = versions.filter((v) => v.storage === true).length
    if (storage !== 1) causes.push(invalidValue('spec.versions', `[${versions.map((v) => str(v.name)).join(' ')}]`, 'must have exactly one version marked as storage version'))
    if (!versions.some((v) => v.served === true)) causes.push(invalidValue('spec.versions', `[${versions.map((v) => str(v.name)).join(' ')}]`, 'must have at least one version marked as served'))
  }
  const name = o.metadata.name ?? ''
  const plural = str(names.plural)
  if (name !== '' && name !== `${plural}.${group}`) causes.push(invalidValue('metadata.name', name, 'must be spec.names.plural+"."+spec.group'))
  return causes
}
