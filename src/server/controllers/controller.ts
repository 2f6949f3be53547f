/**
 * The controller room's one interface, as the reference's controller manager runs its
 * controllers: each has a name (the `--controllers` name where the reference has one), starts
 * with a context once the store is open, and stops when the server shuts down. The manager
 * (manager.ts) starts the table of controllers (index.ts); nothing else starts a controller.
 */
import type { Registry } from '../api/registry/registry.js'

export interface ControllerContext {
  /** The generic stores of every served kind over the open store; it publishes every change it makes. */
  readonly registry: Registry
  /**
   * Resolves true once /readyz has first passed (the reference runs some controllers only
   * then, such as the kubernetes service's endpoint reconciler), false if shutdown came first.
   */
  readonly ready: Promise<boolean>
  /** klog-style verbosity and message. */
  log(level: number, message: string): void
}

export interface Controller {
  /** The reference's name for it (kube-controller-manager's `--controllers` name, or the post-start hook's). */
  readonly name: string
  start(ctx: ControllerContext): void | Promise<void>
  stop(): void | Promise<void>
}
