/**
 * The CronTab CustomResourceDefinition of the Kubernetes documentation, established, with the
 * `spec` schema a test needs (as the stored object the API's OpenAPI builders read).
 */
import type { KubeObject } from '../../src/server/api/registry/object.js'

export function crontabCrd(specSchema: Record<string, unknown>): KubeObject {
  const names = { plural: 'crontabs', singular: 'crontab', kind: 'CronTab' }
  return {
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: 'Namespaced',
      names,
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: specSchema } } } }],
    },
    status: { conditions: [{ type: 'Established', status: 'True' }], acceptedNames: names },
  }
}
