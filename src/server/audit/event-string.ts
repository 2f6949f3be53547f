/**
 * The one-line text of an event (the reference's audit.EventString): the `legacy` format of
 * the log backend, and how the server's log names events a plugin could not record.
 */
import { goQuote } from '../api/validation/field/go-format.js'
import type { AuditEvent } from './event.js'

export function eventString(ev: AuditEvent): string {
  let username = '<none>'
  let groups = '<none>'
  if (ev.user?.username) {
    username = ev.user.username
    if (ev.user.groups && ev.user.groups.length > 0) groups = quotedList(ev.user.groups)
  }
  let asUser = '<self>'
  let asGroups = '<lookup>'
  if (ev.impersonatedUser) {
    asUser = ev.impersonatedUser.username ?? ''
    if (ev.impersonatedUser.groups) asGroups = quotedList(ev.impersonatedUser.groups)
  }
  const namespace = ev.objectRef?.namespace || '<none>'
  const response = ev.responseStatus ? String(ev.responseStatus.code ?? 0) : '<deferred>'
  const ip = ev.sourceIPs?.[0] ?? '<unknown>'
  // Fields the event may lack print as Go's empty strings.
  const q = (s: string | undefined) => goQuote(s ?? '')
  return (
    `${rfc3339Nano(ev.requestReceivedTimestamp)} AUDIT: id=${q(ev.auditID)} stage=${q(ev.stage)} ip=${q(ip)} method=${q(ev.verb)} ` +
    `user=${q(username)} groups=${q(groups)} as=${q(asUser)} asgroups=${q(asGroups)} user-agent=${q(ev.userAgent ?? '')} ` +
    `namespace=${q(namespace)} uri=${q(ev.requestURI)} response="${response}"`
  )
}

/** Go's `%q` of each, joined by commas. */
function quotedList(list: readonly string[]): string {
  return list.map(goQuote).join(',')
}

/**
 * time.RFC3339Nano of a MicroTime: trailing zeros of the fraction dropped (and the dot with
 * them); Go's zero time when there is none.
 */
function rfc3339Nano(microTime: string | undefined): string {
  if (!microTime) return '0001-01-01T00:00:00Z'
  return microTime.replace(/\.(\d*?)0*Z$/, (_m, digits: string) => (digits === '' ? 'Z' : `.${digits}Z`))
}
