/**
 * The filter chain around the mux, as the reference's DefaultBuildHandlerChain composes it
 * (staging/src/k8s.io/apiserver/pkg/server/config.go): one-file filters of src/server/filters,
 * outermost first. The order is the reference's (research health.md section 9).
 */
import type { Authentication } from '../authentication/index.js'
import type { Authorizer } from '../authorization/authorizer.js'
import type { ServerConfig } from '../config.js'
import type { Audit } from '../audit/from-config.js'
import { withAuditId } from '../filters/audit-id.js'
import { withAudit } from '../filters/audit.js'
import { unauthorized, withAuthentication } from '../filters/authentication.js'
import { withAuthorization } from '../filters/authorization.js'
import { withCacheControl } from '../filters/cache-control.js'
import { withConnectionThrottle } from '../filters/connection-throttle.js'
import { withCors } from '../filters/cors.js'
import { withFailedAuthenticationAudit } from '../filters/failed-authentication-audit.js'
import { withProbabilisticGoaway } from '../filters/goaway.js'
import { withHsts } from '../filters/hsts.js'
import { withImpersonation } from '../filters/impersonation.js'
import { withMaxInFlight } from '../filters/max-in-flight.js'
import { withPeerProxy } from '../filters/peer-proxy.js'
import { withPanicRecovery } from '../filters/panic-recovery.js'
import { withPriorityAndFairness } from '../filters/priority-and-fairness.js'
import { withRequestInfo } from '../filters/request-info.js'
import { withRequestDeadline } from '../filters/request-deadline.js'
import { withRetryAfter } from '../filters/retry-after.js'
import { withTimeout } from '../filters/timeout.js'
import { tracked, withTracing } from '../filters/tracing.js'
import { withWaitGroup } from '../filters/wait-group.js'
import { withWatchTermination } from '../filters/watch-termination.js'
import { chain } from '../http/chain.js'
import type { Filter, Handler } from '../http/types.js'
import type { LifecycleSignals, WaitGroup } from '../lifecycle/signals.js'
import type { Logger } from '../log/logger.js'
import { type ServerMetrics, withMetrics } from '../paths/metrics.js'
import type { PeerProxy } from '../peers/peer-proxy.js'
import type { FlowControl } from './flow-control.js'

export interface HandlerChainParts {
  readonly config: ServerConfig
  readonly log: Logger
  readonly metrics: ServerMetrics
  readonly signals: LifecycleSignals
  /** Requests in flight, drained at shutdown. */
  readonly inFlight: WaitGroup
  /** Watches, ended with a grace period at shutdown. */
  readonly watches: WaitGroup
  readonly authentication: Authentication
  readonly authorizer: Authorizer
  readonly flowControl: FlowControl
  /** The audit backend and policy (none: no events). */
  readonly audit: Audit
  /** The mixed-version proxy, with UnknownVersionInteroperabilityProxy on. */
  readonly peerProxy?: PeerProxy
}

/** Priority and fairness when it is on, else the max-in-flight limits. */
function flowControlFilter(config: ServerConfig, flowControl: FlowControl): Filter {
  const controller = flowControl.controller
  return controller
    ? withPriorityAndFairness({ seats: controller.serverConcurrencyLimit, configuration: flowControl.configuration, controller })
    : withMaxInFlight(config.maxRequestsInflight, config.maxMutatingRequestsInflight)
}

/** The handler chain around `handler` (the mux), outermost filter first. */
export function buildHandlerChain(handler: Handler, parts: HandlerChainParts): Handler {
  const { config, log, signals, authentication } = parts
  return chain(
    [
      withAuditId(),
      withPanicRecovery(log),
      withRequestInfo(),
      withMetrics(parts.metrics),
      // The reference's place: inside request info and the latency trackers, outside the rest.
      withTracing(),
      withRetryAfter(signals, config.shutdownSendRetryAfter),
      withHsts(config.hstsDirectives),
      withCacheControl(),
      withProbabilisticGoaway(config.goawayChance),
      withWatchTermination(signals, parts.watches, config.shutdownWatchTerminationGracePeriodMs),
      withWaitGroup(signals, parts.inFlight),
      withRequestDeadline(config.requestTimeoutMs),
      withTimeout(),
      withCors(config.corsAllowedOrigins),
      tracked(
        'authentication',
        withAuthentication({
          union: authentication.union,
          audiences: authentication.audiences,
          log: (message) => log.error(message),
          failed: withFailedAuthenticationAudit(unauthorized, parts.audit),
        }),
      ),
      tracked('audit', withAudit(parts.audit)),
      tracked('impersonation', withImpersonation(parts.authorizer)),
      // The reference tracks priority and fairness only, not the max-in-flight limits.
      parts.flowControl.controller ? tracked('priorityandfairness', flowControlFilter(config, parts.flowControl)) : flowControlFilter(config, parts.flowControl),
      tracked('authorization', withAuthorization(parts.authorizer)),
      ...(config.maxConnectionBytesPerSec > 0 ? [withConnectionThrottle(config.maxConnectionBytesPerSec)] : []),
      // The reference wraps the API handler itself: the innermost link.
      ...(parts.peerProxy ? [withPeerProxy(parts.peerProxy)] : []),
    ],
    handler,
  )
}
