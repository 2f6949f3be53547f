/**
 * The admission metrics (the reference's admission/metrics): the latency of each step (admit,
 * validate), of each plugin and of each webhook call, the webhooks' requests, rejections and
 * failures to fail open, and the match conditions' errors, exclusions and evaluation time —
 * with the reference's names, label sets, buckets and stability prefixes, on the server's
 * /metrics registry.
 *
 * The series are kept here by a string key and handed to the registry only when scraped:
 * prom-client hashes the labels on every observation, and the chain observes once per plugin
 * per request (see paths/metrics.ts for the same choice on the request metrics).
 */
import type { Registry } from 'prom-client'

const NAMESPACE = 'apiserver_admission_'

/** The reference's buckets: 5 ms to 2.5 s, and to 25 s for webhooks (they time out at 30 s by default). */
export const ADMISSION_BUCKETS: readonly number[] = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5]
export const WEBHOOK_BUCKETS: readonly number[] = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25]

/** The reference's WebhookRejectionErrorType values. */
export type WebhookRejectionErrorType = 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error'
/** The `type` label: the step (admit, validate) or, for webhooks, admit and validating. */
export type StepType = 'admit' | 'validate'
export type WebhookType = 'admit' | 'validating'

interface Series {
  readonly labels: Record<string, string>
  /** Per bucket, not cumulative (histograms only). */
  readonly buckets: number[]
  sum: number
  count: number
}

interface MetricValue {
  labels: Record<string, string | number>
  value: number
  metricName?: string
}

/** One series, found once. */
export class BoundSeries {
  constructor(
    private readonly series: Series,
    private readonly bounds: readonly number[],
  ) {}

  observe(value: number): void {
    const { series, bounds } = this
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        series.buckets[i]!++
        break
      }
    }
    series.sum += value
    series.count++
  }
}

/** One metric family as prom-client's registry reads it (name, help, type, get). */
class Family {
  private readonly series = new Map<string, Series>()

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'histogram' | 'summary',
    private readonly labelNames: readonly string[],
    private readonly bounds: readonly number[] = [],
  ) {}

  /** Records `value` (seconds, or 1 for a counter) for the label values, in labelNames' order. */
  observe(values: readonly string[], value: number): void {
    this.bound(values).observe(value)
  }

  /** The series of the label values, to observe without finding it again (callers keep it). */
  bound(values: readonly string[]): BoundSeries {
    const key = values.join('\u0000')
    let one = this.series.get(key)
    if (!one) {
      const labels = Object.fromEntries(this.labelNames.map((name, i) => [name, values[i] ?? '']))
      this.series.set(key, (one = { labels, buckets: this.bounds.map(() => 0), sum: 0, count: 0 }))
    }
    return new BoundSeries(one, this.bounds)
  }

  get(): { name: string; help: string; type: string; values: MetricValue[]; aggregator: 'sum' } {
    const values: MetricValue[] = []
    for (const one of this.series.values()) {
      if (this.type === 'counter') {
        values.push({ labels: one.labels, value: one.sum })
        continue
      }
      if (this.type === 'histogram') {
        let cumulative = 0
        this.bounds.forEach((le, i) => {
          cumulative += one.buckets[i]!
          values.push({ labels: { ...one.labels, le }, value: cumulative, metricName: `${this.name}_bucket` })
        })
        values.push({ labels: { ...one.labels, le: '+Inf' }, value: one.count, metricName: `${this.name}_bucket` })
      }
      // A summary without objectives (as the reference declares it) has its sum and count only.
      values.push({ labels: one.labels, value: one.sum, metricName: `${this.name}_sum` })
      values.push({ labels: one.labels, value: one.count, metricName: `${this.name}_count` })
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' }
  }

  reset(): void {
    this.series.clear()
  }
}

/** Go's strconv.FormatBool. */
const bool = (b: boolean): string => (b ? 'true' : 'false')

/** Codes above 600 are reported as 600, to keep the cardinality bounded. */
const boundedCode = (code: number): string => String(code > 600 ? 600 : code)

export class AdmissionMetrics {
  private readonly step: Family
  private readonly stepSummary: Family
  private readonly controller: Family
  private readonly webhook: Family
  private readonly webhookRejection: Family
  private readonly webhookFailOpen: Family
  private readonly webhookRequest: Family
  private readonly matchConditionEvalErrors: Family
  private readonly matchConditionExclusions: Family
  private readonly matchConditionEvaluation: Family

  constructor(registry?: Registry) {
    const family = (name: string, help: string, type: 'counter' | 'histogram' | 'summary', labels: string[], bounds?: readonly number[]) =>
      new Family(`${NAMESPACE}${name}`, help, type, labels, bounds)
    this.step = family(
      'step_admission_duration_seconds',
      '[STABLE] Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
      'histogram', ['type', 'operation', 'rejected'], ADMISSION_BUCKETS,
    )
    this.stepSummary = family(
      'step_admission_duration_seconds_summary',
      '[ALPHA] Admission sub-step latency summary in seconds, broken out for each operation and API resource and step type (validate or admit).',
      'summary', ['type', 'operation', 'rejected'],
    )
    this.controller = family(
      'controller_admission_duration_seconds',
      '[STABLE] Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
      'histogram', ['name', 'type', 'operation', 'rejected'], ADMISSION_BUCKETS,
    )
    this.webhook = family(
      'webhook_admission_duration_seconds',
      '[STABLE] Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
      'histogram', ['name', 'type', 'operation', 'rejected'], WEBHOOK_BUCKETS,
    )
    this.webhookRejection = family(
      'webhook_rejection_count',
      '[ALPHA] Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
      'counter', ['name', 'type', 'operation', 'error_type', 'rejection_code'],
    )
    this.webhookFailOpen = family(
      'webhook_fail_open_count',
      '[ALPHA] Admission webhook fail open count, identified by name and broken out for each admission type (validating or mutating).',
      'counter', ['name', 'type'],
    )
    this.webhookRequest = family(
      'webhook_request_total',
      '[ALPHA] Admission webhook request total, identified by name and broken out for each admission type (validating or mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
      'counter', ['name', 'type', 'operation', 'code', 'rejected'],
    )
    this.matchConditionEvalErrors = family(
      'match_condition_evaluation_errors_total',
      '[ALPHA] Admission match condition evaluation errors count, identified by name of resource containing the match condition and broken out for each kind containing matchConditions (webhook or policy), operation and admission type (validate or admit).',
      'counter', ['name', 'kind', 'type', 'operation'],
    )
    this.matchConditionExclusions = family(
      'match_condition_exclusions_total',
      '[ALPHA] Admission match condition evaluation exclusions count, identified by name of resource containing the match condition and broken out for each kind containing matchConditions (webhook or policy), operation and admission type (validate or admit).',
      'counter', ['name', 'kind', 'type', 'operation'],
    )
    this.matchConditionEvaluation = family(
      'match_condition_evaluation_seconds',
      '[ALPHA] Admission match condition evaluation time in seconds, identified by name and broken out for each kind containing matchConditions (webhook or policy), operation and type (validate or admit).',
      'histogram', ['name', 'kind', 'type', 'operation'], ADMISSION_BUCKETS,
    )
    // The reference's registration order.
    const families = [
      this.step, this.stepSummary, this.controller, this.webhook, this.matchConditionEvaluation,
      this.webhookRejection, this.webhookFailOpen, this.webhookRequest, this.matchConditionEvalErrors, this.matchConditionExclusions,
    ]
    if (registry) for (const f of families) registry.registerMetric(f as never)
  }

  /** ObserveAdmissionStep: one whole phase (admit or validate) of the chain. */
  observeStep(seconds: number, rejected: boolean, operation: string, type: StepType): void {
    const values = [type, operation, bool(rejected)]
    this.step.observe(values, seconds)
    this.stepSummary.observe(values, seconds)
  }

  /** ObserveAdmissionController: one plugin's admit or validate. */
  observeController(name: string, seconds: number, rejected: boolean, operation: string, type: StepType): void {
    this.controller.observe([name, type, operation, bool(rejected)], seconds)
  }

  /** The series observeStep and observeController write, found once (the chain keeps them: it observes per plugin per request). */
  stepSeries(type: StepType, operation: string, rejected: boolean): { histogram: BoundSeries; summary: BoundSeries } {
    const values = [type, operation, bool(rejected)]
    return { histogram: this.step.bound(values), summary: this.stepSummary.bound(values) }
  }

  controllerSeries(name: string, type: StepType, operation: string, rejected: boolean): BoundSeries {
    return this.controller.bound([name, type, operation, bool(rejected)])
  }

  /** ObserveWebhook: one call of a webhook, with the HTTP code it came to (0 for an internal error). */
  observeWebhook(name: string, seconds: number, rejected: boolean, operation: string, type: WebhookType, code: number): void {
    this.webhookRequest.observe([name, type, operation, boundedCode(code), bool(rejected)], 1)
    this.webhook.observe([name, type, operation, bool(rejected)], seconds)
  }

  observeWebhookRejection(name: string, type: WebhookType, operation: string, errorType: WebhookRejectionErrorType, rejectionCode: number): void {
    this.webhookRejection.observe([name, type, operation, errorType, boundedCode(rejectionCode)], 1)
  }

  observeWebhookFailOpen(name: string, type: WebhookType): void {
    this.webhookFailOpen.observe([name, type], 1)
  }

  observeMatchConditionEvalError(name: string, kind: 'webhook' | 'policy', type: string, operation: string): void {
    this.matchConditionEvalErrors.observe([name, kind, type, operation], 1)
  }

  observeMatchConditionExclusion(name: string, kind: 'webhook' | 'policy', type: string, operation: string): void {
    this.matchConditionExclusions.observe([name, kind, type, operation], 1)
  }

  observeMatchConditionEvaluationTime(seconds: number, name: string, kind: 'webhook' | 'policy', type: string, operation: string): void {
    this.matchConditionEvaluation.observe([name, kind, type, operation], seconds)
  }
}

/** Seconds since `start` (a performance.now() reading). */
export function secondsSince(start: number): number {
  return (performance.now() - start) / 1000
}
