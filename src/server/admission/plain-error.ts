/**
 * A plugin's error that is no Status (the reference's fmt.Errorf, aggregates): its handler
 * answers 500 with the error's text and no reason (responsewriters.ErrorToAPIStatus).
 */
import { failureStatus, type Status } from '../http/status.js'
import { ApiError } from '../api/status-errors.js'

export function plainError(message: string): ApiError {
  const { reason: _unknown, ...status } = failureStatus(500, '', message)
  return new ApiError(status as Status)
}
