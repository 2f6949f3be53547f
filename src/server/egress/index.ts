/** The egress room's surface (see dialer.ts for the contract). */
export { DIRECT_DIALER, type EgressDialer, type EgressNetwork, dialDirect } from './dialer.js'
export { egressAgent } from './agent.js'
export { egressDialer, installEgressDialer } from './installed.js'
export { egressDialerFor, egressDialerFromFile } from './selector.js'
