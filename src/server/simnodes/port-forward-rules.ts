/**
 * kwok's PortForward and ClusterPortForward (kwok.x-k8s.io/v1alpha1), read from YAML as kwok
 * users write them: a PortForward names one pod (its own name and namespace), a
 * ClusterPortForward selects pods (`selector.matchNamespaces`, `matchNames`; empty matches
 * all); each has `spec.forwards[]`, a forward for its `ports` (none: every port) to a `target`
 * (`{port, address}`), a `command` given the stream as stdin and stdout, or `httpRoutes`
 * (`location`, `code`, `headers`, `body`). The choice follows kwok's getPodsForward: the pod's
 * own PortForward first (then no other rule applies), else the first ClusterPortForward with a
 * forward for the port; within a list, the forward naming the port, else the first without ports.
 */
import { loadAllYaml } from '../../core/util/yaml.js'

type Obj = Record<string, unknown>

export interface HttpRoute {
  location: string
  code: number
  headers: Array<{ name: string; value: string }>
  body: string
}

export interface Forward {
  ports: number[]
  target?: { port: number; address: string }
  command?: string[]
  httpRoutes?: HttpRoute[]
}

export interface PortForwardRules {
  podRules: Array<{ name: string; namespace: string; forwards: Forward[] }>
  clusterRules: Array<{ namespaces: string[]; names: string[]; forwards: Forward[] }>
}

/** What the rules say for a port of a pod: a forward, kwok's error, or nothing (no rule names the pod). */
export type RuleAnswer = { forward: Forward } | { error: string } | undefined

const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {})
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])
const strings = (v: unknown): string[] => asList(v).map(String)

export const NO_RULES: PortForwardRules = { podRules: [], clusterRules: [] }

/** The PortForward and ClusterPortForward documents of YAML texts (other kinds are skipped). */
export function parsePortForwardRules(texts: readonly string[]): PortForwardRules {
  const rules: PortForwardRules = { podRules: [], clusterRules: [] }
  for (const doc of texts.flatMap((t) => loadAllYaml(t)).map(asObj)) {
    if (doc.apiVersion !== undefined && doc.apiVersion !== 'kwok.x-k8s.io/v1alpha1') continue
    const meta = asObj(doc.metadata)
    const spec = asObj(doc.spec)
    const forwards = asList(spec.forwards).map((f) => forwardOf(asObj(f)))
    if (doc.kind === 'PortForward') rules.podRules.push({ name: String(meta.name ?? ''), namespace: String(meta.namespace ?? 'default'), forwards })
    else if (doc.kind === 'ClusterPortForward') {
      const selector = asObj(spec.selector)
      rules.clusterRules.push({ namespaces: strings(selector.matchNamespaces), names: strings(selector.matchNames), forwards })
    }
  }
  return rules
}

function forwardOf(f: Obj): Forward {
  const forward: Forward = { ports: asList(f.ports).map(Number) }
  const target = asObj(f.target)
  if (f.target !== undefined) forward.target = { port: Number(target.port ?? 0), address: String(target.address ?? '') }
  if (asList(f.command).length > 0) forward.command = strings(f.command)
  const routes = asList(f.httpRoutes).map(asObj)
  if (routes.length > 0) {
    forward.httpRoutes = routes.map((r) => ({
      location: String(r.location ?? ''),
      code: Number(r.code ?? 200),
      headers: asList(r.headers).map((h) => ({ name: String(asObj(h).name ?? ''), value: String(asObj(h).value ?? '') })),
      body: String(r.body ?? ''),
    }))
  }
  return forward
}

/** kwok's findPortInForwards: the forward naming the port, else the first with no ports. */
function findPort(port: number, forwards: Forward[]): Forward | undefined {
  let fallback: Forward | undefined
  for (const f of forwards) {
    if (f.ports.length === 0) {
      fallback ??= f
      continue
    }
    if (f.ports.includes(port)) return f
  }
  return fallback
}

export function findForward(rules: PortForwardRules, name: string, namespace: string, port: number): RuleAnswer {
  const own = rules.podRules.find((r) => r.name === name && r.namespace === namespace)
  if (own) {
    const forward = findPort(port, own.forwards)
    return forward ? { forward } : { error: `forward not found for port ${port} in pod "${namespace}/${name}"` }
  }
  for (const rule of rules.clusterRules) {
    if (rule.namespaces.length > 0 && !rule.namespaces.includes(namespace)) continue
    if (rule.names.length > 0 && !rule.names.includes(name)) continue
    const forward = findPort(port, rule.forwards)
    if (forward) return { forward }
  }
  return undefined
}
