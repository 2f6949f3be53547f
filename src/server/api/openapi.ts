/**
 * The smallest OpenAPI v3 documents kubectl needs: `create -f`, `apply -f` and `edit` look for a
 * PATCH operation per GVK that lists the `fieldValidation` query parameter, and send
 * `fieldValidation=Strict` instead of validating on the client (which needs /openapi/v2,
 * left 404: kubectl ignores that). No requestBody is advertised, so client-side apply uses
 * its compiled-in strategic merge types (research kubectl-client.md section 4).
 */
import type { Handler } from '../http/types.js'
import { jsonResponse } from '../http/respond.js'
import { groupVersion } from './discovery.js'
import type { Strategy } from './registry/strategy.js'

function gvPath(s: Strategy): string {
  return s.group === '' ? `api/${s.version}` : `apis/${s.group}/${s.version}`
}

export function openApiHandlers(kinds: readonly Strategy[]): Array<[string, Handler]> {
  const byGv = new Map<string, Strategy[]>()
  for (const k of kinds) byGv.set(gvPath(k), [...(byGv.get(gvPath(k)) ?? []), k])
  const root = { paths: Object.fromEntries([...byGv.keys()].map((p) => [p, { serverRelativeURL: `/openapi/v3/${p}` }])) }
  const handlers: Array<[string, Handler]> = [['/openapi/v3', (_req, res) => jsonResponse(res, 200, root)]]
  for (const [path, gvKinds] of byGv) {
    const doc = {
      openapi: '3.0.0',
      info: { title: 'Kubernetes', version: groupVersion(gvKinds[0]!) },
      paths: Object.fromEntries(
        gvKinds.map((k) => [
          `/${path}/${k.namespaced ? 'namespaces/{namespace}/' : ''}${k.resource}/{name}`,
          {
            patch: {
              'x-kubernetes-group-version-kind': { group: k.group, version: k.version, kind: k.kind },
              parameters: [
                { name: 'dryRun', in: 'query', schema: { type: 'string' } },
                { name: 'fieldManager', in: 'query', schema: { type: 'string' } },
                { name: 'fieldValidation', in: 'query', schema: { type: 'string' } },
              ],
            },
          },
        ]),
      ),
    }
    handlers.push([`/openapi/v3/${path}`, (_req, res) => jsonResponse(res, 200, doc)])
  }
  return handlers
}
