/**
 * The common strategy of a generated kind (the reference's defaults for a kind without its own
 * strategy code), with a kind's overrides on top.
 */
import type { ResourceInfo } from '../generated/resources.js'
import type { KubeObject } from '../registry/object.js'
import type { Strategy } from '../registry/strategy.js'
import { nameIsDNSSubdomain } from '../validation/names.js'
import { DEFAULT_COLUMNS } from '../table.js'
import type { KindOverrides } from './kind.js'
import { semanticEqual } from './semantic-equal.js'
import type { Obj } from './values.js'

/** Everything but metadata and status: a change there bumps metadata.generation. */
function specOf(o: KubeObject): Obj {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o
  void _m, void _s, void _a, void _k
  return rest
}

/** The common strategy of a generated kind, with its overrides on top. */
export function dataStrategy(info: ResourceInfo, overrides: KindOverrides = {}): Strategy {
  const { defaults, statusOwnedBySubresource: statusOwned = false, virtualSubresources = [], ...rest } = overrides
  const base: Strategy = {
    ...info,
    shortNames: [...info.shortNames],
    verbs: [...info.verbs],
    subresources: [...info.subresources, ...virtualSubresources],
    ...(info.categories ? { categories: [...info.categories] } : {}),
    generation: false,
    validateName: nameIsDNSSubdomain,
    prepareForCreate(o) {
      if (statusOwned) delete o.status
    },
    prepareForUpdate(o, old) {
      if (!statusOwned) return
      if (old.status === undefined) delete o.status
      else o.status = old.status
    },
    validate: () => [],
    specChanged: (o, old) => !semanticEqual(specOf(o), specOf(old)),
    selectableFields: info.namespaced ? ['metadata.name', 'metadata.namespace'] : ['metadata.name'],
    fields: (o) => ({ 'metadata.name': o.metadata.name ?? '', ...(info.namespaced ? { 'metadata.namespace': o.metadata.namespace ?? '' } : {}) }),
    table: DEFAULT_COLUMNS,
  }
  const strategy: Strategy = { ...base, ...rest }
  if (overrides.prepareForCreate) {
    strategy.prepareForCreate = (o) => {
      base.prepareForCreate(o)
      overrides.prepareForCreate!(o)
    }
  }
  if (overrides.prepareForUpdate) {
    strategy.prepareForUpdate = (o, old) => {
      base.prepareForUpdate(o, old)
      overrides.prepareForUpdate!(o, old)
    }
  }
  if (defaults) {
    const create = strategy.prepareForCreate
    const update = strategy.prepareForUpdate
    strategy.prepareForCreate = (o) => {
      defaults(o)
      create(o)
    }
    strategy.prepareForUpdate = (o, old) => {
      defaults(o)
      update(o, old)
    }
  }
  if (overrides.selectableFields || overrides.fields) {
    const extra = overrides.fields ?? (() => ({}))
    strategy.selectableFields = [...base.selectableFields, ...(overrides.selectableFields ?? [])]
    strategy.fields = (o) => ({ ...base.fields(o), ...extra(o) })
  }
  return strategy
}
