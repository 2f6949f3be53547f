/**
 * Shuffle sharding of flows onto queues, as the reference's dealer
 * (apimachinery util/shufflesharding): a flow's 64-bit hash deals a hand of distinct queue
 * indexes, so two flows rarely share every queue of their hands. The hash of a flow is the
 * first 8 bytes (little-endian) of SHA-256 over the FlowSchema name, a zero byte and the flow
 * distinguisher (the user name or namespace), as the reference's hashFlowID.
 */
import { createHash } from 'node:crypto'

export function hashFlowID(flowSchemaName: string, distinguisher: string): bigint {
  const sum = createHash('sha256').update(flowSchemaName).update(Buffer.from([0])).update(distinguisher).digest()
  return sum.readBigUInt64LE(0)
}

/** The `handSize` distinct cards of a `deckSize` deck that `hashValue` deals. */
export function dealHand(hashValue: bigint, deckSize: number, handSize: number): number[] {
  const remainders: number[] = []
  let h = hashValue
  for (let i = 0; i < handSize; i++) {
    const size = BigInt(deckSize - i)
    remainders.push(Number(h % size))
    h /= size
  }
  // Each remainder indexes the cards not dealt yet: skip over the ones dealt before it.
  return remainders.map((remainder, i) => {
    let card = remainder
    for (let j = i; j > 0; j--) if (card >= remainders[j - 1]!) card++
    return card
  })
}
