/** Attributes for a plugin's table test, as the reference's tests build them with NewAttributesRecord. */
import type { AdmissionAttributes, AdmissionOperation } from '../../../src/server/admission/attributes.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'

export interface AttributesFor {
  operation?: AdmissionOperation
  kind?: string
  group?: string
  resource?: string
  subresource?: string
  namespace?: string
  name?: string
  object?: KubeObject
  oldObject?: KubeObject
  dryRun?: boolean
}

export function attributesFor(over: AttributesFor = {}): AdmissionAttributes {
  const group = over.group ?? ''
  return {
    operation: over.operation ?? 'CREATE',
    kind: { group, version: 'version', kind: over.kind ?? 'Pod' },
    resource: { group, version: 'version', resource: over.resource ?? 'pods' },
    subresource: over.subresource ?? '',
    namespace: over.namespace ?? 'namespace',
    name: over.name ?? 'name',
    ...(over.object ? { object: over.object } : {}),
    ...(over.oldObject ? { oldObject: over.oldObject } : {}),
    dryRun: over.dryRun ?? false,
  }
}

/** The plugin's refusal as the client sees it: code, reason and message. */
export async function refusal(promise: Promise<void>): Promise<{ code: number; reason: string; message: string } | undefined> {
  try {
    await promise
    return undefined
  } catch (err) {
    const status = (err as { status?: { code: number; reason: string; message: string } }).status
    if (!status) throw err
    return { code: status.code, reason: status.reason, message: status.message }
  }
}

export const noLog = { log: () => {} }
