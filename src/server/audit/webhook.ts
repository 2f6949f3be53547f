/**
 * The audit webhook backend (the reference's plugin/pkg/audit/webhook): each call POSTs its
 * events as one `audit.k8s.io/v1` EventList to the server of the kubeconfig-format file
 * (`--audit-webhook-config-file`), through the GenericWebhook ImagePolicyWebhook uses too.
 * Unlike the other webhooks it tries again on any failure, not only the transient ones (the
 * reference's retryOnError: a receiver answering 400 by mistake would otherwise lose events),
 * up to five attempts with the pauses of `--audit-webhook-initial-backoff` ×1.5. Events it
 * could not deliver are reported with the last attempt's error (audit.HandlePluginError).
 * The mode (batch by default: a slow or dead receiver holds no request, and events past the
 * buffer are dropped and counted), batching, throttling and truncation wrap it (mode.ts), as
 * the reference's options do.
 */
import type { AuditWebhookConfig } from '../config.js'
import { GenericWebhook, loadKubeconfig } from '../http/generic-webhook.js'
import { StartupError } from '../lifecycle/startup-error.js'
import type { AuditBackend } from './backend.js'
import type { AuditEvent, AuditEventList } from './event.js'
import { type AuditBackendOptions, backendOptions, wrapBackend } from './mode.js'
import { type PluginErrorHandler, ignorePluginErrors } from './plugin-error.js'

/** The plugin's name in messages and in apiserver_audit_error_total{plugin}. */
export const WEBHOOK_PLUGIN = 'webhook'

/** The reference's retryOnError: every failure is worth another attempt. */
export function retryOnError(err: unknown): boolean {
  return err !== undefined && err !== null
}

/**
 * The EventList a batch is sent as. Its items carry no kind or apiVersion: the reference
 * converts the internal list to v1 and the conversion leaves the items' TypeMeta empty. Each
 * item is a copy, so the caller may reuse its events (the next stage) at once.
 */
export function eventList(events: readonly AuditEvent[]): AuditEventList {
  return {
    kind: 'EventList',
    apiVersion: 'audit.k8s.io/v1',
    metadata: {},
    items: events.map(({ kind: _kind, apiVersion: _apiVersion, ...item }) => item as AuditEvent),
  }
}

/**
 * The reference's loadWebhook: the kubeconfig's server and credentials, retried on any error;
 * a file that cannot be used stops start-up with the reference's words.
 */
export function loadAuditWebhook(configFile: string, initialBackoffMs: number): GenericWebhook {
  try {
    return new GenericWebhook(loadKubeconfig(configFile), initialBackoffMs, retryOnError)
  } catch (err) {
    throw new StartupError(`initializing audit webhook: ${(err as Error).message}`)
  }
}

export class WebhookBackend implements AuditBackend {
  readonly name = WEBHOOK_PLUGIN

  constructor(
    private readonly webhook: GenericWebhook,
    private readonly onError: PluginErrorHandler = ignorePluginErrors,
  ) {}

  /** Resolves to true once the receiver took the events, false when every attempt failed. */
  processEvents(...events: AuditEvent[]): Promise<boolean> {
    const list = eventList(events)
    return this.webhook.send(list).then(
      () => true,
      (err: unknown) => {
        this.onError(this.name, err instanceof Error ? err.message : String(err), list.items)
        return false
      },
    )
  }

  /** Nothing runs between calls (the reference's Run). */
  run(): void {}

  /** Nothing is held between calls (the reference's Shutdown); the batching wrapper waits for calls under way. */
  async shutdown(): Promise<void> {}
}

/**
 * The webhook backend as `--audit-webhook-*` configure it: the receiver of the kubeconfig
 * file, in its mode (batches handed over without waiting for the previous one: the
 * reference's AsyncDelegate), truncated when enabled.
 */
export function webhookAuditBackend(configFile: string, initialBackoffMs: number, options: AuditBackendOptions, onError: PluginErrorHandler = ignorePluginErrors): AuditBackend {
  const backend = new WebhookBackend(loadAuditWebhook(configFile, initialBackoffMs), onError)
  return wrapBackend(backend, { ...options, batch: { ...options.batch, asyncDelegate: true } }, onError)
}

/**
 * AUDIT_BACKENDS' webhook line: on with `--audit-webhook-config-file`; undelivered and dropped
 * events go to `onError` (HandlePluginError: apiserver_audit_error_total and the server's log).
 */
export function webhookAuditBackendFromConfig(config: AuditWebhookConfig, onError: PluginErrorHandler): AuditBackend {
  return webhookAuditBackend(config.configFile ?? '', config.initialBackoffMs, backendOptions(WEBHOOK_PLUGIN, config, true), onError)
}
