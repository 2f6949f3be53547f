#!/usr/bin/env node
/**
 * Re-creates test/fixtures/api-resources/openapi-resources.json: what the acceptance test of
 * the served API needs of the reference's OpenAPI v2 document, copied as it is there. For
 * every resource path (`/api/v1/...`, `/apis/<group>/<version>/...`, namespaced or not, with
 * `{name}` and subresource paths) its operations' `x-kubernetes-action` and
 * `x-kubernetes-group-version-kind`. Run:
 *   node scripts/copy-api-resource-fixtures.mjs [/work/shared/openapi/swagger.json]
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PROJECT_ROOT, readUpstreamSwagger } from './lib/upstream-openapi.mjs'

const { swagger, input } = readUpstreamSwagger()
const paths = {}
for (const [path, item] of Object.entries(swagger.paths)) {
  if (!/^\/(api\/v1|apis\/[^/]+\/[^/]+)\/./.test(path) || /\/watch\//.test(path)) continue
  const ops = {}
  for (const [method, op] of Object.entries(item)) {
    if (op === null || typeof op !== 'object' || !op['x-kubernetes-action']) continue
    ops[method] = { action: op['x-kubernetes-action'], gvk: op['x-kubernetes-group-version-kind'] }
  }
  if (Object.keys(ops).length > 0) paths[path] = ops
}
const dir = join(PROJECT_ROOT, 'test/fixtures/api-resources')
mkdirSync(dir, { recursive: true })
const lines = Object.entries(paths).map(([p, ops]) => `  ${JSON.stringify(p)}: ${JSON.stringify(ops)}`)
writeFileSync(join(dir, 'openapi-resources.json'), `{\n${lines.join(',\n')}\n}\n`)
console.log(`copied ${lines.length} paths from ${input}`)
