/**
 * A kubeconfig for one server, as a file kubectl and client libraries read: one cluster, one
 * (credential-less) user and one current context, all named the same. The file is written
 * beside its final name and renamed over it, so a reader never sees half of it, and is
 * readable by its owner only because it may later hold credentials.
 */
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { jsYaml } from '../util/yaml.js'

export interface ServerKubeconfig {
  /** `https://host:port`. */
  server: string
  /** PEM of the CA to trust; without it the system's roots are used. */
  caPem?: string
  /** Cluster, user and context name. */
  name: string
  /** The user's client certificate and key (PEM); without them the user entry is empty. */
  clientCertPem?: string
  clientKeyPem?: string
}

/**
 * Scalars that js-yaml writes plain (unquoted) whatever their place: a letter first, then
 * letters, digits and the URL characters below, and not a word YAML reads as something else.
 */
const PLAIN_NAME = /^[a-z][a-z0-9-]*$/
const PLAIN_SERVER = /^https:\/\/[A-Za-z0-9.[\]:-]+$/
const NOT_PLAIN_WORDS = new Set(['y', 'n', 'yes', 'no', 'on', 'off', 'true', 'false', 'null'])

/**
 * The server's kubeconfig, written at every start: the text js-yaml's dump gives (the test
 * compares the two), without loading js-yaml (a side bundle) on the path to ready. A name or
 * address that js-yaml might quote goes through js-yaml itself.
 */
function plainKubeconfigText(cfg: ServerKubeconfig): string | undefined {
  if (!PLAIN_NAME.test(cfg.name) || NOT_PLAIN_WORDS.has(cfg.name) || !PLAIN_SERVER.test(cfg.server)) return undefined
  const ca = cfg.caPem ? `      certificate-authority-data: ${Buffer.from(cfg.caPem).toString('base64')}\n` : ''
  const user =
    cfg.clientCertPem && cfg.clientKeyPem
      ? `    user:\n      client-certificate-data: ${Buffer.from(cfg.clientCertPem).toString('base64')}\n      client-key-data: ${Buffer.from(cfg.clientKeyPem).toString('base64')}\n`
      : '    user: {}\n'
  const n = cfg.name
  return (
    `apiVersion: v1\nkind: Config\nclusters:\n  - name: ${n}\n    cluster:\n      server: ${cfg.server}\n${ca}` +
    `users:\n  - name: ${n}\n${user}contexts:\n  - name: ${n}\n    context:\n      cluster: ${n}\n      user: ${n}\n` +
    `current-context: ${n}\npreferences: {}\n`
  )
}

export function kubeconfigText(cfg: ServerKubeconfig): string {
  return plainKubeconfigText(cfg) ?? dumpedKubeconfigText(cfg)
}

/** The kubeconfig as js-yaml dumps it. */
export function dumpedKubeconfigText(cfg: ServerKubeconfig): string {
  const cluster: Record<string, string> = { server: cfg.server }
  if (cfg.caPem) cluster['certificate-authority-data'] = Buffer.from(cfg.caPem).toString('base64')
  const user: Record<string, string> = {}
  if (cfg.clientCertPem && cfg.clientKeyPem) {
    user['client-certificate-data'] = Buffer.from(cfg.clientCertPem).toString('base64')
    user['client-key-data'] = Buffer.from(cfg.clientKeyPem).toString('base64')
  }
  return jsYaml().dump(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: cfg.name, cluster }],
      users: [{ name: cfg.name, user }],
      contexts: [{ name: cfg.name, context: { cluster: cfg.name, user: cfg.name } }],
      'current-context': cfg.name,
      preferences: {},
    },
    { lineWidth: -1 },
  )
}

export function writeKubeconfigFile(file: string, cfg: ServerKubeconfig): void {
  writeOwnerOnly(file, kubeconfigText(cfg))
}

/** Writes `text` beside `file` and renames it over it, readable by its owner only. */
export function writeOwnerOnly(file: string, text: string): void {
  const target = path.resolve(file)
  mkdirSync(path.dirname(target), { recursive: true })
  const temp = `${target}.${process.pid}.tmp`
  try {
    writeFileSync(temp, text, { mode: 0o600 })
    chmodSync(temp, 0o600)
    renameSync(temp, target)
  } catch (err) {
    rmSync(temp, { force: true })
    throw err
  }
}

/** The host part of a URL for a listening address: IPv6 in brackets, unspecified as loopback. */
export function urlHost(address: string): string {
  if (address === '' || address === '0.0.0.0') return '127.0.0.1'
  if (address === '::') return '[::1]'
  return address.includes(':') ? `[${address}]` : address
}
