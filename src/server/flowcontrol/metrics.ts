/**
 * The apiserver_flowcontrol_* series the reference exposes for priority and fairness, read
 * from the controller when /metrics is scraped: requests waiting and executing and the seats
 * they hold per level and FlowSchema, dispatched and rejected totals (by reason: queue-full,
 * concurrency-limit, time-out, cancelled), and each level's nominal, lower, upper and current
 * seat limits.
 */
import { Counter, Gauge, type Registry } from 'prom-client'
import type { FlowController, FlowCounters } from './controller.js'

function* flows(controller: FlowController): Generator<[string, string, FlowCounters]> {
  for (const [level, bySchema] of controller.counters) for (const [schema, c] of bySchema) yield [level, schema, c]
}

export function registerFlowControlMetrics(registry: Registry, controller: FlowController): void {
  const registers = [registry]
  const perFlow = (name: string, help: string, value: (c: FlowCounters) => number, kind: 'gauge' | 'counter') => {
    const collect = function (this: Gauge<'priority_level' | 'flow_schema'> | Counter<'priority_level' | 'flow_schema'>) {
      this.reset()
      for (const [priority_level, flow_schema, c] of flows(controller)) {
        const v = value(c)
        if (this instanceof Gauge) this.set({ priority_level, flow_schema }, v)
        else if (v > 0) this.inc({ priority_level, flow_schema }, v)
      }
    }
    if (kind === 'gauge') new Gauge({ name, help, labelNames: ['priority_level', 'flow_schema'], registers, collect })
    else new Counter({ name, help, labelNames: ['priority_level', 'flow_schema'], registers, collect })
  }
  perFlow('apiserver_flowcontrol_current_inqueue_requests', '[BETA] Number of requests currently pending in queues of the API Priority and Fairness subsystem', (c) => c.waiting, 'gauge')
  perFlow(
    'apiserver_flowcontrol_current_executing_requests',
    '[BETA] Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem',
    (c) => c.executing,
    'gauge',
  )
  perFlow(
    'apiserver_flowcontrol_current_executing_seats',
    '[BETA] Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem',
    (c) => c.executingSeats,
    'gauge',
  )
  perFlow('apiserver_flowcontrol_dispatched_requests_total', '[BETA] Number of requests executed by API Priority and Fairness subsystem', (c) => c.dispatched, 'counter')
  new Counter({
    name: 'apiserver_flowcontrol_rejected_requests_total',
    help: '[BETA] Number of requests rejected by API Priority and Fairness subsystem',
    labelNames: ['priority_level', 'flow_schema', 'reason'],
    registers,
    collect() {
      this.reset()
      for (const [priority_level, flow_schema, c] of flows(controller)) {
        for (const [reason, n] of c.rejected) this.inc({ priority_level, flow_schema, reason }, n)
      }
    },
  })
  const perLevel = (name: string, help: string, value: (l: ReturnType<FlowController['level']>) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['priority_level'],
      registers,
      collect() {
        this.reset()
        for (const level of controller.levels.values()) this.set({ priority_level: level.name }, value(level))
      },
    })
  perLevel('apiserver_flowcontrol_nominal_limit_seats', '[BETA] Nominal number of execution seats configured for each priority level', (l) => l.limits.nominalCL)
  perLevel('apiserver_flowcontrol_lower_limit_seats', '[ALPHA] Configured lower bound on number of execution seats available to each priority level', (l) => l.limits.minCL)
  perLevel('apiserver_flowcontrol_upper_limit_seats', '[ALPHA] Configured upper bound on number of execution seats available to each priority level', (l) => l.limits.maxCL)
  perLevel('apiserver_flowcontrol_current_limit_seats', '[ALPHA] current derived number of execution seats available to each priority level', (l) => l.queueSet.concurrencyLimit)
}
