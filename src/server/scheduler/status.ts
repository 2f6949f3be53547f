/**
 * A plugin's verdict (the reference's framework Status codes) and the FitError message the
 * scheduler writes when no node fits (pkg/scheduler/framework/types.go, FitError.Error):
 * `0/<n> nodes are available: <prefilter msg>.` or the per-node reasons counted, sorted as
 * strings and joined by ", " with a closing period; then the PostFilter message after a space.
 */

export type Code = 'Success' | 'Unschedulable' | 'UnschedulableAndUnresolvable' | 'Error'

export interface Status {
  readonly code: Code
  readonly reasons: readonly string[]
  readonly plugin?: string
}

export const SUCCESS: Status = { code: 'Success', reasons: [] }

export const unschedulable = (...reasons: string[]): Status => ({ code: 'Unschedulable', reasons })
export const unresolvable = (...reasons: string[]): Status => ({ code: 'UnschedulableAndUnresolvable', reasons })

/** Status.Message(): the reasons joined by ", ". */
export const messageOf = (status: Status): string => status.reasons.join(', ')

/** NoNodeAvailableMsg. */
export const noNodeAvailable = (n: number): string => `0/${n} nodes are available`

/** What a scheduling attempt learnt about the nodes that did not fit (framework.Diagnosis). */
export interface Diagnosis {
  /** The failed nodes' statuses, by node name. */
  readonly nodeToStatus: Map<string, Status>
  /** Set when a PreFilter plugin rejected the pod for every node. */
  preFilterMsg?: string
  postFilterMsg?: string
}

/** FitError.Error(). */
export function fitErrorMessage(numAllNodes: number, diagnosis: Diagnosis): string {
  let message = `${noNodeAvailable(numAllNodes)}:`
  if (diagnosis.preFilterMsg) message += ` ${diagnosis.preFilterMsg}.`
  else {
    const counts = new Map<string, number>()
    for (const status of diagnosis.nodeToStatus.values()) for (const reason of status.reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1)
    // sort.Strings over "<count> <reason>": byte order, so "10 x" sorts before "2 y" as in the reference.
    const histogram = [...counts].map(([reason, count]) => `${count} ${reason}`).sort(byteOrder)
    if (histogram.length > 0) message += ` ${histogram.join(', ')}.`
  }
  if (diagnosis.postFilterMsg) message += ` ${diagnosis.postFilterMsg}`
  return message
}

export function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
