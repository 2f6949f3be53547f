/**
 * The batch group's validation, table-driven per kind. Expected texts are the reference's:
 * `pkg/apis/batch/validation/validation.go` and the robfig/cron v3 parser's errors
 * (`parser.go`), with apimachinery's field error bodies.
 */
import assert from 'node:assert/strict'
import { type Json, createErrors, created, strategyOf, updateErrors } from './groups-support.js'
import { recordCases } from './case-registry.js'

const NEGATIVE = 'must be greater than or equal to 0'
const podSpec = (extra: Json = {}): Json => ({ restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }], ...extra })

type Case = [string, (o: Json) => void, string[]]

function table(resource: string, base: () => Json, cases: Case[]): void {
  const strategy = strategyOf('batch', resource)
  recordCases(strategy, cases.filter(([, , expected]) => expected.length > 0).length, 1 + cases.filter(([, , expected]) => expected.length === 0).length)
  it('accepts the valid object unchanged (apart from the defaults)', () => {
    assert.deepEqual(createErrors(strategy, base()), [])
  })
  for (const [name, mutate, expected] of cases) {
    it(name, () => {
      const o = base()
      mutate(o)
      assert.deepEqual(createErrors(strategy, o), expected)
    })
  }
}

const job = (): Json => ({ metadata: { name: 'pi' }, spec: { template: { spec: podSpec() } } })

describe('validation/batch: Job', () => {
  table('jobs', job, [
    ['negative parallelism', (o) => (o.spec.parallelism = -1), [`spec.parallelism: Invalid value: -1: ${NEGATIVE}`]],
    ['negative completions', (o) => (o.spec.completions = -2), [`spec.completions: Invalid value: -2: ${NEGATIVE}`]],
    ['negative activeDeadlineSeconds', (o) => (o.spec.activeDeadlineSeconds = -1), [`spec.activeDeadlineSeconds: Invalid value: -1: ${NEGATIVE}`]],
    ['negative backoffLimit', (o) => (o.spec.backoffLimit = -1), [`spec.backoffLimit: Invalid value: -1: ${NEGATIVE}`]],
    ['negative ttlSecondsAfterFinished', (o) => (o.spec.ttlSecondsAfterFinished = -1), [`spec.ttlSecondsAfterFinished: Invalid value: -1: ${NEGATIVE}`]],
    ['an unknown completionMode', (o) => (o.spec.completionMode = 'Sometimes'), ['spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"']],
    ['Indexed parallelism over the maximum', (o) => Object.assign(o.spec, { completionMode: 'Indexed', completions: 1, parallelism: 100001 }), ['spec.parallelism: Invalid value: 100001: must be less than or equal to 100000 when completion mode is Indexed']],
    [
      'the template restartPolicy defaulted to Always',
      (o) => delete o.spec.template.spec.restartPolicy,
      ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'],
    ],
    [
      'an unknown restartPolicy: the pod spec rule, then the job rule',
      (o) => (o.spec.template.spec.restartPolicy = 'Sometimes'),
      ['spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"', 'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "OnFailure", "Never"'],
    ],
    [
      'a pod failure policy with OnFailure',
      (o) => {
        o.spec.template.spec.restartPolicy = 'OnFailure'
        o.spec.podFailurePolicy = { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [1] } }] }
      },
      ['spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified'],
    ],
    [
      'pod failure policy rules: action, operator, values',
      (o) => (o.spec.podFailurePolicy = { rules: [{ action: 'Explode', onExitCodes: { operator: 'Between', containerName: 'nope', values: [3, 0, 3] } }] }),
      [
        'spec.podFailurePolicy.rules[0].action: Unsupported value: "Explode": supported values: "Count", "FailIndex", "FailJob", "Ignore"',
        'spec.podFailurePolicy.rules[0].onExitCodes.operator: Unsupported value: "Between": supported values: "In", "NotIn"',
        'spec.podFailurePolicy.rules[0].onExitCodes.containerName: Invalid value: "nope": must be one of the container or initContainer names in the pod template',
        'spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 3',
        'spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [3,0,3]: must be ordered',
      ],
    ],
    ['the In operator with exit code 0', (o) => (o.spec.podFailurePolicy = { rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [0] } }] }), ['spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator']],
    ['a rule with no requirement', (o) => (o.spec.podFailurePolicy = { rules: [{ action: 'Ignore' }] }), ['spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required']],
    [
      'a pod condition without status',
      (o) => (o.spec.podFailurePolicy = { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] }),
      ['spec.podFailurePolicy.rules[0].onPodConditions[0].status: Required value: valid values: ["False" "True" "Unknown"]'],
    ],
    [
      'a template job-name label that is not the job name',
      (o) => (o.spec.template.metadata = { labels: { 'job-name': 'other' } }),
      (() => {
        const labels = '{"batch.kubernetes.io/controller-uid":"UID","batch.kubernetes.io/job-name":"pi","controller-uid":"UID","job-name":"other"}'
        return [`spec.template.metadata.labels[job-name]: Invalid value: ${labels}: must be 'pi'`]
      })(),
    ],
  ])

  it('generates the selector and the template labels from the uid, as the job strategy does', () => {
    const strategy = strategyOf('batch', 'jobs')
    const o = created(strategy, { ...job(), metadata: { name: 'pi', uid: 'u1' } })
    const spec = o.spec as { selector: unknown; template: { metadata: { labels: unknown } } }
    assert.deepEqual(spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u1' } })
    assert.deepEqual(spec.template.metadata.labels, { 'job-name': 'pi', 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': 'u1', 'batch.kubernetes.io/controller-uid': 'u1' })
  })

  it('update: completions and the template are immutable', () => {
    const strategy = strategyOf('batch', 'jobs')
    assert.deepEqual(updateErrors(strategy, job(), (o) => (o.spec.completions = 3)), ['spec.completions: Invalid value: 3: field is immutable'])
    const errs = updateErrors(strategy, job(), (o) => (o.spec.template.spec.containers[0].image = 'other'))
    assert.equal(errs.length, 1)
    assert.match(errs[0]!, /^spec\.template: Invalid value: .*: field is immutable$/)
  })
})

const cronJob = (): Json => ({ metadata: { name: 'hello' }, spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: podSpec() } } } } })

describe('validation/batch: CronJob', () => {
  table('cronjobs', cronJob, [
    ['no schedule', (o) => delete o.spec.schedule, ['spec.schedule: Required value']],
    ['four fields', (o) => (o.spec.schedule = '* * * *'), ['spec.schedule: Invalid value: "* * * *": expected exactly 5 fields, found 4: [* * * *]']],
    ['a minute above 59', (o) => (o.spec.schedule = '60 * * * *'), ['spec.schedule: Invalid value: "60 * * * *": end of range (60) above maximum (59): 60']],
    ['a day of month 0', (o) => (o.spec.schedule = '0 0 0 * *'), ['spec.schedule: Invalid value: "0 0 0 * *": beginning of range (0) below minimum (1): 0']],
    ['not a number', (o) => (o.spec.schedule = 'x * * * *'), ['spec.schedule: Invalid value: "x * * * *": failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax']],
    ['a reversed range', (o) => (o.spec.schedule = '0 5-2 * * *'), ['spec.schedule: Invalid value: "0 5-2 * * *": beginning of range (5) beyond end of range (2): 5-2']],
    ['a zero step', (o) => (o.spec.schedule = '*/0 * * * *'), ['spec.schedule: Invalid value: "*/0 * * * *": step of range should be a positive number: */0']],
    ['an unknown descriptor', (o) => (o.spec.schedule = '@fortnightly'), ['spec.schedule: Invalid value: "@fortnightly": unrecognized descriptor: @fortnightly']],
    ['TZ in the schedule', (o) => (o.spec.schedule = 'TZ=UTC 0 * * * *'), ['spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead']],
    ['an unknown time zone', (o) => (o.spec.timeZone = 'Mars/Olympus'), ['spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus']],
    ['a Local time zone', (o) => (o.spec.timeZone = 'Local'), ['spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones']],
    ['an unknown concurrencyPolicy', (o) => (o.spec.concurrencyPolicy = 'Sometimes'), ['spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"']],
    ['negative startingDeadlineSeconds', (o) => (o.spec.startingDeadlineSeconds = -1), [`spec.startingDeadlineSeconds: Invalid value: -1: ${NEGATIVE}`]],
    ['negative history limits', (o) => Object.assign(o.spec, { successfulJobsHistoryLimit: -1, failedJobsHistoryLimit: -2 }), [
      `spec.successfulJobsHistoryLimit: Invalid value: -1: ${NEGATIVE}`,
      `spec.failedJobsHistoryLimit: Invalid value: -2: ${NEGATIVE}`,
    ]],
    ['a selector in the job template', (o) => (o.spec.jobTemplate.spec.selector = { matchLabels: { a: 'b' } }), ['spec.jobTemplate.spec.selector: Invalid value: {"matchLabels":{"a":"b"}}: `selector` will be auto-generated']],
    ['a job template restartPolicy Always', (o) => (o.spec.jobTemplate.spec.template.spec.restartPolicy = 'Always'), ['spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']],
    ['a name over 52 characters', (o) => (o.metadata.name = 'a'.repeat(53)), [`metadata.name: Invalid value: "${'a'.repeat(53)}": must be no more than 52 characters`]],
  ])
  it('accepts descriptors, names and steps', () => {
    const strategy = strategyOf('batch', 'cronjobs')
    for (const schedule of ['@hourly', '@every 1h30m', '0 0 * jan-mar mon-fri', '*/15 9-17 1,15 * *', '0 0 ? * SUN']) {
      assert.deepEqual(createErrors(strategy, { ...cronJob(), spec: { ...cronJob().spec, schedule } }), [], schedule)
    }
  })
})
