/**
 * The legacy service-account token controller (the reference's serviceaccount TokensController,
 * which runs in kube-controller-manager): a Secret of type `kubernetes.io/service-account-token`
 * annotated `kubernetes.io/service-account.name: <sa>` gets a token that never expires, signed by
 * the service-account key with issuer `kubernetes/serviceaccount`, and the cluster CA and the
 * namespace, under `data.token`, `data.ca.crt` and `data.namespace`; the service account's uid is
 * recorded in `kubernetes.io/service-account.uid`. When the service account is deleted, its
 * token secrets are deleted too. The legacy branch of the service-account authenticator accepts
 * these tokens while (with --service-account-lookup) the secret and the service account exist.
 */
import { SignJWT } from 'jose'
import { Informer } from '../api/registry/informer.js'
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import { LEGACY_ISSUER, serviceAccountUsername } from '../authentication/service-account.js'
import type { SigningKey } from '../authentication/service-account-keys.js'
import type { Controller, ControllerContext } from './controller.js'

export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token'
export const SA_NAME_ANNOTATION = 'kubernetes.io/service-account.name'
export const SA_UID_ANNOTATION = 'kubernetes.io/service-account.uid'

/** The legacy token of a secret: no expiry, the reference's `kubernetes.io/serviceaccount/*` claims. */
export function legacyToken(key: SigningKey, namespace: string, serviceAccount: { name: string; uid: string }, secretName: string): Promise<string> {
  return new SignJWT({
    'kubernetes.io/serviceaccount/namespace': namespace,
    'kubernetes.io/serviceaccount/secret.name': secretName,
    'kubernetes.io/serviceaccount/service-account.name': serviceAccount.name,
    'kubernetes.io/serviceaccount/service-account.uid': serviceAccount.uid,
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid })
    .setIssuer(LEGACY_ISSUER)
    .setSubject(serviceAccountUsername(namespace, serviceAccount.name))
    .sign(key.privateKey)
}

const b64 = (text: string) => Buffer.from(text).toString('base64')

export interface LegacyTokenControllerOptions {
  key: SigningKey
  /** The cluster CA published as `ca.crt` (the server's CA). */
  caPem?: string
  onError?: (err: Error) => void
}

export class LegacyTokenController implements Controller {
  /** kube-controller-manager's name for its TokensController. */
  readonly name = 'serviceaccount-token-controller'
  private informers: Informer[] = []
  private queue: Promise<void> = Promise.resolve()
  /** Token secrets by namespace/service-account name, for deleting them with their account. */
  private readonly secrets = new Map<string, KubeObject>()

  constructor(private readonly options: LegacyTokenControllerOptions) {}

  start(ctx: ControllerContext): void {
    const { registry } = ctx
    const secrets = registry.lookup('', 'v1', 'secrets')
    const accounts = registry.lookup('', 'v1', 'serviceaccounts')
    if (!secrets || !accounts) return
    const enqueue = (work: () => Promise<void>) => {
      this.queue = this.queue.then(work).catch((err: Error) => this.options.onError?.(err))
    }
    const secretInformer = new Informer(
      secrets,
      {
        upsert: (secret) => {
          if (secret.type !== SERVICE_ACCOUNT_TOKEN_TYPE) return
          this.secrets.set(`${secret.metadata.namespace}/${secret.metadata.name}`, secret)
          enqueue(() => this.fill(registry, secret))
        },
        remove: (secret) => {
          this.secrets.delete(`${secret.metadata.namespace}/${secret.metadata.name}`)
        },
      },
      this.options.onError,
    )
    const accountInformer = new Informer(
      accounts,
      {
        upsert: (account) => {
          // A secret created before its service account is filled once the account exists.
          for (const secret of this.secrets.values()) {
            if (secret.metadata.namespace === account.metadata.namespace && secret.metadata.annotations?.[SA_NAME_ANNOTATION] === account.metadata.name) {
              enqueue(() => this.fill(registry, secret))
            }
          }
        },
        remove: (account) => enqueue(() => this.deleteTokensOf(registry, account)),
      },
      this.options.onError,
    )
    this.informers.push(secretInformer, accountInformer)
    secretInformer.start()
    accountInformer.start()
  }

  stop(): void {
    for (const informer of this.informers) informer.stop()
    this.informers = []
  }

  /** Puts the token, the CA and the namespace in the secret when they are missing. */
  private async fill(registry: Registry, secret: KubeObject): Promise<void> {
    const namespace = secret.metadata.namespace ?? ''
    const accountName = secret.metadata.annotations?.[SA_NAME_ANNOTATION]
    const data = (secret.data ?? {}) as Record<string, string>
    if (!accountName || (data.token && secret.metadata.annotations?.[SA_UID_ANNOTATION])) return
    const accounts = registry.lookup('', 'v1', 'serviceaccounts')!
    let account: KubeObject
    try {
      account = await accounts.get(namespace, accountName)
    } catch {
      return
    }
    const uid = account.metadata.uid ?? ''
    const recordedUid = secret.metadata.annotations?.[SA_UID_ANNOTATION]
    // The secret names another (deleted and recreated) account of that name: not filled.
    if (recordedUid && recordedUid !== uid) return
    const token = await legacyToken(this.options.key, namespace, { name: accountName, uid }, secret.metadata.name ?? '')
    await registry.lookup('', 'v1', 'secrets')!.rewrite(namespace, secret.metadata.name ?? '', (o) => {
      const current = (o.data ?? {}) as Record<string, string>
      if (current.token && o.metadata.annotations?.[SA_UID_ANNOTATION]) return
      o.metadata.annotations = { ...o.metadata.annotations, [SA_UID_ANNOTATION]: uid }
      o.data = {
        ...current,
        ...(this.options.caPem ? { 'ca.crt': b64(this.options.caPem) } : {}),
        namespace: b64(namespace),
        token: current.token ?? b64(token),
      }
    })
  }

  private async deleteTokensOf(registry: Registry, account: KubeObject): Promise<void> {
    const secrets = registry.lookup('', 'v1', 'secrets')!
    for (const secret of [...this.secrets.values()]) {
      const annotations = secret.metadata.annotations ?? {}
      if (secret.metadata.namespace !== account.metadata.namespace || annotations[SA_NAME_ANNOTATION] !== account.metadata.name) continue
      if (annotations[SA_UID_ANNOTATION] && annotations[SA_UID_ANNOTATION] !== account.metadata.uid) continue
      await secrets.delete(secret.metadata.namespace, secret.metadata.name ?? '').catch(() => undefined)
    }
  }
}
