/**
 * The policy file, after the reference's audit/policy reader_test.go: its policy decoded to
 * the same rules, a file without version or kind refused, unknown fields only warned about,
 * no rule refused; errors name the file.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadPolicyFromFile } from '../../../src/server/audit/policy-file.js'

const policyDefPattern = `
apiVersion: audit.k8s.io/{version}
kind: Policy
rules:
  - level: None
    nonResourceURLs:
      - /healthz*
      - /version
  - level: RequestResponse
    users: ["tim"]
    userGroups: ["testers", "developers"]
    verbs: ["patch", "delete", "create"]
    resources:
      - group: ""
      - group: "rbac.authorization.k8s.io"
        resources: ["clusterroles", "clusterrolebindings"]
    namespaces: ["default", "kube-system"]
  - level: Metadata
`

const policyWithNoVersionOrKind = policyDefPattern.replace('apiVersion: audit.k8s.io/{version}\nkind: Policy\n', '')

const policyWithUnknownField = `
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  resources:
  - group: coordination.k8s.io
    resources:
    - "leases"
    verbs: ["watch", "get", "list"] # invalid indentation on verbs
`

describe('audit policy file (reader_test.go)', () => {
  let dir: string
  before(() => (dir = mkdtempSync(join(tmpdir(), 'audit-policy-'))))
  after(() => rmSync(dir, { recursive: true, force: true }))
  const writePolicy = (text: string, name = 'policy.yaml') => {
    const path = join(dir, name)
    writeFileSync(path, text)
    return path
  }

  it('TestParser: decodes the rules', () => {
    const policy = loadPolicyFromFile(writePolicy(policyDefPattern.replace('{version}', 'v1')), () => {})
    assert.deepEqual(policy.rules, [
      { level: 'None', nonResourceURLs: ['/healthz*', '/version'] },
      {
        level: 'RequestResponse',
        users: ['tim'],
        userGroups: ['testers', 'developers'],
        verbs: ['patch', 'delete', 'create'],
        resources: [{ group: '' }, { group: 'rbac.authorization.k8s.io', resources: ['clusterroles', 'clusterrolebindings'] }],
        namespaces: ['default', 'kube-system'],
      },
      { level: 'Metadata' },
    ])
  })

  it('reads the same policy as JSON', () => {
    const json = JSON.stringify({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy', omitStages: ['RequestReceived'], rules: [{ level: 'Metadata' }] })
    const policy = loadPolicyFromFile(writePolicy(json, 'policy.json'), () => {})
    assert.deepEqual(policy.omitStages, ['RequestReceived'])
    assert.deepEqual(policy.rules, [{ level: 'Metadata' }])
  })

  it('TestParsePolicyWithNoVersionOrKind', () => {
    assert.throws(() => loadPolicyFromFile(writePolicy(policyWithNoVersionOrKind), () => {}), /unknown group version field/)
  })

  it('TestParsePolicyWithUnknownField: loads, with a warning', () => {
    const warnings: string[] = []
    const policy = loadPolicyFromFile(writePolicy(policyWithUnknownField), (w) => warnings.push(w))
    assert.equal(policy.rules.length, 1)
    assert.equal(warnings.length, 1)
    assert.match(warnings[0]!, /^Audit policy contains errors, falling back to lenient decoding: .*unknown field "rules\[0\]\.resources\[0\]\.verbs"/)
  })

  it('TestPolicyCntCheck: no rule is refused, the file named', () => {
    for (const text of ['apiVersion: audit.k8s.io/v1\nkind: Policy', '']) {
      const path = writePolicy(text)
      assert.throws(() => loadPolicyFromFile(path, () => {}), (err: Error) => err.message.startsWith(text === '' ? 'unknown group version field' : 'loaded illegal policy with 0 rules') && err.message.endsWith(`: from file ${path}`))
    }
  })

  it('refuses an invalid policy with its validation errors, the file named', () => {
    const path = writePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: FooBar\n')
    assert.throws(() => loadPolicyFromFile(path, () => {}), {
      message: `rules[0].level: Unsupported value: "FooBar": supported values: "None", "Metadata", "Request", "RequestResponse": from file ${path}`,
    })
  })

  it('refuses another version and a missing file', () => {
    const path = writePolicy('apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: None\n')
    assert.throws(() => loadPolicyFromFile(path, () => {}), /^Error: failed decoding: no kind "Policy" is registered for version "audit.k8s.io\/v1beta1"/)
    const missing = join(dir, 'missing.yaml')
    assert.throws(() => loadPolicyFromFile(missing, () => {}), { message: `failed to read file path "${missing}": open ${missing}: no such file or directory` })
  })
})
