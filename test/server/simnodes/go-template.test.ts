/**
 * The Go text/template subset of kwok's stage templates, against text/template's documented
 * behaviour (pkg text/template): trim markers, `else if` chains, `range` with `else` and two
 * variables, variable assignment reaching the outer scope, pipelines passing the last argument,
 * Go's truth for `if`/`with`/`or`, `<no value>` for a missing key, raw strings, `printf`.
 */
import assert from 'node:assert/strict'
import { GoTemplate } from '../../../src/server/simnodes/go-template.js'

const render = (text: string, data: unknown, funcs = {}) => GoTemplate.parse(text).render(data, funcs)

describe('simulated nodes: Go templates', () => {
  it('trims spaces with {{- and -}}', () => {
    assert.equal(render('a  {{- "b" -}}  c', {}), 'abc')
  })

  it('chains else if, and treats empty values as false', () => {
    const t = '{{ if .a }}A{{ else if .b }}B{{ else }}none{{ end }}'
    assert.equal(render(t, { a: 'x' }), 'A')
    assert.equal(render(t, { a: '', b: [1] }), 'B')
    assert.equal(render(t, { a: 0, b: [] }), 'none')
  })

  it('ranges with index and element, sorted map keys, and else for an empty list', () => {
    assert.equal(render('{{ range $i, $e := .l }}{{ $i }}={{ $e }};{{ end }}', { l: ['a', 'b'] }), '0=a;1=b;')
    assert.equal(render('{{ range .m }}{{ . }}{{ end }}', { m: { b: 2, a: 1 } }), '12')
    assert.equal(render('{{ range .l }}x{{ else }}empty{{ end }}', { l: [] }), 'empty')
  })

  it('assigns to an outer variable from inside a range (Go 1.11+)', () => {
    assert.equal(render('{{ $found := false }}{{ range .l }}{{ if eq . "b" }}{{ $found = true }}{{ end }}{{ end }}{{ $found }}', { l: ['a', 'b'] }), 'true')
  })

  it('passes a pipeline value as the last argument, and with sets dot', () => {
    assert.equal(render('{{ .n | printf "%s-%d" "x" }}', { n: 7 }), 'x-7')
    assert.equal(render('{{ with .a.b }}{{ . }}{{ else }}no{{ end }}', { a: { b: 'in' } }), 'in')
    assert.equal(render('{{ or .missing `""` }}', {}), '""')
  })

  it('prints <no value> for a missing map key, and calls the given functions', () => {
    assert.equal(render('{{ .nope }}', {}), '<no value>')
    assert.equal(render('{{ Twice ( index .l 1 ) }}', { l: [1, 4] }, { Twice: (x: unknown) => Number(x) * 2 }), '8')
  })
})
