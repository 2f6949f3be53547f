/**
 * A Job's status conditions as the reference's job controller writes them (newCondition and
 * ensureJobConditionStatus): each type once, its transition time moving only when its status
 * does; and the reasons and messages of pkg/controller/job/job_controller.go and
 * k8s.io/api/batch/v1 (JobReason*).
 */
export interface JobCondition {
  type: string
  status: 'True' | 'False'
  reason: string
  message: string
  lastProbeTime: string
  lastTransitionTime: string
}

export const REASON = {
  backoffLimitExceeded: 'BackoffLimitExceeded',
  deadlineExceeded: 'DeadlineExceeded',
  podFailurePolicy: 'PodFailurePolicy',
  maxFailedIndexesExceeded: 'MaxFailedIndexesExceeded',
  failedIndexes: 'FailedIndexes',
  successPolicy: 'SuccessPolicy',
  completionsReached: 'CompletionsReached',
} as const

export const MESSAGE = {
  backoffLimitExceeded: 'Job has reached the specified backoff limit',
  deadlineExceeded: 'Job was active longer than specified deadline',
  maxFailedIndexesExceeded: 'Job has exceeded the specified maximal number of failed indexes',
  failedIndexes: 'Job has failed indexes',
  completionsReached: 'Reached expected number of succeeded pods',
} as const

export function newCondition(type: string, status: 'True' | 'False', reason: string, message: string, at: string): JobCondition {
  return { type, status, reason, message, lastProbeTime: at, lastTransitionTime: at }
}

export function findCondition(conditions: readonly JobCondition[], type: string): JobCondition | undefined {
  return conditions.find((c) => c.type === type)
}

export const hasTrueCondition = (conditions: readonly JobCondition[], type: string): boolean => findCondition(conditions, type)?.status === 'True'

/** IsJobFinished: Complete or Failed is True. */
export const isFinished = (conditions: readonly JobCondition[]): boolean => hasTrueCondition(conditions, 'Complete') || hasTrueCondition(conditions, 'Failed')

/**
 * ensureJobConditionStatus: the condition set to this status, reason and message; answers
 * whether anything changed. A False condition that is absent is not added.
 */
export function ensureCondition(conditions: JobCondition[], type: string, status: 'True' | 'False', reason: string, message: string, at: string): boolean {
  const current = findCondition(conditions, type)
  if (!current) {
    if (status === 'False') return false
    conditions.push(newCondition(type, status, reason, message, at))
    return true
  }
  if (current.status === status && current.reason === reason && current.message === message) return false
  if (current.status !== status) current.lastTransitionTime = at
  current.status = status
  current.reason = reason
  current.message = message
  current.lastProbeTime = at
  return true
}
