/** What the audit log end-to-end tests share: the policy and reading the log's JSON lines. */
import { readFileSync } from 'node:fs'
import type { AuditEvent } from '../../../src/server/audit/event.js'

/** The policy: nodes ignored, secrets at Metadata, config maps at RequestResponse. */
export const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  userGroups: ["system:nodes"]
- level: Metadata
  resources:
  - group: ""
    resources: ["secrets"]
- level: RequestResponse
  resources:
  - group: ""
    resources: ["configmaps"]
`

/** The events of a JSON log, one per line (as `jq -c` reads them). */
export function readEvents(path: string): AuditEvent[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditEvent)
}
