/**
 * An error that is no API error (a failed dial, a node without a preferred address) as the
 * reference's ErrorToAPIStatus answers it: a 500 whose message is the error's own text, with
 * no reason.
 */
import { ApiError } from '../api/status-errors.js'
import { failureStatus } from '../http/status.js'

export function backendError(message: string): ApiError {
  const { reason: _reason, ...status } = failureStatus(500, '', message)
  return new ApiError(status as ReturnType<typeof failureStatus>)
}
