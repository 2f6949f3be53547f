/**
 * The field-error framework against the reference's own expectations
 * (apimachinery pkg/util/validation/field/path_test.go and errors_test.go, pkg/api/errors/errors_test.go,
 * release 1.35).
 */
import assert from 'node:assert/strict'
import { errors } from '../../../../src/server/api/status-errors.js'
import {
  Float64,
  Path,
  Rendered,
  aggregateMessage,
  duplicate,
  forbidden,
  goQuote,
  internalError,
  invalid,
  notFound,
  notSupported,
  required,
  tooLong,
  tooMany,
} from '../../../../src/server/api/validation/field/index.js'

describe('validation/field: Path', () => {
  it('renders children, indexes and keys as the reference (path_test.go)', () => {
    const root = Path.of('root')
    assert.equal(root.toString(), 'root')
    assert.equal(root.child('first').toString(), 'root.first')
    assert.equal(root.child('first').child('second').index(0).toString(), 'root.first.second[0]')
    assert.equal(root.child('first').child('second').index(0).child('third').index(93).toString(), 'root.first.second[0].third[93]')
    assert.equal(root.child('first').child('second').index(0).key('key').toString(), 'root.first.second[0][key]')
    assert.equal(Path.of('root', 'first').child('second', 'third').index(0).toString(), 'root.first.second.third[0]')
    assert.equal(Path.of('metadata').child('labels').key('app.kubernetes.io/name').toString(), 'metadata.labels[app.kubernetes.io/name]')
  })

  it('keeps the paths of fields and small indexes, never those under a map key or a long list', () => {
    const spec = Path.of('spec')
    assert.equal(Path.of('spec'), spec)
    assert.equal(spec.child('containers').index(0).child('name'), spec.child('containers').index(0).child('name'))
    // Under a key (data) or an index past the kept ones, every use makes new paths: rendered the same.
    const underKey = () => spec.child('selector').key('app').child('value')
    assert.notEqual(underKey(), underKey())
    assert.equal(underKey().toString(), 'spec.selector[app].value')
    const underLongList = () => spec.child('containers').index(64).child('name')
    assert.notEqual(underLongList(), underLongList())
    assert.equal(underLongList().toString(), 'spec.containers[64].name')
  })
})

describe('validation/field: error messages (errors_test.go TestErrorFormatting)', () => {
  const p = Path.of('path.to.field')
  const cases: Array<[string, { toString(): string }, string]> = [
    ['Required', required(p, 'the details'), 'path.to.field: Required value: the details'],
    ['Forbidden', forbidden(p, 'the details'), 'path.to.field: Forbidden: the details'],
    ['TooLong 1', tooLong(p, 1), 'path.to.field: Too long: may not be more than 1 byte'],
    ['TooLong 2', tooLong(p, 2), 'path.to.field: Too long: may not be more than 2 bytes'],
    ['TooLong negative', tooLong(p, -1), 'path.to.field: Too long: value is too long'],
    ['TooMany 2/1', tooMany(p, 2, 1), 'path.to.field: Too many: 2: must have at most 1 item'],
    ['TooMany 3/2', tooMany(p, 3, 2), 'path.to.field: Too many: 3: must have at most 2 items'],
    ['TooMany 2/-1', tooMany(p, 2, -1), 'path.to.field: Too many: 2: has too many items'],
    ['TooMany -1/1', tooMany(p, -1, 1), 'path.to.field: Too many: must have at most 1 item'],
    ['Internal', internalError(p, new Error('the error')), 'path.to.field: Internal error: the error'],
    ['Invalid string', invalid(p, 'the value', 'the details'), 'path.to.field: Invalid value: "the value": the details'],
    ['Invalid int', invalid(p, -42, 'the details'), 'path.to.field: Invalid value: -42: the details'],
    ['Invalid bool', invalid(p, true, 'the details'), 'path.to.field: Invalid value: true: the details'],
    ['Invalid list', invalid(p, ['one', 'two', 'three'], 'the details'), 'path.to.field: Invalid value: ["one","two","three"]: the details'],
    ['Invalid map (keys sorted)', invalid(p, { two: 2, one: 1, three: 3 }, 'the details'), 'path.to.field: Invalid value: {"one":1,"three":3,"two":2}: the details'],
    ['Invalid time', invalid(p, '0001-01-01T00:00:00Z', 'the details'), 'path.to.field: Invalid value: "0001-01-01T00:00:00Z": the details'],
    ['Invalid nil', invalid(p, null, 'the details'), 'path.to.field: Invalid value: null: the details'],
    ['Invalid struct as rendered', invalid(p, new Rendered('{"stringField":"stringval","intField":9376,"boolField":true}'), 'the details'), 'path.to.field: Invalid value: {"stringField":"stringval","intField":9376,"boolField":true}: the details'],
  ]
  for (const [name, err, expected] of cases) it(name, () => assert.equal(err.toString(), expected))

  it('NotSupported quotes the supported values in the given order; Duplicate and NotFound print the value', () => {
    assert.equal(notSupported(Path.of('spec', 'type'), 'Bad', ['ClusterIP', 'NodePort']).toString(), 'spec.type: Unsupported value: "Bad": supported values: "ClusterIP", "NodePort"')
    assert.equal(notSupported(Path.of('f'), 'v', []).toString(), 'f: Unsupported value: "v"')
    assert.equal(duplicate(Path.of('field').index(0).child('name'), 'bar').toString(), 'field[0].name: Duplicate value: "bar"')
    assert.equal(notFound(Path.of('field').index(0).child('name'), 'bar').toString(), 'field[0].name: Not found: "bar"')
  })

  it('floats print as Go %v does, strings as Go %q does', () => {
    assert.equal(invalid('f', new Float64(1e6), 'd').message, 'Invalid value: 1e+06: d')
    assert.equal(invalid('f', 0.5, 'd').message, 'Invalid value: 0.5: d')
    assert.equal(goQuote('a"b\\c\n\x00é'), '"a\\"b\\\\c\\n\\x00é"')
    assert.equal(invalid('f', { a: '<b>&' }, 'd').message, 'Invalid value: {"a":"\\u003cb\\u003e\\u0026"}: d')
  })

  it('a FieldError is a Status cause: reason, message (ErrorBody) and field', () => {
    const e = required(Path.of('spec', 'containers'), '')
    assert.deepEqual(e.toCause(), { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers' })
  })
})

describe('validation/field: the 422 Status (errors.go NewInvalid, errors_test.go)', () => {
  it('one error is printed alone, several in brackets, duplicates once', () => {
    const one = errors.invalid('', 'Kind', 'name', [duplicate(Path.of('field').index(0).child('name'), 'bar')])
    assert.equal(one.status.message, 'Kind "name" is invalid: field[0].name: Duplicate value: "bar"')
    assert.equal(errors.invalid('', 'Kind', 'name', []).status.message, 'Kind "name" is invalid')
    const a = invalid(Path.of('f'), 'v', 'd')
    const b = required(Path.of('g'))
    assert.equal(aggregateMessage([a, a]), 'f: Invalid value: "v": d')
    assert.equal(aggregateMessage([a, b, a]), '[f: Invalid value: "v": d, g: Required value]')
  })

  it('details carry group, kind, name and every cause in order (duplicates kept), as plain objects', () => {
    const a = invalid(Path.of('spec', 'replicas'), -1, 'must be greater than or equal to 0')
    const err = errors.invalid('apps', 'Deployment', 'web', [a, a])
    assert.equal(err.code, 422)
    assert.equal(err.status.reason, 'Invalid')
    assert.equal(err.status.message, 'Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0')
    assert.deepEqual(JSON.parse(JSON.stringify(err.status.details)), {
      name: 'web',
      group: 'apps',
      kind: 'Deployment',
      causes: [
        { reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'spec.replicas' },
        { reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'spec.replicas' },
      ],
    })
  })
})
