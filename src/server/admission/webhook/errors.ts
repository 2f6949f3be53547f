/**
 * The webhooks' refusals in the reference's words (webhook/errors and util/webhook): a
 * webhook that says no (ToStatusErr), one that could not be called or answered wrongly
 * (ErrCallingWebhook, refused as an internal error when its failurePolicy is Fail), and a dry
 * run reaching a webhook with side effects.
 */
import { ApiError, errors } from '../../api/status-errors.js'
import type { Status } from '../../http/status.js'
import type { Obj } from './configurations.js'

/** A webhook that could not be called or gave no usable answer: its failurePolicy decides. */
export class ErrCallingWebhook extends Error {
  constructor(
    readonly webhookName: string,
    readonly reason: string,
    /**
     * The code of the reference's Status for this failure (what the webhook metrics report):
     * the webhook's HTTP code when it answered with an error, else 400 or 503 by the kind of failure.
     */
    readonly statusCode: number = 400,
  ) {
    super(`failed calling webhook ${JSON.stringify(webhookName)}: ${reason}`)
  }
}

/** The failure of a webhook whose failurePolicy is Fail (apierrors.NewInternalError). */
export function failedClosed(err: ErrCallingWebhook): ApiError {
  return errors.internal(err.message)
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '')

/** A webhook's own refusal (the reference's ErrWebhookRejection), told apart from the server's errors. */
export class WebhookRejection extends ApiError {}

/**
 * The reference's ToStatusErr: the webhook's Status with its message prefixed by
 * `admission webhook "<name>" denied the request`; a code below 400 becomes 400.
 */
export function toStatusErr(webhookName: string, result: Obj | undefined): ApiError {
  const r = result ?? {}
  const deniedBy = `admission webhook ${JSON.stringify(webhookName)} denied the request`
  const code = typeof r.code === 'number' && r.code >= 400 ? r.code : 400
  const message = str(r.message) ? `${deniedBy}: ${str(r.message)}` : str(r.reason) ? `${deniedBy}: ${str(r.reason)}` : `${deniedBy} without explanation`
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: str(r.reason), code }
  if (r.details && typeof r.details === 'object') status.details = r.details as Status['details']
  return new WebhookRejection(status)
}

/** A dry run reaching a webhook whose sideEffects are neither None nor NoneOnDryRun. */
export function dryRunUnsupported(webhookName: string): ApiError {
  return errors.badRequest(`admission webhook ${JSON.stringify(webhookName)} does not support dry run`)
}
