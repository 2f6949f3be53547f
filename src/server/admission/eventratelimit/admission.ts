/**
 * The EventRateLimit admission plugin (the reference's `plugin/pkg/admission/eventratelimit`):
 * creates and updates of core Events (not events.k8s.io ones, whose kind is of another group)
 * are counted against each configured limit; when any limit's bucket is empty the request is
 * refused with 429 `Too many requests: limit reached on type <type> for key <key>` (several
 * limits' texts in brackets), without Retry-After, as the reference's. Dry runs are not
 * counted. The configuration is required (config.ts).
 */
import { failureStatus } from '../../http/status.js'
import { ApiError } from '../../api/status-errors.js'
import { type AdmissionAttributes, CREATE, UPDATE } from '../attributes.js'
import { type ValidationInterface, handlesOnly } from '../interfaces.js'
import { readConfiguration } from './config.js'
import { LimitEnforcer } from './limit-enforcer.js'
import { type Clock, realClock } from './token-bucket.js'

export const EVENT_RATE_LIMIT = 'EventRateLimit'

export class EventRateLimit implements ValidationInterface {
  readonly handles = handlesOnly(CREATE, UPDATE)
  private readonly enforcers: LimitEnforcer[]

  constructor(pluginConfig: unknown, clock: Clock = realClock) {
    this.enforcers = readConfiguration(pluginConfig).map((limit) => new LimitEnforcer(limit, clock))
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    if (attributes.kind.group !== '' || attributes.kind.kind !== 'Event') return
    // A dry run writes nothing, so it is not counted.
    if (attributes.dryRun) return
    // Every limit takes its token, whether or not another refuses.
    const refusals = this.enforcers.map((enforcer) => enforcer.accept(attributes)).filter((r): r is string => r !== undefined)
    if (refusals.length > 0) throw tooManyRequests(aggregate(refusals))
  }
}

/** utilerrors.NewAggregate(...).Error(): one text alone, several distinct ones in brackets. */
function aggregate(texts: string[]): string {
  const distinct = [...new Set(texts)]
  return distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]`
}

/** apierrors.NewTooManyRequestsError: no details, so no Retry-After. */
function tooManyRequests(message: string): ApiError {
  return new ApiError(failureStatus(429, 'TooManyRequests', `Too many requests: ${message}`))
}
