/** A gRPC error as Go's status error prints it: `rpc error: code = Unavailable desc = ...`. */
const CODE_NAMES = [
  'OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists', 'PermissionDenied',
  'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented', 'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated',
]

export function goGrpcError(err: unknown): string {
  const e = err as { code?: number; details?: string; message?: string }
  if (typeof e.code !== 'number') return e.message ?? String(err)
  return `rpc error: code = ${CODE_NAMES[e.code] ?? `Code(${e.code})`} desc = ${e.details ?? e.message ?? ''}`
}
