/**
 * The reference's metric policies (component-base/metrics options.go, registry.go, metric.go):
 * --disabled-metrics removes a family and counts it in disabled_metrics_total; a family
 * deprecated before the binary's minor version (1.35) is hidden and counted in
 * hidden_metrics_total unless --show-hidden-metrics-for-version is given, and one deprecated at
 * or before it says `(Deprecated since X)` after its stability level; label values outside
 * --allow-metric-labels are reported as `unexpected`.
 */
import assert from 'node:assert/strict'
import { Gauge } from 'prom-client'
import { ServerMetrics } from '../../../src/server/paths/metrics.js'
import type { MetricsPolicy } from '../../../src/server/paths/metrics-policy.js'

function metricsWith(policy: Partial<MetricsPolicy>): ServerMetrics {
  return new ServerMetrics({ defaultMetrics: false, policy: { disabled: [], showHidden: false, allowLabels: {}, ...policy } })
}

const LABELS = { group: '', version: 'v1', resource: 'pods', subresource: '', scope: 'namespace', component: 'apiserver' }

function gauge(m: ServerMetrics, name: string, help: string): Gauge {
  const g = new Gauge({ name, help, registers: [m.registry] })
  g.set(7)
  return g
}

describe('metric policies', () => {
  it('leaves out the disabled families and counts them', async () => {
    const m = metricsWith({ disabled: ['apiserver_request_total'] })
    m.observeRequest({ ...LABELS, verb: 'LIST' }, 200, 0.01)
    const text = await m.metrics()
    assert.doesNotMatch(text, /^apiserver_request_total/m)
    assert.match(text, /^apiserver_request_duration_seconds_count\{[^}]*verb="LIST"/m)
    assert.match(text, /^# HELP disabled_metrics_total \[BETA\] The count of disabled metrics\.$/m)
    assert.match(text, /^disabled_metrics_total 1$/m)
  })

  it('hides a family deprecated before the previous minor version unless hidden metrics are shown', async () => {
    const hiding = metricsWith({})
    gauge(hiding, 'old_metric', '[STABLE] Old numbers.')
    hiding.registry.deprecate('old_metric', '1.34.0')
    const hidden = await hiding.metrics()
    assert.doesNotMatch(hidden, /^old_metric/m)
    assert.match(hidden, /^hidden_metrics_total 1$/m)

    const showing = metricsWith({ showHidden: true })
    gauge(showing, 'old_metric', '[STABLE] Old numbers.')
    showing.registry.deprecate('old_metric', '1.34.0')
    const shown = await showing.metrics()
    assert.match(shown, /^# HELP old_metric \[STABLE\] \(Deprecated since 1\.34\.0\) Old numbers\.$/m)
    assert.match(shown, /^old_metric 7$/m)
    assert.match(shown, /^hidden_metrics_total 0$/m)
  })

  it('disabling wins over showing hidden metrics', async () => {
    const m = metricsWith({ showHidden: true, disabled: ['old_metric'] })
    gauge(m, 'old_metric', '[STABLE] Old numbers.')
    m.registry.deprecate('old_metric', '1.34.0')
    assert.doesNotMatch(await m.metrics(), /^old_metric/m)
  })

  it('shows a family deprecated in this version, marked, and one deprecated later unmarked', async () => {
    const m = metricsWith({})
    gauge(m, 'now_metric', '[ALPHA] Current numbers.')
    gauge(m, 'later_metric', '[ALPHA] Later numbers.')
    m.registry.deprecate('now_metric', '1.35.0')
    m.registry.deprecate('later_metric', '1.36.0')
    const text = await m.metrics()
    assert.match(text, /^# HELP now_metric \[ALPHA\] \(Deprecated since 1\.35\.0\) Current numbers\.$/m)
    assert.match(text, /^# HELP later_metric \[ALPHA\] Later numbers\.$/m)
    assert.match(text, /^hidden_metrics_total 0$/m)
  })

  it('reports label values outside the allow-list as unexpected, adding up the series that then coincide', async () => {
    const m = metricsWith({ allowLabels: { 'apiserver_request_total,verb': 'GET,LIST' } })
    m.observeRequest({ ...LABELS, verb: 'LIST' }, 200, 0.01)
    m.observeRequest({ ...LABELS, verb: 'WATCH' }, 200, 0.01)
    m.observeRequest({ ...LABELS, verb: 'CREATE' }, 200, 0.01)
    m.observeRequest({ ...LABELS, verb: 'CREATE' }, 200, 0.01)
    const text = await m.metrics()
    const counts = text.split('\n').filter((l) => l.startsWith('apiserver_request_total{'))
    assert.deepEqual(
      counts.map((l) => `${/verb="([^"]*)"/.exec(l)?.[1]} ${l.split(' ').pop()}`),
      ['LIST 1', 'unexpected 3'],
    )
    // Other families keep their values: the allow-list is per metric.
    assert.match(text, /^apiserver_request_duration_seconds_count\{[^}]*verb="WATCH"/m)
    assert.match(text, /^cardinality_enforcement_unexpected_categorizations_total [1-9]/m)
  })
})
