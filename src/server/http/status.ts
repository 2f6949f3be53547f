/** The reference's `Status` error bodies (metav1.Status), with its reasons and codes. */
export interface StatusDetails {
  name?: string
  group?: string
  kind?: string
  retryAfterSeconds?: number
  causes?: Array<{ reason?: string; message?: string; field?: string }>
}

export interface Status {
  kind: 'Status'
  apiVersion: 'v1'
  metadata: Record<string, never>
  status: 'Failure' | 'Success'
  message: string
  reason: string
  details?: StatusDetails
  code: number
}

export function failureStatus(code: number, reason: string, message: string, details?: StatusDetails): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code }
}
