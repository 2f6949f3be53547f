/**
 * The served part of the reference's OpenAPI v2 document (scripts/gen-openapi.mjs), decoded
 * on first use only: a server that nobody asks for OpenAPI, and that validates no object,
 * never loads it.
 */
import { gunzipSync } from 'node:zlib'

export type Json = Record<string, unknown>

interface OpenApiPath {
  path: string
  /** `api/v1`, `apis/<group>/<version>`, `apis/<group>` or '' (`/api/`, `/apis/`). */
  gv: string
  /** The resource the path serves, or '' for discovery paths. */
  resource: string
  /** `status`, `scale`, `log`, ... or '' for the resource itself. */
  subresource: string
  item: Json
}

export interface OpenApiData {
  swagger: string
  info: Json
  security: unknown[]
  securityDefinitions: Json
  parameters: Record<string, Json>
  definitions: Record<string, Json>
  paths: OpenApiPath[]
}

let loading: Promise<OpenApiData> | undefined
let loadingDefinitions: Promise<Record<string, Json>> | undefined

export function loadOpenApiData(): Promise<OpenApiData> {
  loading ??= import('./generated/openapi-data.js').then(
    (m) => JSON.parse(gunzipSync(Buffer.from(m.OPENAPI_GZIP_BASE64, 'base64')).toString('utf8')) as OpenApiData,
  )
  return loading
}

/**
 * The document's definitions without their descriptions (generated/openapi-definitions.ts):
 * what decoding a request body reads, a tenth of the cost of the whole document to load.
 */
export function loadOpenApiDefinitions(): Promise<Record<string, Json>> {
  loadingDefinitions ??= import('./generated/openapi-definitions.js').then((m) => JSON.parse(m.OPENAPI_DEFINITIONS_JSON) as Record<string, Json>)
  return loadingDefinitions
}
