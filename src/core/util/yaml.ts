/**
 * js-yaml, loaded on first use: most runs of the CLI never read YAML, and start-up time is
 * part of the product (a flag check in CI runs on every commit).
 */
import { createRequire } from 'node:module'

type JsYaml = typeof import('js-yaml')

let yaml: JsYaml | undefined

export function jsYaml(): JsYaml {
  yaml ??= createRequire(import.meta.url)('js-yaml') as JsYaml
  return yaml
}
