/**
 * batch/v1: Jobs (defaults, the generated selector, printer columns, the status.successful
 * field selector) and CronJobs. Validation in ../validation/batch.ts.
 */
import { isPlainObject } from '../registry/object.js'
import { generateJobSelector, validateCronJob, validateCronJobUpdate, validateJob, validateJobStatusUpdate, validateJobUpdate } from '../validation/batch.js'
import { AGE_COLUMN, NAME_COLUMN, age } from '../table.js'
import type { KindTable } from './kind.js'
import { defaultTemplate } from './pod-defaults.js'
import { arr, col, num, obj, str } from './values.js'

export const BATCH: KindTable = {
  'batch/v1/jobs': {
    statusOwnedBySubresource: true,
    generation: true,
    defaults(o) {
      const spec = obj(o.spec)
      // SetDefaults_Job: both counts 1 when neither is set; parallelism 1 when unset.
      if ((spec.completions === undefined || spec.completions === null) && (spec.parallelism === undefined || spec.parallelism === null)) spec.completions = 1
      spec.parallelism ??= 1
      // With a per-index limit the Job-wide one is out of the way (math.MaxInt32).
      spec.backoffLimit ??= typeof spec.backoffLimitPerIndex === 'number' ? 2147483647 : 6
      // JobPodReplacementPolicy (GA): replaced once Failed when a failure policy decides on failures.
      spec.podReplacementPolicy ??= isPlainObject(spec.podFailurePolicy) ? 'Failed' : 'TerminatingOrFailed'
      spec.completionMode ??= 'NonIndexed'
      spec.suspend ??= false
      // SetDefaults_PodSpec gives the template restartPolicy Always, which a Job refuses: the
      // reference's validation asks for OnFailure or Never.
      if (isPlainObject(spec.template)) defaultTemplate(spec)
      o.spec = spec
    },
    prepareForCreate(o) {
      generateJobSelector(o)
      o.status = {}
    },
    validate: validateJob,
    validateUpdate: validateJobUpdate,
    validateStatusUpdate: validateJobStatusUpdate,
    selectableFields: ['status.successful'],
    fields: (o) => ({ 'status.successful': String(num(obj(o.status).succeeded)) }),
    table: {
      definitions: [NAME_COLUMN, col('Status', 'Status of the job.'), col('Completions', 'The desired number of successfully finished pods the job should be run with.'), col('Duration', 'Time required to complete the job.'), AGE_COLUMN],
      cells: (o, now) => {
        const s = obj(o.status)
        const completions = obj(o.spec).completions
        return [o.metadata.name, s.succeeded ? 'Complete' : 'Running', `${num(s.succeeded)}/${typeof completions === 'number' ? completions : 1}`, '', age(o, now)]
      },
    },
  },
  'batch/v1/cronjobs': {
    statusOwnedBySubresource: true,
    generation: true,
    defaults(o) {
      const spec = obj(o.spec)
      spec.concurrencyPolicy ??= 'Allow'
      spec.suspend ??= false
      spec.successfulJobsHistoryLimit ??= 3
      spec.failedJobsHistoryLimit ??= 1
      // SetObjectDefaults_CronJob: the job template's pod spec gets the pod defaults.
      if (isPlainObject(spec.jobTemplate)) {
        const jobSpec = obj(spec.jobTemplate.spec)
        if (isPlainObject(jobSpec.template)) defaultTemplate(jobSpec)
        spec.jobTemplate.spec = jobSpec
      }
      o.spec = spec
    },
    prepareForCreate(o) {
      o.status = {}
    },
    validate: validateCronJob,
    validateUpdate: validateCronJobUpdate,
    table: {
      definitions: [
        NAME_COLUMN,
        col('Schedule', 'The schedule in Cron format.'),
        col('Timezone', 'The time zone name for the given schedule.'),
        col('Suspend', 'This flag tells the controller to suspend subsequent executions.', 0, 'boolean'),
        col('Active', 'A list of pointers to currently running jobs.', 0, 'integer'),
        col('Last Schedule', 'Information when was the last time the job was successfully scheduled.'),
        AGE_COLUMN,
      ],
      cells: (o, now) => {
        const spec = obj(o.spec)
        const status = obj(o.status)
        return [o.metadata.name, str(spec.schedule), str(spec.timeZone) || '<none>', spec.suspend === true ? 'True' : 'False', arr(status.active).length, status.lastScheduleTime ? age({ metadata: { creationTimestamp: str(status.lastScheduleTime) } }, now) : '<none>', age(o, now)]
      },
    },
  },
}
