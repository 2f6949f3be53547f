/**
 * kubectl's output printers (cli-runtime PrintFlags.ToPrinter, kubectl v1.32): json, yaml, name,
 * go-template(-file), template(file), jsonpath(-file, -as-json). See values.ts for the value model.
 */
import { readFileSync } from 'node:fs'
import { GoTemplate, TemplateParseError } from './gotemplate.js'
import { JsonPath, JsonPathExecError, JsonPathParseError } from './jsonpath.js'
import { goJson, goQuote, goSprintSharpV, goSprintV, isMap } from './values.js'
import { toYaml } from './yaml.js'

export { parseGoJson } from './values.js'
export { toYaml } from './yaml.js'

export interface PrintOptions {
  /** the -o value as typed, e.g. 'json', 'jsonpath={.metadata.name}', 'go-template-file=x.tmpl' */
  output?: string
  template?: string
  allowMissingTemplateKeys: boolean
  showManagedFields: boolean
  readFile?: (path: string) => string
}

/** kubectl's message, without the `error: ` prefix. */
export class PrinterError extends Error {
  /** What kubectl had already written to stdout when it failed (go-template execution errors). */
  readonly partialOutput: string
  constructor(message: string, partialOutput = '') {
    super(message)
    this.name = 'PrinterError'
    this.partialOutput = partialOutput
  }
}

interface PrintContext {
  /** e.g. 'deployment.apps' for -o name; derived from apiVersion/kind when absent */
  resource?: string
  /** for the default (no -o) printer: 'patched', 'patched (no change)' */
  operation?: string
}

export interface Printer {
  print(object: Record<string, unknown>, context: PrintContext): string
}

const ALLOWED_FORMATS = [
  'go-template', 'go-template-file', 'json', 'jsonpath', 'jsonpath-as-json', 'jsonpath-file', 'name', 'template', 'templatefile', 'yaml',
]

function noMatch(format: string): PrinterError {
  return new PrinterError(`unable to match a printer suitable for the output format ${goQuote(format)}, allowed formats are: ${ALLOWED_FORMATS.join(',')}`)
}

function omitManagedFields(o: Record<string, unknown>): Record<string, unknown> {
  const md = o.metadata
  if (!isMap(md) || !('managedFields' in md)) return o
  const { managedFields: _drop, ...rest } = md
  void _drop
  return { ...o, metadata: rest }
}

function resourceOf(o: Record<string, unknown>): string {
  const kind = typeof o.kind === 'string' ? o.kind : ''
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : ''
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : ''
  return group ? `${kind.toLowerCase()}.${group}` : kind.toLowerCase()
}

function namePrinter(operation: string | undefined): Printer {
  return {
    print(o, ctx) {
      const md = isMap(o.metadata) ? o.metadata : {}
      const name = typeof md.name === 'string' && md.name !== '' ? md.name : '<unknown>'
      const kind = typeof o.kind === 'string' ? o.kind : ''
      if (!ctx.resource && !kind) throw new PrinterError(`missing kind for resource with name ${name}`)
      const op = operation ?? ctx.operation ?? ''
      return `${ctx.resource ?? resourceOf(o)}/${name}${op ? ` ${op}` : ''}\n`
    },
  }
}

const GO_TEMPLATE_FORMATS = ['go-template', 'go-template-file', 'template', 'templatefile']
const JSONPATH_FORMATS = ['jsonpath', 'jsonpath-as-json', 'jsonpath-file']

/** Splits `format=value` the way kubectl does (only when --template is empty). */
function splitTemplate(output: string, formats: string[], templateArg: string | undefined): { format: string; value: string } {
  if (templateArg) return { format: output, value: templateArg }
  for (const f of formats) {
    if (output.startsWith(f + '=')) return { format: f, value: output.slice(f.length + 1) }
  }
  return { format: output, value: '' }
}

export function createPrinter(options: PrintOptions): Printer {
  const templateArg = options.template ?? ''
  let output = options.output ?? ''
  if (templateArg && !options.output) output = 'go-template'
  const readFile = options.readFile ?? ((p: string) => readFileSync(p, 'utf8'))
  const lower = output.toLowerCase()

  if (lower === 'json' || lower === 'yaml') {
    const json = lower === 'json'
    return {
      print(o) {
        const obj = options.showManagedFields ? o : omitManagedFields(o)
        return json ? goJson(obj, '    ') + '\n' : toYaml(obj)
      },
    }
  }
  if (lower === 'name') return namePrinter('')
  if (lower === '') return namePrinter(undefined)

  const readTemplate = (path: string): string => {
    try {
      return readFile(path)
    } catch (e) {
      const err = e as NodeJS.ErrnoException
      const reason = err.code === 'ENOENT' ? 'no such file or directory' : err.code === 'EACCES' ? 'permission denied' : err.code === 'EISDIR' ? 'is a directory' : err.message
      throw new PrinterError(`error reading --template ${path}, open ${path}: ${reason}\n`)
    }
  }

  // go templates
  if (templateArg || GO_TEMPLATE_FORMATS.some((f) => output === f || output.startsWith(f + '='))) {
    const { format, value } = splitTemplate(output, GO_TEMPLATE_FORMATS, templateArg)
    if (GO_TEMPLATE_FORMATS.includes(format)) {
      if (!value) throw new PrinterError('template format specified but no template given')
      const text = format === 'templatefile' || format === 'go-template-file' ? readTemplate(value) : value
      let tmpl: GoTemplate
      try {
        tmpl = new GoTemplate(text)
      } catch (e) {
        if (e instanceof TemplateParseError) throw new PrinterError(`error parsing template ${text}, ${e.message}\n`)
        throw e
      }
      tmpl.missingKeyError = !options.allowMissingTemplateKeys
      return {
        print(o) {
          const r = tmpl.execute(o)
          if (r.error === undefined) return r.output
          const debug =
            `Error executing template: ${r.error}. Printing more information for debugging the template:\n` +
            `\ttemplate was:\n\t\t${text}\n` +
            `\traw data was:\n\t\t${goJson(o)}\n` +
            `\tobject given to template engine was:\n\t\t${goSprintV(o)}\n\n`
          throw new PrinterError(`error executing template ${goQuote(text)}: ${r.error}`, r.output + debug)
        },
      }
    }
    if (!JSONPATH_FORMATS.some((f) => format === f)) throw noMatch(output)
  }

  // jsonpath
  {
    const { format, value } = splitTemplate(output, JSONPATH_FORMATS, templateArg)
    if (JSONPATH_FORMATS.includes(format)) {
      if (!value) throw new PrinterError('template format specified but no template given')
      const text = format === 'jsonpath-file' ? readTemplate(value) : value
      let jp: JsonPath
      try {
        jp = new JsonPath(text)
      } catch (e) {
        if (e instanceof JsonPathParseError) throw new PrinterError(`error parsing jsonpath ${text}, ${e.message}\n`)
        throw e
      }
      jp.allowMissingKeys = options.allowMissingTemplateKeys
      jp.outputJSON = format === 'jsonpath-as-json'
      return {
        print(o) {
          try {
            return jp.execute(o)
          } catch (e) {
            if (!(e instanceof JsonPathExecError)) throw e
            const debug =
              `Error executing template: ${e.message}. Printing more information for debugging the template:\n` +
              `\ttemplate was:\n\t\t${text}\n` +
              `\tobject given to jsonpath engine was:\n\t\t${goSprintSharpV(o)}\n\n`
            throw new PrinterError(`error executing jsonpath ${goQuote(text)}: ${debug}\n`)
          }
        },
      }
    }
  }
  throw noMatch(output)
}
