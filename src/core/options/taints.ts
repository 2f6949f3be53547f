/**
 * The kubelet's taint syntax (`--register-with-taints`, pkg/util/taints ParseTaint):
 * `<key>=<value>:<effect>`, `<key>:<effect>` or `<key>` with the effect NoSchedule,
 * PreferNoSchedule or NoExecute.
 */
export interface Taint {
  key: string
  value?: string
  effect: string
}

const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute']

/** The taint, or the reference's message when the text is not one. */
export function parseTaint(text: string): Taint | string {
  const colon = text.lastIndexOf(':')
  if (colon === -1) return `invalid taint spec: ${text}`
  const [keyValue, effect] = [text.slice(0, colon), text.slice(colon + 1)]
  if (!EFFECTS.includes(effect)) return `invalid taint effect: ${effect}, unsupported taint effect`
  const eq = keyValue.indexOf('=')
  const key = eq === -1 ? keyValue : keyValue.slice(0, eq)
  if (key === '') return `invalid taint spec: ${text}`
  return eq === -1 ? { key, effect } : { key, value: keyValue.slice(eq + 1), effect }
}
