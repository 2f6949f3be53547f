import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { AdmissionWebhookServer } from '../../../support/admission-webhook.js'
import { KubectlSession } from '../../../support/kubectl-session.js'
import { describeEachKubectl } from '../../../support/kubectl-versions.js'

type Obj = Record<string, any>

/**
 * The webhook admission plugins in the server, driven by the real kubectl, against an HTTPS
 * webhook served by the test on 127.0.0.1: a validating webhook denies with its message, a
 * mutating one adds a label by JSON patch, matchConditions skip, and with the webhook stopped failurePolicy Fail
 * refuses while Ignore admits.
 */
describeEachKubectl('admission: the webhooks end to end', function (kubectl) {
  this.timeout(120_000)
  let session: KubectlSession
  let webhook: AdmissionWebhookServer

  before(async function () {
    webhook = await AdmissionWebhookServer.start()
    webhook.respond = (review: Obj, path: string) => {
      const pod = review.request.object as Obj
      if (path.startsWith('/validate')) {
        return pod.metadata.name === 'bad' ? { allowed: false, status: { message: 'pods named bad are not allowed here' } } : { allowed: true }
      }
      return { allowed: true, ...AdmissionWebhookServer.patch([{ op: 'add', path: '/metadata/labels', value: { ...(pod.metadata.labels ?? {}), 'webhook.example.com/seen': 'yes' } }]) }
    }
    session = await KubectlSession.open(this, 'adm-webhooks-', { waitFor: 'ready', kubectl: kubectl.tool })
  })
  after(async () => {
    await session?.close()
    await webhook?.close()
  })

  /** A configuration of one webhook on pod creation in the `default` namespace. */
  const configuration = (kind: string, name: string, path: string, failurePolicy: string, matchConditions: string[] = []) =>
    [
      'apiVersion: admissionregistration.k8s.io/v1',
      `kind: ${kind}`,
      `metadata: {name: ${name}}`,
      'webhooks:',
      `- name: ${name}`,
      `  clientConfig: {url: "${webhook.url(path)}", caBundle: "${webhook.caBundle}"}`,
      '  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]',
      '  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: default}}',
      `  failurePolicy: ${failurePolicy}`,
      '  sideEffects: None',
      '  admissionReviewVersions: [v1]',
      ...(matchConditions.length > 0 ? ['  matchConditions:', ...matchConditions.map((c, i) => `  - {name: c${i}, expression: ${JSON.stringify(c)}}`)] : []),
      '',
    ].join('\n')

  const pod = (name: string) => session.file(`${name}.yaml`, ['apiVersion: v1', 'kind: Pod', `metadata: {name: ${name}}`, 'spec:', '  containers: [{name: c, image: nginx:1.27}]', ''].join('\n'))

  /** Past the plugins' short-lived list of configurations. */
  const settle = () => sleep(400)

  it('a validating webhook denies with its message; an allowed pod is created', async () => {
    await session.ok('apply', '-f', session.file('validating.yaml', configuration('ValidatingWebhookConfiguration', 'deny.example.com', '/validate', 'Fail')))
    await settle()
    const r = await session.run('create', '-f', pod('bad'))
    assert.notEqual(r.code, 0)
    assert.match(r.stderr, /Error from server: error when creating ".*bad\.yaml": admission webhook "deny\.example\.com" denied the request: pods named bad are not allowed here/)
    await session.ok('create', '-f', pod('good'))
  })

  it('matchConditions skip the webhook where one is false', async () => {
    await session.ok('apply', '-f', session.file('validating-cond.yaml', configuration('ValidatingWebhookConfiguration', 'deny.example.com', '/validate', 'Fail', ["!has(object.metadata.labels) || !('skip' in object.metadata.labels) || object.metadata.labels['skip'] != 'yes'"])))
    await settle()
    const labelled = session.file('bad-skip.yaml', ['apiVersion: v1', 'kind: Pod', 'metadata: {name: bad, labels: {skip: "yes"}}', 'spec:', '  containers: [{name: c, image: nginx:1.27}]', ''].join('\n'))
    await session.ok('create', '-f', labelled)
    await session.ok('delete', 'pod', 'bad', '--wait=false')
    const r = await session.run('create', '-f', pod('bad'))
    assert.match(r.stderr, /admission webhook "deny\.example\.com" denied the request: pods named bad are not allowed here/)
  })

  it('a mutating webhook adds a label by JSON patch', async () => {
    await session.ok('apply', '-f', session.file('mutating.yaml', configuration('MutatingWebhookConfiguration', 'label.example.com', '/mutate', 'Fail')))
    await settle()
    await session.ok('create', '-f', pod('labelled'))
    assert.equal(await session.ok('get', 'pod', 'labelled', '-o', 'jsonpath={.metadata.labels.webhook\\.example\\.com/seen}'), 'yes')
  })

  it('with the webhook stopped, failurePolicy Fail refuses and Ignore admits', async () => {
    await session.ok('delete', 'mutatingwebhookconfiguration', 'label.example.com')
    await webhook.close()
    await settle()
    const r = await session.run('create', '-f', pod('while-down'))
    assert.notEqual(r.code, 0)
    assert.match(
      r.stderr,
      new RegExp(
        `Error from server \\(InternalError\\): error when creating ".*while-down\\.yaml": Internal error occurred: failed calling webhook "deny\\.example\\.com": failed to call webhook: Post "https://127\\.0\\.0\\.1:${webhook.port}/validate\\?timeout=10s": dial tcp 127\\.0\\.0\\.1:${webhook.port}: connect: connection refused`,
      ),
    )
    await session.ok('apply', '-f', session.file('validating-ignore.yaml', configuration('ValidatingWebhookConfiguration', 'deny.example.com', '/validate', 'Ignore')))
    await settle()
    await session.ok('create', '-f', pod('while-down'))
  })
})
