/**
 * The controller manager: starts the enabled controllers of the table (index.ts) in order
 * once the store is open, and stops them in reverse order at shutdown, as the reference's
 * kube-controller-manager runs its table of controller initialisers.
 */
import type { Controller, ControllerContext } from './controller.js'

export class ControllerManager {
  private started: Controller[] = []

  constructor(readonly controllers: readonly Controller[]) {}

  /** Starts each controller once; a second call does nothing. */
  async start(ctx: ControllerContext): Promise<void> {
    if (this.started.length > 0) return
    for (const controller of this.controllers) {
      this.started.push(controller)
      await controller.start(ctx)
    }
  }

  /** Stops what was started, last first; one controller's failure does not keep the others running. */
  async stop(): Promise<void> {
    const started = this.started.reverse()
    this.started = []
    for (const controller of started) {
      try {
        await controller.stop()
      } catch {
        // Stopping is best effort: the store is closing under every controller anyway.
      }
    }
  }

  names(): string[] {
    return this.controllers.map((c) => c.name)
  }
}
