#!/usr/bin/env node
// Re-records the expected outputs of kubectl's printers used by test/core/printers.
// Usage: node scripts/record-printer-fixtures.mjs [path/to/kubectl.1.32]
// For every case: a scratch dir holding the input object (and template files), then
//   kubectl patch --local -f <input> --type merge -p '{}' <printer args>
// (a no-op merge patch works for every kind and prints the object unchanged through the printer).
// Writes test/fixtures/printers/expected.json and objects/<input>.json (the object as kubectl decoded it,
// i.e. its `-o json --show-managed-fields` output; JSON inputs are used as they are by the tests).
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync, readFileSync, mkdirSync, rmSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const fixtures = join(root, 'test/fixtures/printers')
// Default: kubectl 1.32 as scripts/install-test-clients.mjs installs it.
const kubectl = process.argv[2] ?? join(root, '.tools/kubectl-1.32/kubectl')

const D = 'deployment.yaml'
const T = 'tricky.json'
const cases = []
const add = (id, input, args, files) => cases.push({ id, input, args, ...(files ? { files } : {}) })

// --- json / yaml / name for every input
for (const input of readdirSync(join(fixtures, 'inputs')).sort()) {
  const base = input.replace(/\.(json|yaml)$/, '')
  add(`json-${base}`, input, ['-o', 'json'])
  add(`yaml-${base}`, input, ['-o', 'yaml'])
  add(`name-${base}`, input, ['-o', 'name'])
}
add('json-managed-shown', 'managed.yaml', ['-o', 'json', '--show-managed-fields'])
add('yaml-managed-shown', 'managed.yaml', ['-o', 'yaml', '--show-managed-fields'])
add('jsonpath-managed-kept', 'managed.yaml', ['-o', 'jsonpath={.metadata.managedFields[0].manager}'])
add('json-uppercase', 'configmap.yaml', ['-o', 'JSON'])
add('yaml-long-flag', 'configmap.yaml', ['--output=yaml'])
add('name-uppercase', 'configmap.yaml', ['-o', 'NAME'])
add('kyaml', 'configmap.yaml', ['-o', 'kyaml'])
add('invalid-format', 'configmap.yaml', ['-o', 'wide'])
add('invalid-format-foo', 'configmap.yaml', ['-o', 'foo'])
add('invalid-format-jsonx', 'configmap.yaml', ['-o', 'jsonx={.a}'])
add('default-output', 'configmap.yaml', [])

// --- jsonpath
const jp = (id, input, expr, extra = [], files) => add(`jsonpath-${id}`, input, ['-o', expr, ...extra], files)
jp('name', D, 'jsonpath={.metadata.name}')
jp('dollar', D, 'jsonpath={$.metadata.name}')
jp('containers-star', D, 'jsonpath={.spec.template.spec.containers[*].name}')
jp('range', D, 'jsonpath={range .spec.template.spec.containers[*]}{.name}{"\\t"}{.image}{"\\n"}{end}')
jp('filter-eq', D, 'jsonpath={.spec.template.spec.containers[?(@.name=="web")].image}')
jp('filter-ne', D, 'jsonpath={.spec.template.spec.containers[?(@.name!="web")].name}')
jp('filter-exists', D, 'jsonpath={.spec.template.spec.containers[?(@.ports)].name}')
jp('filter-gt', D, 'jsonpath={.spec.template.spec.containers[0].ports[?(@.containerPort>9000)].name}')
jp('filter-map-result', D, 'jsonpath={.spec.template.spec.containers[?(@.name=="log-shipper")]}')
jp('recursive', D, 'jsonpath={..name}')
jp('recursive-image', D, 'jsonpath={..image}')
jp('slice', D, 'jsonpath={.spec.template.spec.containers[0:1].name}')
jp('slice-open', D, 'jsonpath={.spec.template.spec.containers[1:].name}')
jp('slice-step', T, 'jsonpath={.spec.items[::2].name}')
jp('slice-range-step', T, 'jsonpath={.spec.items[0:3:2].name}')
jp('negative-index', D, 'jsonpath={.spec.template.spec.containers[-1].name}')
jp('index-out-of-bounds', D, 'jsonpath={.spec.template.spec.containers[5].name}')
jp('partial-then-error', D, 'jsonpath={.metadata.name}{.spec.template.spec.containers[9].name}')
jp('missing', D, 'jsonpath={.metadata.missing}')
jp('missing-strict', D, 'jsonpath={.metadata.missing}', ['--allow-missing-template-keys=false'])
jp('missing-deep-strict', D, 'jsonpath={.spec.nothere.deeper}', ['--allow-missing-template-keys=false'])
jp('items-on-object', D, 'jsonpath={.items[*].metadata.name}')
jp('escaped-dot', D, 'jsonpath={.metadata.labels.app\\.kubernetes\\.io/name}')
jp('quoted-key', D, "jsonpath={.metadata.labels['app.kubernetes.io/name']}")
jp('quoted-key-dq', D, 'jsonpath={.metadata.annotations["deployment.kubernetes.io/revision"]}')
jp('union', D, "jsonpath={.metadata['name','namespace']}")
jp('union-star', D, "jsonpath={.spec.template.spec.containers[*]['name','image']}")
jp('map', D, 'jsonpath={.spec.strategy}')
jp('list', D, 'jsonpath={.spec.template.spec.containers[0].args}')
jp('int', D, 'jsonpath={.spec.replicas}')
jp('text-outside', D, 'jsonpath=name: {.metadata.name}{"\\n"}')
jp('literal', D, 'jsonpath={"literal text"}')
jp('no-braces', D, 'jsonpath=.metadata.name')
jp('multi', D, 'jsonpath={.kind}/{.apiVersion}')
jp('nested-star', D, 'jsonpath={.spec.template.spec.containers[*].ports[*].containerPort}')
jp('wildcard-map', D, 'jsonpath={.metadata.labels.*}')
jp('nested-range', D, 'jsonpath={range .spec.template.spec.containers[*]}[{.name}:{range .volumeMounts[*]}{.mountPath},{end}]{end}')
jp('parse-error-unclosed', D, 'jsonpath={.metadata.name')
jp('parse-error-range', D, 'jsonpath={range .spec.template.spec.containers[*]}{.name}')
jp('parse-error-end', D, 'jsonpath={end}')
jp('parse-error-bracket', D, 'jsonpath={.spec.template.spec.containers[0}')
jp('empty', D, 'jsonpath=')
jp('no-template', D, 'jsonpath')
jp('template-flag', D, 'jsonpath', ['--template={.metadata.namespace}'])
jp('as-json', D, 'jsonpath-as-json={.spec.template.spec.containers[*].name}')
jp('as-json-single', D, 'jsonpath-as-json={.metadata.name}')
jp('as-json-map', D, 'jsonpath-as-json={.spec.selector}')
jp('as-json-missing', D, 'jsonpath-as-json={.metadata.missing}')
jp('file', D, 'jsonpath-file=tmpl.jsonpath', [], { 'tmpl.jsonpath': '{.metadata.name}{"\\n"}{.spec.replicas}\n' })
jp('file-missing', D, 'jsonpath-file=nope.jsonpath')
jp('tricky-scalars', T, 'jsonpath={.spec.float} {.spec.whole} {.spec.huge} {.spec.small} {.spec.tiny} {.spec.million} {.spec.millionInt} {.spec.bigFloat} {.spec.big} {.spec.int64max} {.spec.int64min} {.spec.beyond} {.spec.negFloat} {.spec.third}')
jp('tricky-null', T, 'jsonpath={.spec.nothing}|{.spec.mixed[2]}|{.spec.emptyMap}|{.spec.emptyList}')
jp('tricky-spec', T, 'jsonpath={.spec}')
jp('tricky-bools', T, 'jsonpath={.spec.bools} {.spec.bools[0]} {.spec.items[*].enabled}')
jp('tricky-annotations', T, 'jsonpath={.metadata.annotations}')
jp('tricky-html', T, 'jsonpath={.data.html}')
jp('tricky-filter-bool', T, 'jsonpath={.spec.items[?(@.enabled==true)].name}')
jp('tricky-filter-lt', T, 'jsonpath={.spec.items[?(@.count<6)].name}')
jp('tricky-filter-float', T, 'jsonpath={.spec.items[?(@.count>=5.0)].name}')
jp('tricky-recursive-count', T, 'jsonpath={..count}')
jp('tricky-range-items', T, 'jsonpath={range .spec.items[*]}{.name}={.tags}{"\\n"}{end}')
jp('tricky-as-json-spec', T, 'jsonpath-as-json={.spec.mixed}')
jp('tricky-empty-key', T, "jsonpath={.metadata.annotations['']}")
jp('tricky-string-index', T, 'jsonpath={.data.hex[0]}')

// --- go templates
const gt = (id, input, tmpl, extra = [], files) => add(`gotemplate-${id}`, input, ['-o', tmpl, ...extra], files)
gt('name', D, 'go-template={{.metadata.name}}')
gt('range', D, 'go-template={{range .spec.template.spec.containers}}{{.name}}:{{.image}}{{"\\n"}}{{end}}')
gt('range-vars', D, 'go-template={{range $i, $c := .spec.template.spec.containers}}{{$i}}={{$c.name}} {{end}}')
gt('range-map', D, 'go-template={{range $k, $v := .metadata.labels}}{{$k}}={{$v}};{{end}}')
gt('range-map-values', D, 'go-template={{range .spec.template.spec.nodeSelector}}{{.}} {{end}}')
gt('range-else', D, 'go-template={{range .spec.missing}}x{{else}}empty{{end}}')
gt('index', D, 'go-template={{index .metadata.labels "app.kubernetes.io/name"}}')
gt('index-list', D, 'go-template={{(index .spec.template.spec.containers 1).name}} {{index .spec.template.spec.containers 0 "image"}}')
gt('index-missing', D, 'go-template={{index .metadata.labels "nope"}}')
gt('index-out-of-range', D, 'go-template={{index .spec.template.spec.containers 7}}')
gt('missing', D, 'go-template={{.metadata.missing}}')
gt('missing-strict', D, 'go-template=a{{.metadata.missing}}b', ['--allow-missing-template-keys=false'])
gt('missing-nested', D, 'go-template={{.metadata.missing.deeper}}')
gt('len', D, 'go-template={{len .spec.template.spec.containers}} {{len .metadata.labels}} {{len .metadata.name}}')
gt('printf-float', D, 'go-template={{printf "%s has %d replicas (%v)" .metadata.name .spec.replicas .spec.replicas}}')
gt('printf-verbs', D, 'go-template={{printf "%v|%5s|%-5s|%q|%x|%t|%f|%.2f|%05d|%d|%X|%8.3f|%-4d|%e|%g" "a" "b" "c" "d" "hi" true 1.5 3.14159 42 7 255 2.5 3 1234.5678 0.000012}}')
gt('printf-wrong', D, 'go-template={{printf "%d %s" "x" 3}}|{{printf "%s"}}|{{printf "%s" 1 2}}')
gt('printf-values', D, 'go-template={{printf "%v" .spec.strategy}}|{{printf "%q" .spec.template.spec.containers}}')
gt('if-else-if', D, 'go-template={{if eq .kind "Pod"}}pod{{else if eq .kind "Deployment"}}deploy{{else}}other{{end}}')
gt('with', D, 'go-template={{with .spec.strategy}}{{.type}}/{{.rollingUpdate.maxSurge}}{{end}}{{with .spec.nope}}x{{else}}none{{end}}')
gt('compare', D, 'go-template={{eq 1 1}} {{ne "a" "b"}} {{lt 1 2}} {{le 2 2}} {{gt 3 2}} {{ge 1 2}} {{eq .kind "Deployment" "Pod"}} {{gt .spec.replicas 2.0}}')
gt('compare-incompatible', D, 'go-template={{gt .spec.replicas 2}}')
gt('logic', D, 'go-template={{and 1 0}} {{or 0 "x"}} {{not true}} {{or .metadata.missing "default"}} {{and .kind .metadata.name}}')
gt('variables', D, 'go-template={{$x := .metadata.name}}{{$y := "s"}}{{$x}}-{{$y}}{{$y = "t"}}{{$y}}')
gt('pipeline', D, 'go-template={{.metadata.name | printf "%q"}} {{"x" | printf "%s-%s" "y"}} {{.spec.replicas | len}}')
gt('trim', D, 'go-template={{- range .spec.template.spec.containers }}\n  {{- .name -}}\n  ,\n{{- end }}')
gt('comment', D, 'go-template=a{{/* a comment */}}b{{- /* trimmed */ -}} c')
gt('number-print', D, 'go-template={{.spec.replicas}} {{.spec.revisionHistoryLimit}} {{1.5}} {{3}} {{1e6}} {{0x10}}')
gt('map-print', D, 'go-template={{.metadata.labels}}')
gt('list-print', D, 'go-template={{.spec.template.spec.containers}}')
gt('object-print', D, 'go-template={{.spec.strategy}} {{.spec.template.spec.volumes}}')
gt('base64decode', T, 'go-template={{base64decode .data.b64}}')
gt('base64decode-bad', T, 'go-template={{base64decode "!!!"}}')
gt('base64encode', T, 'go-template={{base64encode "x"}}')
gt('tojson', T, 'go-template={{toJson .spec}}')
gt('builtins', D, 'go-template={{html "<a href=\'x\'>&</a>"}}|{{js "it\'s <x>"}}|{{urlquery "a b&c"}}|{{print 1 "a" 2 "b" "c"}}|{{println "x" 1}}|{{slice "abcdef" 1 3}}|{{print nil}}')
gt('break-continue', D, 'go-template={{range .spec.template.spec.containers}}{{if eq .name "log-shipper"}}{{break}}{{end}}{{.name}} {{end}}')
gt('parse-error-unclosed', D, 'go-template={{.metadata.name')
gt('parse-error-end', D, 'go-template={{end}}')
gt('parse-error-if', D, 'go-template={{if}}x{{end}}')
gt('parse-error-func', D, 'go-template={{nosuchfunc 1}}')
gt('parse-error-missing-end', D, 'go-template={{range .spec}}x')
gt('exec-error-field-on-list', D, 'go-template=before {{.spec.template.spec.containers.name}} after')
gt('exec-error-strict-map', 'configmap.yaml', 'go-template={{.data.nope}}', ['--allow-missing-template-keys=false'])
gt('template-alias', D, 'template={{.kind}}')
gt('template-flag-only', D, 'go-template', ['--template={{.metadata.namespace}}'])
gt('template-flag-no-output', D, null, ['--template={{.metadata.namespace}}'])
gt('template-flag-and-value', D, 'go-template={{.kind}}', ['--template={{.metadata.namespace}}'])
gt('empty', D, 'go-template=')
gt('file', D, 'go-template-file=t.tmpl', [], { 't.tmpl': '{{.metadata.name}}\n{{range .spec.template.spec.containers}}- {{.name}}\n{{end}}' })
gt('templatefile', D, 'templatefile=t.tmpl', [], { 't.tmpl': '{{.kind}}\n' })
gt('file-missing', D, 'go-template-file=missing.tmpl')
gt('tricky-scalars', T, 'go-template={{.spec.float}} {{.spec.whole}} {{.spec.huge}} {{.spec.small}} {{.spec.million}} {{.spec.millionInt}} {{.spec.bigFloat}} {{.spec.big}} {{.spec.int64max}} {{.spec.beyond}} {{.spec.third}} {{.spec.nothing}} {{.spec.emptyMap}} {{.spec.emptyList}} {{.spec.mixed}} {{.spec.bools}}')
gt('tricky-html', T, 'go-template={{.data.html}} {{index .metadata.annotations ""}}')
gt('tricky-printf', T, 'go-template={{printf "%d|%v|%s|%q" .spec.zero .spec.items .data.unicode .data.tab}}')
gt('tricky-range-nested', T, 'go-template={{range .spec.items}}{{.name}}[{{range .tags}}{{.}},{{else}}none{{end}}]{{end}}')
gt('tricky-eq-nil', T, 'go-template={{if .spec.nothing}}set{{else}}unset{{end}} {{eq .spec.items 1}}')
for (const c of cases) if (c.args[1] === null) c.args = c.args.slice(2)

function run(c) {
  const dir = mkdtempSync(join(tmpdir(), 'printer-rec-'))
  try {
    writeFileSync(join(dir, c.input), readFileSync(join(fixtures, 'inputs', c.input)))
    for (const [name, content] of Object.entries(c.files ?? {})) {
      mkdirSync(dirname(join(dir, name)), { recursive: true })
      writeFileSync(join(dir, name), content)
    }
    const r = spawnSync(kubectl, ['patch', '--local', '-f', c.input, '--type', 'merge', '-p', '{}', ...c.args], {
      cwd: dir, encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: dir, LANG: 'C', LC_ALL: 'C', TZ: 'UTC' },
    })
    return { stdout: r.stdout, stderr: r.stderr, exitCode: r.status }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const out = []
for (const c of cases) out.push({ ...c, expected: run(c) })
writeFileSync(join(fixtures, 'expected.json'), JSON.stringify(out, null, 2) + '\n')

// The objects the printers are fed: for YAML inputs kubectl's own JSON rendering (the tests parse it keeping
// int64/float64 apart); JSON inputs are parsed as they are.
mkdirSync(join(fixtures, 'objects'), { recursive: true })
for (const input of readdirSync(join(fixtures, 'inputs')).filter((f) => f.endsWith('.yaml'))) {
  const r = run({ input, args: ['-o', 'json', '--show-managed-fields'] })
  if (r.exitCode !== 0) throw new Error(`${input}: ${r.stderr}`)
  writeFileSync(join(fixtures, 'objects', input.replace(/\.yaml$/, '.json')), r.stdout)
}
console.log(`recorded ${out.length} cases`)
