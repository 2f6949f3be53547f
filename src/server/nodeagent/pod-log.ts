/**
 * `pods/<name>/log` (the reference's LogREST, pkg/registry/core/pod/rest/log.go, and
 * LogLocation): the PodLogOptions of the query decoded and validated, the container chosen,
 * and the node agent's `/containerLogs/<namespace>/<pod>/<container>` streamed back as
 * text/plain (flushed as it comes with `follow`). A pod no node runs yet has an empty log.
 */
import { request as httpRequest } from 'node:http'
import type { VirtualHandler } from '../api/index.js'
import { ApiError, errors } from '../api/status-errors.js'
import { forbidden, invalid, notSupported, type FieldError } from '../api/validation/field/errors.js'
import { failureStatus } from '../http/status.js'
import { backendError } from './backend-error.js'
import { type NodeAgentClient, hostPort } from './client.js'
import { getPod, validateContainer } from './pod-container.js'
import { boolParam, intParam, stringParam, timeParam } from './query-options.js'

/** PodLogOptions as the query gives them. */
export interface PodLogOptions {
  container: string
  follow: boolean
  previous: boolean
  timestamps: boolean
  sinceSeconds?: number
  sinceTime?: string
  tailLines?: number
  limitBytes?: number
  insecureSkipTLSVerifyBackend: boolean
  stream?: string
}

/** v1.LogStreamStdout, LogStreamStderr, LogStreamAll. */
const LOG_STREAMS = ['Stdout', 'Stderr', 'All']

export function podLogOptions(query: URLSearchParams): PodLogOptions {
  const sinceSeconds = intParam(query, 'sinceSeconds')
  const sinceTime = timeParam(query, 'sinceTime')
  const tailLines = intParam(query, 'tailLines')
  const limitBytes = intParam(query, 'limitBytes')
  const stream = query.get('stream')
  return {
    container: stringParam(query, 'container'),
    follow: boolParam(query, 'follow'),
    previous: boolParam(query, 'previous'),
    timestamps: boolParam(query, 'timestamps'),
    ...(sinceSeconds !== undefined ? { sinceSeconds } : {}),
    ...(sinceTime !== undefined ? { sinceTime } : {}),
    ...(tailLines !== undefined ? { tailLines } : {}),
    ...(limitBytes !== undefined ? { limitBytes } : {}),
    insecureSkipTLSVerifyBackend: boolParam(query, 'insecureSkipTLSVerifyBackend'),
    ...(stream !== null && stream !== '' ? { stream } : {}),
  }
}

/** ValidatePodLogOptions (staging/src/k8s.io/api/.../validation: pod log options). */
export function validatePodLogOptions(o: PodLogOptions): FieldError[] {
  const errs: FieldError[] = []
  if (o.tailLines !== undefined && o.tailLines < 0) errs.push(invalid('tailLines', o.tailLines, 'must be greater than or equal to 0'))
  if (o.limitBytes !== undefined && o.limitBytes < 1) errs.push(invalid('limitBytes', o.limitBytes, 'must be greater than 0'))
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) errs.push(forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'))
  else if (o.sinceSeconds !== undefined && o.sinceSeconds < 1) errs.push(invalid('sinceSeconds', o.sinceSeconds, 'must be greater than 0'))
  if (o.stream !== undefined) {
    if (!LOG_STREAMS.includes(o.stream)) errs.push(notSupported('stream', o.stream, LOG_STREAMS))
    if (o.stream !== 'All' && o.tailLines !== undefined) errs.push(forbidden('', '`tailLines` and specific `stream` are mutually exclusive for now'))
  }
  return errs
}

/** The node agent's query, in the reference's order of LogLocation. */
function agentQuery(o: PodLogOptions): string {
  const params = new URLSearchParams()
  if (o.follow) params.append('follow', 'true')
  if (o.previous) params.append('previous', 'true')
  if (o.timestamps) params.append('timestamps', 'true')
  if (o.sinceSeconds !== undefined) params.append('sinceSeconds', String(o.sinceSeconds))
  if (o.sinceTime !== undefined) params.append('sinceTime', o.sinceTime)
  if (o.tailLines !== undefined) params.append('tailLines', String(o.tailLines))
  if (o.limitBytes !== undefined) params.append('limitBytes', String(o.limitBytes))
  if (o.stream !== undefined) params.append('stream', o.stream)
  // url.Values.Encode sorts by key.
  params.sort()
  const text = params.toString()
  return text === '' ? '' : `?${text}`
}

export function podLogHandler(client: NodeAgentClient): VirtualHandler {
  return async ({ req, res, registry, namespace, name, query }) => {
    if (req.method !== 'GET') throw errors.methodNotAllowed()
    const options = podLogOptions(query)
    const problems = validatePodLogOptions(options)
    if (problems.length > 0) throw errors.invalid('', 'PodLogOptions', name!, problems)
    const pod = await getPod(registry, namespace ?? '', name!)
    const container = validateContainer(options.container, pod)
    if (pod.nodeName === '') {
      // LogLocation's empty location: the stream has nothing in it.
      res.writeHead(200, { 'Content-Type': 'text/plain' })
      res.end()
      return
    }
    const location = await client.location(registry, pod.nodeName)
    const path = `/containerLogs/${pod.namespace}/${pod.name}/${container}${agentQuery(options)}`
    const url = `https://${hostPort(location)}${path}`
    let socket
    try {
      socket = await client.connect(location, options.insecureSkipTLSVerifyBackend)
    } catch (err) {
      throw backendError(`Get ${JSON.stringify(url)}: ${(err as Error).message}`)
    }
    await new Promise<void>((resolve, reject) => {
      // Plain HTTP over the TLS connection already made (createConnection is used only without an agent).
      const agentReq = httpRequest({ path, method: 'GET', createConnection: () => socket, headers: { Host: hostPort(location) } })
      agentReq.on('error', (err) => reject(backendError(`Get ${JSON.stringify(url)}: ${err.message}`)))
      agentReq.on('response', (agentRes) => {
        const status = agentRes.statusCode ?? 500
        if (status < 200 || status >= 300) {
          // NewGenericHttpResponseChecker: the agent's body becomes the Status message.
          const chunks: Buffer[] = []
          agentRes.on('data', (c: Buffer) => chunks.push(c))
          agentRes.on('end', () => reject(agentError(status, Buffer.concat(chunks).toString('utf8').trim(), name!)))
          return
        }
        try {
          // No length: HTTP/1.1 sends it chunked, HTTP/2 as frames.
          res.writeHead(200, { 'Content-Type': 'text/plain' })
        } catch (err) {
          agentReq.destroy()
          reject(err)
          return
        }
        agentRes.pipe(res as NodeJS.WritableStream)
        agentRes.on('end', () => resolve())
        agentRes.on('error', () => resolve())
        // A client gone ends the agent's stream too (a follow has no other end).
        res.on('close', () => {
          agentReq.destroy()
          resolve()
        })
      })
      agentReq.end()
    })
  }
}

/** NewGenericServerResponse for a node agent's failure (its reason chosen by status code). */
function agentError(code: number, body: string, name: string): ApiError {
  const reasons: Record<number, string> = { 400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 500: 'InternalError' }
  const reason = reasons[code] ?? 'InternalError'
  const message = body || `the server responded with the status code ${code} but did not return more information`
  return new ApiError(failureStatus(code, reason, message, { name, kind: 'pods/log', causes: [{ reason: 'UnexpectedServerResponse', message: body }] }))
}
