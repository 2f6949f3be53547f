/**
 * The CEL engine: compile-time errors in cel-go's shape, the result-type check of the
 * reference's authentication compiler, and the Kubernetes extension libraries. Expected values
 * come from the cel-go / Kubernetes library documentation.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'mocha'

import { CelCompileError, CelEvaluationError, celEnvironment, compileCel } from '../../../src/core/cel/index.js'

const claimsEnv = () => celEnvironment({ claims: 'map<string, dyn>' })

function run(expression: string, activation: Record<string, unknown> = {}): unknown {
  return compileCel(celEnvironment({ claims: 'map<string, dyn>' }), expression).evaluateJson({ claims: {}, ...activation })
}

describe('core/cel', () => {
  describe('compiling', () => {
    it('reports an undeclared variable as cel-go does, with line, column and caret', () => {
      assert.throws(
        () => compileCel(claimsEnv(), 'claim.sub'),
        (err: Error) => {
          assert.ok(err instanceof CelCompileError)
          assert.equal(err.message, "compilation failed: ERROR: <input>:1:1: undeclared reference to 'claim' (in container '')\n | claim.sub\n | ^")
          return true
        },
      )
    })

    it('reports a syntax error as a compilation failure', () => {
      assert.throws(() => compileCel(claimsEnv(), 'claims.sub +'), /^CelCompileError: compilation failed: ERROR: <input>:1:/)
    })

    it('refuses a result of the wrong type with the reference reason', () => {
      assert.throws(() => compileCel(claimsEnv(), '1 + 2', ['string']), { name: 'CelCompileError', message: 'must evaluate to string' })
      assert.throws(() => compileCel(claimsEnv(), '"a" == "b"', ['string', 'list(string)']), {
        message: 'must evaluate to one of [string list(string)]',
      })
    })

    it('accepts dyn results (claims fields) for any wanted type', () => {
      const program = compileCel(claimsEnv(), 'claims.sub', ['string'])
      assert.equal(program.evaluateJson({ claims: { sub: 'alice' } }), 'alice')
    })

    it('types a declared object variable', () => {
      const env = celEnvironment({ user: { schema: { username: 'string', groups: 'list<string>' } } })
      assert.equal(compileCel(env, 'user.username.startsWith("system:")', ['bool']).evaluate({ user: { username: 'system:x', groups: [] } }), true)
      assert.throws(() => compileCel(env, 'user.username + 1'), CelCompileError)
    })
  })

  describe('evaluating', () => {
    it('runs macros on claims', () => {
      assert.deepEqual(run('claims.groups.map(g, "oidc:" + g)', { claims: { groups: ['a', 'b'] } }), ['oidc:a', 'oidc:b'])
      assert.equal(run('claims.groups.exists(g, g == "b")', { claims: { groups: ['a', 'b'] } }), true)
      assert.equal(run('has(claims.email) ? claims.email : "none"', { claims: {} }), 'none')
    })

    it('unwraps optionals: a missing key is undefined, a present one its value', () => {
      assert.equal(run('claims.?missing'), undefined)
      assert.equal(run('claims.?sub.orValue("x")', { claims: { sub: 'y' } }), 'y')
    })

    it('throws CelEvaluationError for a missing key or a division by zero', () => {
      assert.throws(() => run('claims.nothing'), CelEvaluationError)
      assert.throws(() => run('1 / 0'), CelEvaluationError)
    })
  })

  describe('Kubernetes libraries', () => {
    it('strings', () => {
      assert.equal(run('"hello".charAt(1)'), 'e')
      assert.equal(run('"a-b-c".replace("-", "+")'), 'a+b+c')
      assert.equal(run('"a-b-c".replace("-", "+", 1)'), 'a+b-c')
      assert.equal(run('"abc".reverse()'), 'cba')
      assert.deepEqual(run('"a,b".split(",")'), ['a', 'b'])
    })

    it('format', () => {
      assert.equal(run('"%s has %d items, %.2f%% done".format(["cart", 3, 99.5])'), 'cart has 3 items, 99.50% done')
      assert.equal(run('"%x %X %o %b".format([255, 255, 8, 5])'), 'ff FF 10 101')
      assert.equal(run('"%s".format([[1, "a"]])'), '[1, a]')
      assert.throws(() => run('"%s %s".format(["one"])'), /index 1 out of range/)
    })

    it('lists', () => {
      assert.equal(run('[1, 2, 3].isSorted()'), true)
      assert.equal(run('["b", "a"].isSorted()'), false)
      assert.equal(run('[1, 2, 3].sum()'), 6)
      assert.equal(run('[3, 1, 2].min()'), 1)
      assert.equal(run('[3, 1, 2].max()'), 3)
      assert.equal(run('["a", "b", "a"].indexOf("a")'), 0)
      assert.equal(run('["a", "b", "a"].lastIndexOf("a")'), 2)
      assert.deepEqual(run('[1, 2, 3, 4].slice(1, 3)'), [2, 3])
      assert.throws(() => run('[].min()'), /min called on empty list/)
    })

    it('regex', () => {
      assert.equal(run('"abc 123".find("[0-9]+")'), '123')
      assert.deepEqual(run('"123 abc 456".findAll("[0-9]+")'), ['123', '456'])
      assert.deepEqual(run('"123 abc 456".findAll("[0-9]+", 1)'), ['123'])
      assert.equal(run('"abc".matches("^a.c$")'), true)
    })

    it('urls', () => {
      assert.equal(run('url("https://example.com:8443/a%20b?x=1&x=2").getScheme()'), 'https')
      assert.equal(run('url("https://example.com:8443/path").getHost()'), 'example.com:8443')
      assert.equal(run('url("https://[::1]:80/").getHostname()'), '::1')
      assert.equal(run('url("https://example.com:8443/").getPort()'), '8443')
      assert.equal(run('url("/absolute/path").getEscapedPath()'), '/absolute/path')
      assert.deepEqual(run('url("https://e.com/?x=1&x=2&y=3").getQuery()'), { x: ['1', '2'], y: ['3'] })
      assert.equal(run('isURL("relative/path")'), false)
      assert.equal(run('isURL("https://example.com")'), true)
      assert.throws(() => run('url("relative")'), CelEvaluationError)
    })

    it('ip and cidr', () => {
      assert.equal(run('isIP("192.168.0.1")'), true)
      assert.equal(run('isIP("192.168.0.01")'), false)
      assert.equal(run('isIP("::ffff:1.2.3.4")'), false)
      assert.equal(run('ip("2001:db8::1").family()'), 6)
      assert.equal(run('string(ip("2001:0db8:0:0:0:0:0:1"))'), '2001:db8::1')
      assert.equal(run('ip("127.0.0.1").isLoopback()'), true)
      assert.equal(run('ip("8.8.8.8").isGlobalUnicast()'), true)
      assert.equal(run('cidr("10.0.0.0/8").containsIP("10.1.2.3")'), true)
      assert.equal(run('cidr("10.0.0.0/8").containsIP(ip("11.1.2.3"))'), false)
      assert.equal(run('cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16")'), true)
      assert.equal(run('string(cidr("192.168.1.5/24").masked())'), '192.168.1.0/24')
      assert.equal(run('cidr("192.168.1.5/24").prefixLength()'), 24)
      assert.equal(run('isCIDR("10.0.0.0/33")'), false)
    })

    it('semver (the reference semverlib, blang/semver ordering and messages)', () => {
      assert.equal(run('semver("1.2.3").compareTo(semver("1.2.3"))'), 0)
      assert.equal(run('semver("1.2.3").compareTo(semver("2.0.0"))'), -1)
      assert.equal(run('semver("1.2.3").compareTo(semver("0.1.2"))'), 1)
      assert.equal(run('semver("1.10.0").isGreaterThan(semver("1.9.9"))'), true)
      assert.equal(run('semver("1.0.0-alpha").isLessThan(semver("1.0.0"))'), true)
      assert.equal(run('semver("1.0.0-alpha.1").isLessThan(semver("1.0.0-alpha.beta"))'), true)
      assert.equal(run('semver("1.0.0-rc.1").isGreaterThan(semver("1.0.0-beta.11"))'), true)
      assert.equal(run('semver("1.0.0+build.1").compareTo(semver("1.0.0+build.2"))'), 0)
      assert.equal(run('semver("3.4.5").major() + semver("3.4.5").minor() + semver("3.4.5").patch()'), 12)
      assert.equal(run('isSemver("1.2.3")'), true)
      assert.equal(run('isSemver("v1.2")'), false)
      assert.equal(run('isSemver("v1.2", true)'), true)
      assert.equal(run('semver("v01.02", true).minor()'), 2)
      assert.equal(run('isSemver("1.2-beta", true)'), false)
      assert.throws(() => run('semver("1.2")'), /No Major\.Minor\.Patch elements found/)
      assert.throws(() => run('semver("01.2.3")'), /Major number must not contain leading zeroes "01"/)
      assert.throws(() => run('semver("1.x.3")'), /Invalid character\(s\) found in minor number "x"/)
    })
    it('quantity', () => {
      assert.equal(run('quantity("1Gi").isGreaterThan(quantity("1G"))'), true)
      assert.equal(run('quantity("500m").isLessThan(quantity("1"))'), true)
      assert.equal(run('quantity("1.5k").asInteger()'), 1500)
      assert.equal(run('quantity("1500m").isInteger()'), false)
      assert.equal(run('quantity("1Ki").add(quantity("24")).compareTo(quantity("1048"))'), 0)
      assert.equal(run('quantity("2").sub(3).sign()'), -1)
      assert.equal(run('quantity("1e3").asApproximateFloat()'), 1000)
      assert.equal(run('isQuantity("1.5Gi")'), true)
      assert.equal(run('isQuantity("Gi")'), false)
      assert.throws(() => run('quantity("1.5m").asInteger()'), /cannot convert value to integer/)
    })
  })
})
