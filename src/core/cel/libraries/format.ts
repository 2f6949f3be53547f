/**
 * cel-go's strings extension `format`: `"%s has %d items".format([name, n])` with the verbs
 * %s, %d, %f (with precision, as %.2f), %e, %x, %X, %o, %b and %%.
 */
import type { Environment } from '@marcbachmann/cel-js'
import { EvaluationError } from '@marcbachmann/cel-js'

import { toJson } from '../values.js'

function asString(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (value === null) return 'null'
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8')
  const plain = toJson(value)
  if (Array.isArray(plain)) return `[${plain.map(asString).join(', ')}]`
  if (plain && typeof plain === 'object') return `{${Object.entries(plain).map(([k, v]) => `${asString(k)}: ${asString(v)}`).join(', ')}}`
  return String(value)
}

function integer(value: unknown, verb: string): bigint {
  if (typeof value === 'bigint') return value
  if (value && typeof value === 'object' && typeof (value as { valueOf(): unknown }).valueOf() === 'bigint') return (value as { valueOf(): bigint }).valueOf()
  throw new EvaluationError(`error during formatting: ${verb} is not supported for this type`)
}

export function registerFormatLibrary(env: Environment): void {
  env.registerFunction('string.format(list): string', (template: string, args: unknown[]) => {
    let next = 0
    const take = (): unknown => {
      if (next >= args.length) throw new EvaluationError(`index ${next} out of range`)
      return args[next++]
    }
    return template.replace(/%(?:\.(\d+))?([sdfexXobc%])/g, (_match, precision: string | undefined, verb: string) => {
      switch (verb) {
        case '%':
          return '%'
        case 's':
          return asString(take())
        case 'd':
          return String(integer(take(), '%d'))
        case 'f':
        case 'e': {
          const value = take()
          const n = typeof value === 'number' ? value : Number(integer(value, `%${verb}`))
          const digits = precision === undefined ? 6 : Number(precision)
          return verb === 'f' ? n.toFixed(digits) : n.toExponential(digits).replace(/e([+-])(\d)$/, 'e$10$2')
        }
        case 'x':
        case 'X': {
          const value = take()
          const text = typeof value === 'string' ? Buffer.from(value).toString('hex') : value instanceof Uint8Array ? Buffer.from(value).toString('hex') : integer(value, '%x').toString(16)
          return verb === 'X' ? text.toUpperCase() : text
        }
        case 'o':
          return integer(take(), '%o').toString(8)
        case 'b': {
          const value = take()
          return typeof value === 'boolean' ? String(value) : integer(value, '%b').toString(2)
        }
        default:
          throw new EvaluationError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`)
      }
    })
  })
}
