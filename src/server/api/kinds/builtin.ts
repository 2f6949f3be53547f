/**
 * The built-in kinds as data: each is the generated ResourceInfo (names, scope, verbs) plus its
 * entry in its API group's file (defaulting, validation, field selectors, Table columns, store
 * hooks) where the reference's behaviour shows. Everything else is the common strategy
 * (data-strategy.ts). The validation itself is in ../validation/, one file per API group.
 *
 * Adding a kind: its resource data is generated into ../generated/resources.ts by
 * scripts/gen-api-resources.mjs; its behaviour is one entry, keyed `<group>/<version>/<resource>`,
 * in its group's table below (a new group: a new file and one line in ENTRIES).
 */
import { RESOURCES, type ResourceInfo } from '../generated/resources.js'
import type { Strategy } from '../registry/strategy.js'
import { ADMISSION_REGISTRATION } from './admissionregistration.js'
import { API_REGISTRATION } from './apiregistration.js'
import { APISERVER_INTERNAL } from './apiserverinternal.js'
import { APPS } from './apps.js'
import { AUTOSCALING } from './autoscaling.js'
import { BATCH } from './batch.js'
import { CERTIFICATES } from './certificates.js'
import { COORDINATION } from './coordination.js'
import { CORE_CLUSTER } from './core-cluster.js'
import { CORE_CONFIG } from './core-config.js'
import { CORE_EVENTS } from './core-events.js'
import { CORE_SERVICES } from './core-services.js'
import { CORE_STORAGE } from './core-storage.js'
import { CORE_WORKLOADS } from './core-workloads.js'
import { dataStrategy } from './data-strategy.js'
import { DISCOVERY } from './discovery.js'
import { EVENTS } from './events.js'
import { FLOWCONTROL } from './flowcontrol.js'
import type { KindOverrides, KindTable } from './kind.js'
import { NETWORKING } from './networking.js'
import { NODE } from './node.js'
import { POLICY } from './policy.js'
import { RBAC } from './rbac.js'
import { RESOURCE } from './resource.js'
import { SCHEDULING } from './scheduling.js'
import { STORAGE } from './storage.js'
import { STORAGE_MIGRATION } from './storagemigration.js'
import { CREATED_AT } from './values.js'

/** Every built-in kind's entry, by `<group>/<version>/<resource>`: one table per API group. */
export const ENTRIES: KindTable = {
  ...CORE_WORKLOADS,
  ...CORE_SERVICES,
  ...CORE_CONFIG,
  ...CORE_STORAGE,
  ...CORE_CLUSTER,
  ...CORE_EVENTS,
  ...API_REGISTRATION,
  ...APPS,
  ...EVENTS,
  ...AUTOSCALING,
  ...BATCH,
  ...CERTIFICATES,
  ...NETWORKING,
  ...POLICY,
  ...RBAC,
  ...STORAGE,
  ...ADMISSION_REGISTRATION,
  ...SCHEDULING,
  ...COORDINATION,
  ...NODE,
  ...DISCOVERY,
  ...FLOWCONTROL,
  ...APISERVER_INTERNAL,
  ...RESOURCE,
  ...STORAGE_MIGRATION,
}

const entryKey = (group: string, version: string, resource: string) => `${group}/${version}/${resource}`

/**
 * A beta or alpha version's behaviour is its GA version's (defaults, printer, selectors),
 * without the GA version's storage form.
 */
function gaEntry(info: ResourceInfo): KindOverrides | undefined {
  if (/^v\d+$/.test(info.version)) return undefined
  const ga = Object.entries(ENTRIES).find(([key]) => {
    const [group, version, resource] = key.split('/')
    return group === info.group && resource === info.resource && /^v\d+$/.test(version ?? '')
  })
  if (!ga) return undefined
  const { storageVersion: _s, ...rest } = ga[1]
  void _s
  return rest
}

function entryOf(info: ResourceInfo): KindOverrides {
  const entry = ENTRIES[entryKey(info.group, info.version, info.resource)] ?? gaEntry(info) ?? {}
  // Kinds the reference has no printer for get its default Table: name and creation time.
  return { table: CREATED_AT, ...entry }
}

/** Every generated kind as a Strategy. */
export const BUILTIN_KINDS: readonly Strategy[] = RESOURCES.map((info) => dataStrategy(info, entryOf(info)))
