/**
 * What becomes of events an audit plugin could not record (the reference's
 * audit.HandlePluginError): they are counted in `apiserver_audit_error_total{plugin}` and
 * written to the server's log with the plugin's name and the error, so a dropped event still
 * leaves a trace.
 */
import type { AuditEvent } from './event.js'

export type PluginErrorHandler = (plugin: string, error: string, impacted: readonly AuditEvent[]) => void

/** For backends built without metrics or a log (unit tests): the events are simply lost. */
export const ignorePluginErrors: PluginErrorHandler = () => {}
