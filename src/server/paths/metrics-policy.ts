/**
 * The metric policies of the reference's component-base/metrics options, applied to the
 * server's registry when it is scraped, so that every family on it obeys them whoever
 * registered it:
 *
 * - --disabled-metrics: the named families are not exposed (this wins over showing hidden ones);
 * - deprecation: a family deprecated in a version at or below the binary's has
 *   `(Deprecated since X)` after its stability level in its help, and one deprecated before the
 *   binary's minor version is hidden unless --show-hidden-metrics-for-version is given;
 * - --allow-metric-labels / --allow-metric-labels-manifest: a label value not in its
 *   allow-list is reported as `unexpected` (series that then coincide are added up).
 *
 * With the reference's meta counters: disabled_metrics_total, hidden_metrics_total and
 * cardinality_enforcement_unexpected_categorizations_total. The reference constrains a label
 * when a value is recorded; here it happens when scraped, so the last counter counts the
 * series rewritten per scrape rather than the observations.
 */
import { Counter, type Metric, Registry } from 'prom-client'

export interface MetricsPolicy {
  /** --disabled-metrics: fully qualified names. */
  disabled: readonly string[]
  /** --show-hidden-metrics-for-version was given (validation allows only the previous minor). */
  showHidden: boolean
  /** `metric,label` to the comma-separated values allowed (the flag's or the manifest's map). */
  allowLabels: Readonly<Record<string, string>>
}

export const NO_METRICS_POLICY: MetricsPolicy = { disabled: [], showHidden: false, allowLabels: {} }

interface Version {
  major: number
  minor: number
  patch: number
}

function parseVersion(text: string): Version {
  const [major = 0, minor = 0, patch = 0] = text.replace(/^v/, '').split('.').map(Number)
  return { major, minor, patch }
}

function compare(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch
}

/** What prom-client's get() answers for one family. */
interface FamilyData {
  name: string
  help: string
  type: string
  values: Array<{ labels: Record<string, string | number>; value: number; metricName?: string }>
  aggregator?: string
}

/** prom-client's own rendering of one family, which its typings do not declare. */
type Family = Pick<Metric, 'get'> & { name: string }
const renderFamily = (Registry.prototype as unknown as { getMetricsAsString(this: Registry, family: Family): Promise<string> }).getMetricsAsString

export class PolicedRegistry extends Registry {
  private readonly disabled: ReadonlySet<string>
  private readonly deprecations = new Map<string, Version>()
  /** Per metric, per label, the values allowed. */
  private readonly allowLists = new Map<string, Map<string, ReadonlySet<string>>>()
  private readonly hiddenTotal: Counter
  private readonly unexpectedTotal: Counter
  private readonly hidden = new Set<string>()

  constructor(
    private readonly policy: MetricsPolicy,
    private readonly binary: { major: number; minor: number },
  ) {
    super()
    this.disabled = new Set(policy.disabled.filter((name) => name !== ''))
    for (const [key, values] of Object.entries(policy.allowLabels)) {
      const [metric, label] = key.split(',')
      if (!metric || !label) continue
      let labels = this.allowLists.get(metric)
      if (!labels) this.allowLists.set(metric, (labels = new Map()))
      labels.set(label, new Set(values.split(',')))
    }
    const registers = [this]
    new Counter({ name: 'disabled_metrics_total', help: '[BETA] The count of disabled metrics.', registers }).inc(this.disabled.size)
    this.hiddenTotal = new Counter({ name: 'hidden_metrics_total', help: '[BETA] The count of hidden metrics.', registers })
    this.unexpectedTotal = new Counter({
      name: 'cardinality_enforcement_unexpected_categorizations_total',
      help: '[ALPHA] The count of unexpected categorizations during cardinality enforcement.',
      registers,
    })
  }

  /** Marks a family deprecated since `version` (e.g. `1.34.0`), as the reference's DeprecatedVersion. */
  deprecate(name: string, version: string): void {
    const since = parseVersion(version)
    this.deprecations.set(name, since)
    const guard = { major: this.binary.major, minor: this.binary.minor, patch: 0 }
    if (!this.policy.showHidden && compare(since, guard) < 0 && !this.hidden.has(name)) {
      this.hidden.add(name)
      this.hiddenTotal.inc()
    }
  }

  override getMetricsAsArray(): ReturnType<Registry['getMetricsAsArray']> {
    return super.getMetricsAsArray().filter((family) => !this.disabled.has(family.name) && !this.hidden.has(family.name))
  }

  /**
   * prom-client's metrics() in the Prometheus text format, but the unexpected-categorization
   * count rendered after the families whose labels it counts.
   */
  override async metrics(): Promise<string> {
    const families = this.getMetricsAsArray() as unknown as Family[]
    const counter = this.unexpectedTotal as unknown as Family
    const texts = await Promise.all(families.map((family) => (family === counter ? '' : this.getMetricsAsString(family))))
    const at = families.indexOf(counter)
    if (at >= 0) texts[at] = await this.getMetricsAsString(counter)
    return `${texts.join('\n\n')}\n`
  }

  /** Replaces prom-client's method of the same name, which metrics() calls for each family. */
  async getMetricsAsString(family: Family): Promise<string> {
    const since = this.deprecations.get(family.name)
    const allowed = this.allowLists.get(family.name)
    if (!since && !allowed) return renderFamily.call(this, family)
    const data = (await family.get()) as unknown as FamilyData
    let values = data.values
    if (allowed) values = this.constrained(values, allowed)
    const current = { major: this.binary.major, minor: this.binary.minor, patch: 0 }
    const help = since && compare(since, current) <= 0 ? deprecatedHelp(data.help, since) : data.help
    const rewritten = { ...data, help, values }
    return renderFamily.call(this, { name: family.name, get: async () => rewritten } as unknown as Family)
  }

  /** The values with labels outside their allow-list made `unexpected`, coinciding series added up. */
  private constrained(values: FamilyData['values'], allowed: Map<string, ReadonlySet<string>>): FamilyData['values'] {
    const merged = new Map<string, FamilyData['values'][number]>()
    for (const one of values) {
      let labels = one.labels
      for (const [label, allow] of allowed) {
        const value = labels[label]
        if (value === undefined || allow.has(String(value))) continue
        if (labels === one.labels) labels = { ...labels }
        labels[label] = 'unexpected'
        this.unexpectedTotal.inc()
      }
      const key = `${one.metricName ?? ''}\u0000${JSON.stringify(labels)}`
      const seen = merged.get(key)
      if (seen) seen.value += one.value
      else merged.set(key, { ...one, labels })
    }
    return [...merged.values()]
  }
}

/** The reference's markDeprecated, the stability level staying first: `[STABLE] (Deprecated since 1.34.0) ...`. */
function deprecatedHelp(help: string, since: Version): string {
  const text = `(Deprecated since ${since.major}.${since.minor}.${since.patch}) `
  const level = /^\[[A-Z]+\] /.exec(help)
  return level ? `${level[0]}${text}${help.slice(level[0].length)}` : `${text}${help}`
}
