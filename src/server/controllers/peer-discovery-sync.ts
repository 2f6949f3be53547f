/**
 * The `peer-discovery-cache-sync` hook of the mixed-version proxy as a controller: the peers'
 * discovery (../peers/peer-discovery.ts) is followed from the start of the controllers to
 * shutdown.
 */
import type { PeerDiscovery } from '../peers/peer-discovery.js'
import type { Controller } from './controller.js'

export class PeerDiscoverySync implements Controller {
  readonly name = 'peer-discovery-cache-sync'

  constructor(private readonly discovery: PeerDiscovery) {}

  start(): void {
    this.discovery.start()
  }

  stop(): void {
    this.discovery.stop()
  }
}
