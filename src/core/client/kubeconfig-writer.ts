/**
 * A kubeconfig for one server, as a file kubectl and client libraries read: one cluster, one
 * (credential-less) user and one current context, all named the same. The file is written
 * beside its final name and renamed over it, so a reader never sees half of it, and is
 * readable by its owner only because it may later hold credentials.
 */
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { jsYaml } from '../util/yaml.js'

interface ServerKubeconfig {
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

export function kubeconfigText(cfg: ServerKubeconfig): string {
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
  const target = path.resolve(file)
  mkdirSync(path.dirname(target), { recursive: true })
  const temp = `${target}.${process.pid}.tmp`
  try {
    writeFileSync(temp, kubeconfigText(cfg), { mode: 0o600 })
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
