/**
 * `--write-kubeconfig`: a kubeconfig for the administrator, with the server's CA and (when the
 * server has a CA of its own) a client certificate it signed. Written before the first
 * connection is accepted, so before /readyz can answer 200.
 */
import { dirname, resolve as resolvePath } from 'node:path'
import type { AddressInfo } from 'node:net'
import { type ServerKubeconfig, urlHost, writeKubeconfigFile } from '../../core/client/kubeconfig-writer.js'
import type { ServerConfig } from '../config.js'
import { StartupError } from '../lifecycle/startup-error.js'
import type { Logger } from '../log/logger.js'
import { adminClientCertMissing, ensureAdminClientCert } from '../tls/admin-client.js'
import { generateKey } from '../tls/generate.js'
import type { ServingTls } from '../tls/index.js'

/**
 * The administrator's client key, generated at once on a first start (with the serving
 * certificate's and the CA's), written only by writeKubeconfig. ECDSA P-256: the reference
 * writes no kubeconfig, so nothing asks for RSA here, and an RSA 2048 key costs 0.1-0.9 s of a
 * core to generate where a P-256 one costs well under a millisecond (see generatedKeyType).
 */
export function adminKeyInAdvance(config: ServerConfig, certDir: string): ReturnType<typeof generateKey> | undefined {
  const adminKey = (config.writeKubeconfig || config.mergeKubeconfig) && !config.tlsCertFile && adminClientCertMissing(certDir) ? generateKey('ecdsa') : undefined
  adminKey?.catch(() => undefined)
  return adminKey
}

/** Writes `--write-kubeconfig` and merges `--merge-kubeconfig` (when set) for the server at `address`. */
export async function writeKubeconfig(config: ServerConfig, parts: { address: AddressInfo; tls: ServingTls; certDir: string; adminKey?: ReturnType<typeof generateKey> }, log: Logger): Promise<void> {
  if (!config.writeKubeconfig && !config.mergeKubeconfig) return
  const { tls, certDir, adminKey } = parts
  const server = `https://${urlHost(config.bindAddress)}:${parts.address.port}`
  let kubeconfig: ServerKubeconfig
  try {
    // With a user-supplied serving certificate there is no CA of ours to sign a client certificate.
    const adminDir = tls.caFiles ? dirname(tls.caFiles.cert) : undefined
    const admin = adminDir ? await ensureAdminClientCert(adminDir, new Date(), resolvePath(adminDir) === resolvePath(certDir) ? adminKey : undefined) : undefined
    kubeconfig = {
      server,
      name: 'client',
      ...(tls.caCertPem ? { caPem: tls.caCertPem } : {}),
      ...(admin ? { clientCertPem: admin.certPem, clientKeyPem: admin.keyPem } : {}),
    }
  } catch (err) {
    throw new StartupError(`--write-kubeconfig: cannot prepare the administrator's certificate: ${(err as Error).message}`)
  }
  if (config.writeKubeconfig) {
    try {
      writeKubeconfigFile(config.writeKubeconfig, kubeconfig)
    } catch (err) {
      throw new StartupError(`--write-kubeconfig: cannot write ${config.writeKubeconfig}: ${(err as Error).message}`)
    }
    log.info(`wrote a kubeconfig for ${server} to ${config.writeKubeconfig} (kubectl --kubeconfig ${config.writeKubeconfig} get ns)`)
  }
  if (config.mergeKubeconfig) {
    try {
      // js-yaml and the merge are loaded only when asked for (start-up speed).
      const { mergeServerKubeconfig } = await import('../../core/client/kubeconfig-merge.js')
      mergeServerKubeconfig(config.mergeKubeconfig, kubeconfig)
    } catch (err) {
      throw new StartupError(`--merge-kubeconfig: cannot merge into ${config.mergeKubeconfig}: ${(err as Error).message}`)
    }
    log.info(`merged the context "client" for ${server} into ${config.mergeKubeconfig} and made it current (client kubeconfig remove --kubeconfig ${config.mergeKubeconfig} takes it out)`)
  }
}
