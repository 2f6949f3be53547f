// The upstream OpenAPI v2 document the generators read: the path given as their first
// argument, else ../shared/openapi/swagger.json beside the project (never read at run time).
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

export function readUpstreamSwagger(argv = process.argv) {
  const input = resolve(argv[2] ?? resolve(PROJECT_ROOT, '../shared/openapi/swagger.json'))
  return { input, swagger: JSON.parse(readFileSync(input, 'utf8')) }
}
