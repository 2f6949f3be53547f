/**
 * The static token file (reference: token/tokenfile): --token-auth-file is a CSV file of
 * `token,user name,user uid[,"group1,group2"]` records (more columns are allowed and ignored).
 * It is read once at start-up, as Go's encoding/csv reads it; a malformed record stops the
 * server with a message naming the file and the line. Records with an empty token are skipped
 * and a repeated token keeps its last record, with a warning each, as the reference does.
 */
import { readFileSync } from 'node:fs'
import type { UserInfo } from '../http/types.js'
import { AuthenticationConfigError, type TokenAuthenticator, copyOfUser } from './authenticator.js'

export interface CsvRecord {
  /** The line the record starts on (1-based). */
  line: number
  fields: string[]
}

export class CsvError extends Error {
  override name = 'CsvError'
}

const BARE_QUOTE = 'bare " in non-quoted-field'
const QUOTE = 'extraneous or missing " in quoted-field'

/** Records of a CSV text with Go's encoding/csv rules (RFC 4180, no lazy quotes, any field count). */
export function parseCsv(input: string): CsvRecord[] {
  const text = input.replace(/\r\n/g, '\n')
  const records: CsvRecord[] = []
  let i = 0
  let line = 1
  const error = (startLine: number, errLine: number, column: number, reason: string) =>
    new CsvError(startLine !== errLine ? `record on line ${startLine}; parse error on line ${errLine}, column ${column}: ${reason}` : `parse error on line ${errLine}, column ${column}: ${reason}`)
  while (i < text.length) {
    if (text[i] === '\n') {
      // Empty lines are skipped.
      i++
      line++
      continue
    }
    const startLine = line
    const fields: string[] = []
    let lineStart = i
    for (;;) {
      if (text[i] === '"') {
        // Quoted field.
        let value = ''
        i++
        for (;;) {
          if (i >= text.length) throw error(startLine, line, i - lineStart + 1, QUOTE)
          const c = text[i]!
          if (c === '"') {
            if (text[i + 1] === '"') {
              value += '"'
              i += 2
              continue
            }
            i++
            if (i < text.length && text[i] !== ',' && text[i] !== '\n') throw error(startLine, line, i - lineStart + 1, QUOTE)
            break
          }
          if (c === '\n') {
            line++
            lineStart = i + 1
          }
          value += c
          i++
        }
        fields.push(value)
      } else {
        let end = i
        while (end < text.length && text[end] !== ',' && text[end] !== '\n') end++
        const value = text.slice(i, end)
        const quote = value.indexOf('"')
        if (quote >= 0) throw error(startLine, line, i - lineStart + quote + 1, BARE_QUOTE)
        fields.push(value)
        i = end
      }
      if (text[i] === ',') {
        i++
        continue
      }
      // End of line or of the text: the record is complete.
      if (text[i] === '\n') {
        i++
        line++
      }
      break
    }
    records.push({ line: startLine, fields })
  }
  return records
}

export interface TokenFile {
  tokens: Map<string, UserInfo>
  /** What the reference logs as warnings (empty and repeated tokens). */
  warnings: string[]
}

export function readTokenFile(path: string): TokenFile {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    const why = e.code === 'ENOENT' ? 'no such file or directory' : e.code === 'EACCES' ? 'permission denied' : e.code === 'EISDIR' ? 'is a directory' : e.message
    throw new AuthenticationConfigError(`--token-auth-file: open ${path}: ${why}`)
  }
  let records: CsvRecord[]
  try {
    records = parseCsv(text)
  } catch (err) {
    throw new AuthenticationConfigError(`--token-auth-file: ${path}: ${(err as Error).message}`)
  }
  const tokens = new Map<string, UserInfo>()
  const warnings: string[] = []
  let recordNum = 0
  for (const { line, fields } of records) {
    if (fields.length < 3) {
      throw new AuthenticationConfigError(`--token-auth-file: token file '${path}' must have at least 3 columns (token, user name, user uid), found ${fields.length} (line ${line})`)
    }
    recordNum++
    const [token, name, uid] = fields as [string, string, string]
    if (token === '') {
      warnings.push(`empty token has been found in token file '${path}', record number '${recordNum}'`)
      continue
    }
    if (tokens.has(token)) warnings.push(`duplicate token has been found in token file '${path}', record number '${recordNum}'`)
    tokens.set(token, { name, uid, groups: fields.length >= 4 ? fields[3]!.split(',') : [] })
  }
  return { tokens, warnings }
}

/** A token of the file is its user; any other token is not this method's (a map lookup, as the reference). */
export function tokenFileAuthenticator(file: TokenFile): TokenAuthenticator {
  return {
    name: 'token file',
    authenticateToken(token) {
      const user = file.tokens.get(token)
      return user ? { user: copyOfUser(user) } : null
    },
  }
}
