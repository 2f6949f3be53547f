/**
 * The FlowSchema status writer: the Dangling condition the reference's APF configuration
 * controller (run by its `priority-and-fairness-config-consumer` post-start hook) keeps on every
 * FlowSchema, written through the status subresource (flowcontrol/flow-schema-status.ts says
 * which). It follows the reads of the flow-control configuration: each read is checked, and a
 * failed write makes the next read come sooner.
 */
import type { Registry } from '../api/registry/registry.js'
import { danglingUpdates } from '../flowcontrol/flow-schema-status.js'
import type { Controller, ControllerContext } from './controller.js'

/** The FlowSchemas and priority levels as the configuration cache read them. */
export interface FlowConfiguration {
  readonly schemas: Parameters<typeof danglingUpdates>[0]
  readonly levels: Parameters<typeof danglingUpdates>[1]
}

/** Where the server tells of each read of the configuration; `retry` asks for a fresh read soon. */
export interface FlowConfigurationReads {
  onRead(listener: (configuration: FlowConfiguration, retry: () => void) => void): void
}

export class FlowSchemaStatusController implements Controller {
  readonly name = 'priority-and-fairness-config-consumer'
  private ctx: ControllerContext | undefined
  /** The last read before the controller started: checked when it starts. */
  private pending: { configuration: FlowConfiguration; retry: () => void } | undefined

  constructor(reads: FlowConfigurationReads) {
    reads.onRead((configuration, retry) => {
      if (this.ctx) void this.write(this.ctx, configuration, retry)
      else this.pending = { configuration, retry }
    })
  }

  start(ctx: ControllerContext): void {
    this.ctx = ctx
    const pending = this.pending
    this.pending = undefined
    if (pending) void this.write(ctx, pending.configuration, pending.retry)
  }

  stop(): void {
    this.ctx = undefined
  }

  /** The Dangling condition on each FlowSchema whose stored one is not what the configuration says. */
  private async write(ctx: ControllerContext, configuration: FlowConfiguration, retry: () => void): Promise<void> {
    const updates = danglingUpdates(configuration.schemas, configuration.levels)
    if (updates.length === 0) return
    const schemas = flowSchemas(ctx.registry)
    for (const { name, condition } of updates) {
      await schemas
        ?.update(
          undefined,
          name,
          (current) => {
            const status = (current.status ?? {}) as { conditions?: Array<Record<string, unknown>> }
            const others = (status.conditions ?? []).filter((c) => c.type !== 'Dangling')
            current.status = { ...status, conditions: [...others, { ...condition, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] }
            delete current.metadata.resourceVersion
            return current
          },
          { subresource: 'status' },
        )
        .catch((err: unknown) => {
          ctx.log(2, `flowschema ${name} status: ${(err as Error).message}`)
          // Tried again with the next read, as when the configuration was read every second.
          retry()
        })
    }
  }
}

const flowSchemas = (registry: Registry) => registry.lookup('flowcontrol.apiserver.k8s.io', 'v1', 'flowschemas')
