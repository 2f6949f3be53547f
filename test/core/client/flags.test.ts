import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { Command, Flags, Parser } from '@oclif/core'
import { ClientConfigError } from '../../../src/core/client/errors.js'
import { clientFlagDefinitions } from '../../../src/cli/client-flags.js'
import { camelCase, clientFlagsFrom, hasNoEffect } from '../../../src/core/client/flags.js'
import { CLIENT_OPTIONS } from '../../../src/core/options/catalogue/client.js'

type Definition = { type: string; char?: string; multiple?: boolean; description?: string; options?: string[]; aliases?: string[]; defaultHelp?: unknown; default?: unknown; helpGroup?: string; hidden?: boolean }

describe('core/client: general client flags', () => {
  const definitions = clientFlagDefinitions() as unknown as Record<string, Definition>

  it('defines exactly the catalogue options, storage-driver ones included', () => {
    assert.deepEqual(Object.keys(definitions).sort(), CLIENT_OPTIONS.filter((o) => !o.hidden).map((o) => o.name).sort())
    assert.ok(definitions['storage-driver-host'])
    assert.ok(definitions['warnings-as-errors'])
  })

  it('derives type, repetition, short name, choices, aliases and help from the catalogue', () => {
    for (const spec of CLIENT_OPTIONS) {
      const d = definitions[spec.name]
      assert.equal(d.type, spec.type === 'bool' ? 'boolean' : 'option', spec.name)
      assert.equal(Boolean(d.multiple), Boolean(spec.repeatable), spec.name)
      assert.equal(d.char, spec.short, spec.name)
      assert.ok(d.description?.startsWith(spec.help), spec.name)
      assert.equal(d.default, undefined, `${spec.name} must not get a parsed default`)
      assert.equal(d.helpGroup, 'CLIENT')
    }
    assert.equal(definitions.namespace.char, 'n')
    assert.equal(definitions.server.char, 's')
    assert.deepEqual(definitions.profile.options, ['none', 'cpu', 'heap', 'goroutine', 'threadcreate', 'block', 'mutex', 'trace'])
    assert.deepEqual(definitions.clientrc.aliases, ['kuberc'])
    assert.equal(definitions['request-timeout'].defaultHelp, '0')
    assert.equal(definitions['cache-dir'].defaultHelp, '$HOME/.client/cache')
  })

  it('leaves the options that have no effect here out of --help (accepted, hidden)', () => {
    assert.equal(definitions['storage-driver-db'].hidden, true)
    assert.equal(definitions['cache-dir'].hidden, true)
    assert.notEqual(definitions.token.hidden, true)
    assert.equal(hasNoEffect('storage-driver-buffer-duration'), true)
    assert.equal(hasNoEffect('request-timeout'), false)
  })

  it('parses a command line with oclif into ClientFlags', async () => {
    const argv = [
      '-n', 'team', '-s', 'https://127.0.0.1:6443', '--as', 'alice', '--as-group', 'devs', '--as-group=ops,"a,b"',
      '--as-user-extra', 'scopes=view', '--insecure-skip-tls-verify', '--request-timeout', '5s', '--kuberc', 'rc.yaml',
    ]
    const { flags } = await Parser.parse(argv, { flags: clientFlagDefinitions() })
    assert.deepEqual(clientFlagsFrom(flags), {
      namespace: 'team',
      server: 'https://127.0.0.1:6443',
      as: 'alice',
      // kubectl's --as-group is a StringArray: one group per use, commas kept.
      asGroup: ['devs', 'ops,"a,b"'],
      asUserExtra: ['scopes=view'],
      insecureSkipTlsVerify: true,
      requestTimeout: '5s',
      clientrc: 'rc.yaml',
    })
  })

  it('spreads into a command\'s static flags next to its own', async () => {
    class Probe extends Command {
      static override flags = { ...clientFlagDefinitions(), output: Flags.string({ char: 'o' }) }
      async run(): Promise<unknown> {
        const { flags } = await this.parse(Probe)
        return clientFlagsFrom(flags)
      }
    }
    assert.deepEqual(await Probe.run(['--token', 'abc', '-n', 'x', '-o', 'json'], { root: process.cwd() }), { token: 'abc', namespace: 'x' })
  })

  it('accepts camelCase keys too and keeps the last value of a scalar', () => {
    assert.deepEqual(clientFlagsFrom({ tlsServerName: 'x', 'disable-compression': true, token: ['a', 'b'] }), { tlsServerName: 'x', disableCompression: true, token: 'b' })
    assert.equal(camelCase('storage-driver-buffer-duration'), 'storageDriverBufferDuration')
  })

  it('keeps commas in --as-group and --as-user-extra values (StringArray, as kubectl)', () => {
    const flags = clientFlagsFrom({ 'as-group': ['a,b', 'c'], 'as-user-extra': ['scopes=x,y'] })
    assert.deepEqual(flags.asGroup, ['a,b', 'c'])
    assert.deepEqual(flags.asUserExtra, ['scopes=x,y'])
  })

  it('stays light: no import of oclif, the connection, kubeconfig, got or js-yaml', () => {
    const source = fs.readFileSync(path.resolve('src/core/client/flags.ts'), 'utf8')
    const imports = [...source.matchAll(/^import .* from '([^']+)'/gm)].map((m) => m[1])
    assert.deepEqual(imports.sort(), ['../options/catalogue/client.js', '../options/go-syntax.js', '../options/types.js', './errors.js'])
  })
})
