/**
 * --authentication-config decoding and validation, and the --oidc-* options turned into the same
 * JWT authenticator. Expected messages are the reference's (apiserver/pkg/apis/apiserver/validation
 * and pkg/kubeapiserver/options/authentication.go).
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'mocha'

import {
  AuthenticationConfigError,
  decodeAuthenticationConfig,
  loadAuthenticationConfigFile,
  oidcOptionsConfig,
  validateAuthenticationConfig,
} from '../../../src/core/config-files/authentication-config.js'

function yamlConfig(body: string, apiVersion = 'apiserver.config.k8s.io/v1beta1'): string {
  return `apiVersion: ${apiVersion}\nkind: AuthenticationConfiguration\n${body}`
}

const ISSUER = `jwt:
- issuer:
    url: https://issuer.example.com
    audiences: [my-app]
  claimMappings:
    username:
      claim: sub
      prefix: "oidc:"
`

function validate(text: string, disallowed: string[] = []) {
  return validateAuthenticationConfig(decodeAuthenticationConfig(text), disallowed)
}

function refused(text: string, message: string | RegExp, disallowed: string[] = []) {
  assert.throws(() => validate(text, disallowed), (err: Error) => {
    assert.ok(err instanceof AuthenticationConfigError, `an AuthenticationConfigError, got ${err}`)
    if (typeof message === 'string') assert.equal(err.message, message)
    else assert.match(err.message, message)
    return true
  })
}

describe('server/authentication/authentication-config', () => {
  describe('decoding', () => {
    it('accepts v1alpha1, v1beta1 and v1', () => {
      for (const version of ['v1alpha1', 'v1beta1', 'v1']) {
        const config = validate(yamlConfig(ISSUER, `apiserver.config.k8s.io/${version}`))
        assert.equal(config.jwt.length, 1)
        assert.equal(config.jwt[0]!.spec.claimMappings.username.prefix, 'oidc:')
      }
    })

    it('refuses an empty file, an unknown kind or version, and unknown fields', () => {
      assert.throws(() => decodeAuthenticationConfig(''), { message: 'empty config data' })
      assert.throws(() => decodeAuthenticationConfig('apiVersion: apiserver.config.k8s.io/v2\nkind: AuthenticationConfiguration\n'), {
        message: 'no kind "AuthenticationConfiguration" is registered for version "apiserver.config.k8s.io/v2" in scheme "pkg/runtime/scheme.go:100"',
      })
      assert.throws(() => decodeAuthenticationConfig(yamlConfig(`${ISSUER}  extraField: 1\n`)), {
        message: 'strict decoding error: unknown field "jwt[0].extraField"',
      })
    })

    it('names the line of a YAML syntax error', () => {
      assert.throws(() => decodeAuthenticationConfig(yamlConfig('jwt:\n  - issuer: [\n')), { message: /^error converting YAML to JSON: yaml: line 5: / })
    })

    it('names the file that cannot be read or decoded, and prefixes validation errors', () => {
      const dir = mkdtempSync(join(tmpdir(), 'authn-config-'))
      try {
        const missing = join(dir, 'missing.yaml')
        assert.throws(() => loadAuthenticationConfigFile(missing), {
          message: `failed to load authentication configuration from file "${missing}": open ${missing}: no such file or directory`,
        })
        const bad = join(dir, 'bad.yaml')
        writeFileSync(bad, yamlConfig('jwt:\n- issuer:\n    url: http://issuer.example.com\n    audiences: [a]\n  claimMappings:\n    username: {claim: sub, prefix: ""}\n'))
        assert.throws(() => loadAuthenticationConfigFile(bad), {
          message: 'invalid authentication configuration: jwt[0].issuer.url: Invalid value: "http://issuer.example.com": URL scheme must be https',
        })
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  })

  describe('validation', () => {
    it('requires the issuer URL and an audience, username claim or expression, and a prefix with a claim', () => {
      refused(
        yamlConfig('jwt:\n- issuer: {}\n'),
        '[jwt[0].issuer.url: Required value, jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required, jwt[0].claimMappings.username: Required value: claim or expression is required]',
      )
      refused(
        yamlConfig('jwt:\n- issuer: {url: "https://a.example.com", audiences: [x]}\n  claimMappings:\n    username: {claim: sub}\n'),
        'jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing',
      )
    })

    it('checks the issuer URL, the discovery URL and the service-account issuers', () => {
      const issuer = (url: string, extra = '') =>
        yamlConfig(`jwt:\n- issuer: {url: "${url}", audiences: [x]${extra}}\n  claimMappings:\n    username: {claim: sub, prefix: ""}\n`)
      refused(issuer('https://a.example.com?x=1'), 'jwt[0].issuer.url: Invalid value: "https://a.example.com?x=1": URL must not contain a query')
      refused(issuer('https://a.example.com#f'), 'jwt[0].issuer.url: Invalid value: "https://a.example.com#f": URL must not contain a fragment')
      refused(issuer('https://u:p@a.example.com'), 'jwt[0].issuer.url: Invalid value: "https://u:p@a.example.com": URL must not contain a username or password')
      refused(
        issuer('https://a.example.com', ', discoveryURL: "https://a.example.com/"'),
        'jwt[0].issuer.discoveryURL: Invalid value: "https://a.example.com/": discoveryURL must be different from URL',
      )
      refused(
        issuer('https://kubernetes.default.svc'),
        'jwt[0].issuer.url: Invalid value: "https://kubernetes.default.svc": URL must not overlap with disallowed issuers: [https://kubernetes.default.svc]',
        ['https://kubernetes.default.svc'],
      )
    })

    it('checks audiences and the audience match policy', () => {
      const audiences = (list: string, policy = '') =>
        yamlConfig(`jwt:\n- issuer: {url: "https://a.example.com", audiences: ${list}${policy}}\n  claimMappings:\n    username: {claim: sub, prefix: ""}\n`)
      refused(audiences('[a, b]'), 'jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences')
      refused(audiences('[a]', ', audienceMatchPolicy: MatchAll'), 'jwt[0].issuer.audienceMatchPolicy: Invalid value: "MatchAll": audienceMatchPolicy must be empty or MatchAny for single audience')
      refused(audiences('[a, a]', ', audienceMatchPolicy: MatchAny'), 'jwt[0].issuer.audiences[1]: Duplicate value: "a"')
      assert.equal(validate(audiences('[a, b]', ', audienceMatchPolicy: MatchAny')).jwt[0]!.spec.issuer.audiences.length, 2)
    })

    it('refuses a certificate authority that holds no certificate', () => {
      refused(
        yamlConfig('jwt:\n- issuer: {url: "https://a.example.com", audiences: [x], certificateAuthority: "not a pem"}\n  claimMappings:\n    username: {claim: sub, prefix: ""}\n'),
        'jwt[0].issuer.certificateAuthority: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates',
      )
    })

    it('compiles CEL claim mappings and reports compile errors and result types as the reference', () => {
      refused(
        yamlConfig('jwt:\n- issuer: {url: "https://a.example.com", audiences: [x]}\n  claimMappings:\n    username: {expression: "claim.sub"}\n'),
        "jwt[0].claimMappings.username.expression: Invalid value: \"claim.sub\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'claim' (in container '')\n | claim.sub\n | ^",
      )
      refused(
        yamlConfig('jwt:\n- issuer: {url: "https://a.example.com", audiences: [x]}\n  claimMappings:\n    username: {expression: "1 + 2"}\n'),
        'jwt[0].claimMappings.username.expression: Invalid value: "1 + 2": must evaluate to string',
      )
      refused(
        yamlConfig('jwt:\n- issuer: {url: "https://a.example.com", audiences: [x]}\n  claimMappings:\n    username: {expression: "claims.sub"}\n    groups: {expression: "1 == 1"}\n'),
        'jwt[0].claimMappings.groups.expression: Invalid value: "1 == 1": must evaluate to one of [string list(string)]',
      )
      refused(
        yamlConfig('jwt:\n- issuer: {url: "https://a.example.com", audiences: [x]}\n  claimMappings:\n    username: {expression: "claims.sub", prefix: "x:"}\n'),
        'jwt[0].claimMappings.username.prefix: Invalid value: "x:": may not be specified when expression is set',
      )
    })

    it('requires claims.email_verified wherever claims.email names the user', () => {
      refused(
        yamlConfig('jwt:\n- issuer: {url: "https://a.example.com", audiences: [x]}\n  claimMappings:\n    username: {expression: "claims.email"}\n'),
        'jwt[0].claimMappings.username.expression: Invalid value: "claims.email": claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
      )
      const ok = validate(
        yamlConfig(
          'jwt:\n- issuer: {url: "https://a.example.com", audiences: [x]}\n  claimValidationRules:\n  - expression: "claims.?email_verified.orValue(true)"\n  claimMappings:\n    username: {expression: "claims.email"}\n',
        ),
      )
      assert.equal(ok.jwt[0]!.mapper.claimValidationRules.length, 1)
    })

    it('checks claim validation rules, extra keys and user validation rules', () => {
      const base = 'jwt:\n- issuer: {url: "https://a.example.com", audiences: [x]}\n  claimMappings:\n    username: {claim: sub, prefix: ""}\n'
      refused(yamlConfig(`${base}  claimValidationRules:\n  - {claim: hd, expression: "true"}\n`), 'jwt[0].claimValidationRules[0]: Invalid value: "hd": claim and expression can\'t both be set')
      refused(yamlConfig(`${base}  claimValidationRules:\n  - {claim: hd, message: m}\n`), 'jwt[0].claimValidationRules[0].message: Invalid value: "m": may not be specified when claim is set')
      refused(
        yamlConfig('jwt:\n- issuer: {url: "https://a.example.com", audiences: [x]}\n  claimMappings:\n    username: {claim: sub, prefix: ""}\n    extra:\n    - {key: "example.org/Foo", valueExpression: "claims.sub"}\n'),
        'jwt[0].claimMappings.extra[0].key: Invalid value: "example.org/Foo": must be lowercase',
      )
      refused(
        yamlConfig('jwt:\n- issuer: {url: "https://a.example.com", audiences: [x]}\n  claimMappings:\n    username: {claim: sub, prefix: ""}\n    extra:\n    - {key: "kubernetes.io/foo", valueExpression: "claims.sub"}\n'),
        'jwt[0].claimMappings.extra[0].key: Invalid value: "kubernetes.io/foo": k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use',
      )
      refused(
        yamlConfig(`${base}  userValidationRules:\n  - {expression: "user.name == 'x'"}\n`),
        /^jwt\[0\]\.userValidationRules\[0\]\.expression: Invalid value: "user\.name == 'x'": compilation failed: ERROR: <input>:1:/,
      )
    })

    it('checks the anonymous section', () => {
      refused(yamlConfig('anonymous:\n  enabled: false\n  conditions:\n  - path: /livez\n'), 'anonymous.conditions: Invalid value: [{"path":"/livez"}]: enabled should be set to true when conditions are defined')
      const config = validate(yamlConfig('anonymous:\n  enabled: true\n  conditions:\n  - path: /livez\n'))
      assert.deepEqual(config.anonymous, { enabled: true, conditions: [{ path: '/livez' }] })
    })
  })

  describe('--oidc-* options', () => {
    const options = { issuerUrl: 'https://issuer.example.com', clientId: 'kubectl', usernameClaim: 'sub', requiredClaims: {}, signingAlgs: ['RS256'] }

    it('prefixes usernames with the issuer URL unless the claim is email or the prefix is "-"', () => {
      assert.equal(oidcOptionsConfig(options).jwt[0]!.spec.claimMappings.username.prefix, 'https://issuer.example.com#')
      assert.equal(oidcOptionsConfig({ ...options, usernameClaim: 'email' }).jwt[0]!.spec.claimMappings.username.prefix, '')
      assert.equal(oidcOptionsConfig({ ...options, usernamePrefix: '-' }).jwt[0]!.spec.claimMappings.username.prefix, '')
      assert.equal(oidcOptionsConfig({ ...options, usernamePrefix: 'corp:' }).jwt[0]!.spec.claimMappings.username.prefix, 'corp:')
    })

    it('turns required claims into claim validation rules and the client id into the audience', () => {
      const spec = oidcOptionsConfig({ ...options, requiredClaims: { hd: 'example.com' } }).jwt[0]!.spec
      assert.deepEqual(spec.claimValidationRules, [{ claim: 'hd', requiredValue: 'example.com' }])
      assert.deepEqual(spec.issuer.audiences, ['kubectl'])
    })

    it('names an unreadable --oidc-ca-file', () => {
      assert.throws(() => oidcOptionsConfig({ ...options, caFile: 'does-not-exist.pem' }), { message: 'open does-not-exist.pem: no such file or directory' })
    })
  })
})
