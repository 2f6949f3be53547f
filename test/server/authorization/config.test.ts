import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { resourceAttributes } from '../../../src/server/authorization/authorizer.js'
import { AuthorizationConfigFileError, ReloadingAuthorizer, chainFromConfig, parseAuthorizationConfig } from '../../../src/server/authorization/config.js'

const doc = (authorizers: string) => `apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n${authorizers}`

describe('structured authorization configuration', () => {
  it('reads a chain with a webhook and its defaults', () => {
    const parsed = parseAuthorizationConfig(
      doc(`- {type: Node, name: node}\n- {type: RBAC, name: rbac}\n- type: Webhook\n  name: hook\n  webhook: {timeout: 3s, subjectAccessReviewVersion: v1, failurePolicy: Deny, connectionInfo: {type: KubeConfigFile, kubeConfigFile: /etc/hook.kubeconfig}}\n`),
    )
    assert.deepEqual(parsed[2], {
      type: 'Webhook',
      name: 'hook',
      webhook: { timeoutMs: 3000, subjectAccessReviewVersion: 'v1', authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000, failurePolicy: 'Deny', kubeConfigFile: '/etc/hook.kubeconfig', matchConditions: [] },
    })
  })
  it('names every invalid field as the reference does', () => {
    assert.throws(() => parseAuthorizationConfig(doc('  []\n')), { message: 'authorizers: Required value: at least one authorization mode must be defined' })
    assert.throws(
      () => parseAuthorizationConfig(doc(`- {type: RBAC, name: a}\n- {type: RBAC, name: a}\n- {type: Bogus, name: b}\n- {type: Webhook, name: c, webhook: {timeout: 40s, subjectAccessReviewVersion: v2, failurePolicy: Deny, connectionInfo: {type: KubeConfigFile}}}\n`)),
      (err: Error) => {
        assert.ok(err instanceof AuthorizationConfigFileError)
        assert.equal(
          err.message,
          '[authorizers[1].type: Duplicate value: "RBAC", authorizers[1].name: Duplicate value: "a", authorizers[2].type: Unsupported value: "Bogus": supported values: "AlwaysAllow", "AlwaysDeny", "ABAC", "Node", "RBAC", "Webhook", authorizers[3].webhook.timeout: Invalid value: "40s": must be > 0s and <= 30s, authorizers[3].webhook.subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1", authorizers[3].webhook.connectionInfo.kubeConfigFile: Required value]',
        )
        return true
      },
    )
  })
  describe('match conditions', () => {
    const hook = (conditions: string, version = 'matchConditionSubjectAccessReviewVersion: v1\n    ') =>
      doc(
        `- type: Webhook\n  name: hook\n  webhook:\n    timeout: 3s\n    subjectAccessReviewVersion: v1\n    ${version}failurePolicy: NoOpinion\n    connectionInfo: {type: KubeConfigFile, kubeConfigFile: /etc/hook.kubeconfig}\n    matchConditions:\n${conditions}`,
      )
    it('compiles them at load', () => {
      const parsed = parseAuthorizationConfig(hook(`    - expression: "has(request.resourceAttributes) && request.resourceAttributes.namespace == 'kube-system'"\n    - expression: "!('system:masters' in request.groups)"\n`))
      assert.deepEqual(
        parsed[0]!.webhook!.matchConditions.map((c) => c.expression),
        ["has(request.resourceAttributes) && request.resourceAttributes.namespace == 'kube-system'", "!('system:masters' in request.groups)"],
      )
    })
    it('refuses them with the reference field errors', () => {
      assert.throws(() => parseAuthorizationConfig(hook("    - expression: \"request.user == 'a'\"\n", '')), {
        message: 'authorizers[0].webhook.matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified',
      })
      assert.throws(() => parseAuthorizationConfig(hook("    - expression: \"request.user == 'a'\"\n", 'matchConditionSubjectAccessReviewVersion: v1beta1\n    ')), {
        message: 'authorizers[0].webhook.matchConditionSubjectAccessReviewVersion: Unsupported value: "v1beta1": supported values: "v1"',
      })
      assert.throws(() => parseAuthorizationConfig(hook('    - expression: request.user\n')), {
        message: 'authorizers[0].webhook.matchConditions[0].expression: Invalid value: "request.user": must evaluate to bool but got string',
      })
      assert.throws(() => parseAuthorizationConfig(hook('    - expression: "  "\n    - expression: "request.foo == 1"\n    - expression: "true"\n    - expression: "true"\n')), (err: Error) => {
        assert.equal(
          err.message,
          `[authorizers[0].webhook.matchConditions[0].expression: Required value, authorizers[0].webhook.matchConditions[1].expression: Invalid value: "request.foo == 1": compilation failed: ERROR: <input>:1:8: undefined field 'foo'\n | request.foo == 1\n | .......^, authorizers[0].webhook.matchConditions[3].expression: Duplicate value: "true"]`,
        )
        return true
      })
      assert.throws(() => parseAuthorizationConfig(hook('    - expression: "object.x == 1"\n')), /Invalid value: "object\.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'object' \(in container ''\)/)
    })
  })
  it('reloads a changed file and keeps the running chain when the new one is invalid', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'authz-config-'))
    try {
      const file = path.join(dir, 'authz.yaml')
      fs.writeFileSync(file, doc('- {type: AlwaysDeny, name: deny}\n'))
      const build = (text: string) => chainFromConfig(parseAuthorizationConfig(text), {})
      const errors: string[] = []
      const reloading = new ReloadingAuthorizer(file, build(fs.readFileSync(file, 'utf8')), build, { info: () => {}, error: (m) => errors.push(m) })
      const attrs = resourceAttributes({ name: 'u', groups: [] }, { verb: 'get', resource: 'pods', namespace: 'n' })
      assert.equal((await reloading.authorize(attrs)).decision, 'noOpinion')
      fs.writeFileSync(file, doc('- {type: AlwaysAllow, name: allow}\n'))
      reloading.check()
      assert.equal((await reloading.authorize(attrs)).decision, 'allow')
      fs.writeFileSync(file, doc('- {type: Nope, name: x}\n'))
      reloading.check()
      assert.equal((await reloading.authorize(attrs)).decision, 'allow')
      assert.match(errors[0]!, /reloading authorization config: authorizers\[0\]\.type: Unsupported value: "Nope"/)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
