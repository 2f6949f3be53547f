/**
 * The server's egress dialer, one per process as the reference's single EgressSelector on its
 * server Config: start-up installs the dialer of `--egress-selector-config-file`, and the
 * outgoing clients deep in the rooms (webhook clients, the audit webhook) read it when they
 * connect instead of having it threaded through every constructor. DIRECT_DIALER until then.
 */
import { DIRECT_DIALER, type EgressDialer } from './dialer.js'

let installed: EgressDialer = DIRECT_DIALER

export function installEgressDialer(dialer: EgressDialer): void {
  installed = dialer
}

export function egressDialer(): EgressDialer {
  return installed
}

/** Dials through the dialer installed when it connects: the default of clients built before start-up installs one. */
export const INSTALLED_DIALER: EgressDialer = { dial: (network, host, port) => installed.dial(network, host, port) }
