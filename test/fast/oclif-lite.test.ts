/**
 * The fast entries' flag parser (src/fast/oclif-lite.ts) against oclif's own parser, on
 * the real flag definitions of `flags validate` and `health check`: for every command line it
 * either hands over to oclif or gives oclif's result, flags and arguments alike.
 */
import assert from 'node:assert/strict'
import { Parser } from '@oclif/core'
import FlagsValidate from '../../src/commands/flags/validate.js'
import HealthCheck from '../../src/commands/health/check.js'
import { Command as LiteCommand, HandToOclif, LiteExit, runCommand, type LiteFlag } from '../../src/fast/oclif-lite.js'

type Flags = Record<string, LiteFlag>

/** The lite parser's answer: the parse result, or 'oclif' when it hands over. */
async function lite(flags: Flags, strict: boolean, argv: string[]): Promise<{ flags: Record<string, unknown>; args: string[] } | 'oclif'> {
  class Probe extends LiteCommand {
    static override flags = flags
    static override strict = strict
    async run(): Promise<void> {}
  }
  try {
    const out = await new Probe(argv, { bin: 'client', version: '0.0.0' }).parse()
    return { flags: out.flags, args: out.raw.flatMap((t) => (t.type === 'arg' ? [t.input] : [])) }
  } catch (err) {
    if (err instanceof HandToOclif) return 'oclif'
    throw err
  }
}

/** oclif's answer, or its error message. */
async function oclif(flags: Flags, strict: boolean, argv: string[]): Promise<{ flags: Record<string, unknown>; args: string[] } | { error: string }> {
  try {
    const out = await Parser.parse(argv, { flags: flags as never, strict, context: {} as never })
    return { flags: out.flags, args: out.raw.flatMap((t) => (t.type === 'arg' ? [t.input] : [])) }
  } catch (err) {
    return { error: (err as Error).message }
  }
}

// [command, its flags, strict, the plain forms (parsed here), the others (handed over)]
const commands: Array<[string, Flags, boolean, string[][], string[][]]> = [
  [
    'flags validate',
    FlagsValidate.flags as unknown as Flags,
    false,
    [
      [],
      ['--', '--secure-port=6443'],
      ['-o', 'json', '--', '--secure-port=6443', '--authorization-mode=Node,RBAC'],
      ['-ojson', '--strict', '--target', 'reference', '--', '--etcd-servers=http://x'],
      ['-o=json', '--profile=cis'],
      ['--file', 'line.txt'],
      ['--file=-'],
      ['--manifest', 'pod.yaml', '--output=text'],
      ['--', '--', '--secure-port=1'],
      ['positional', '--', '--x'],
    ],
    [
      ['--secure-port=0'],
      ['--file', 'a', '--manifest', 'b'],
      ['-o', 'xml'],
      ['-o'],
      ['--file', '--strict'],
      ['--strict', '--strict'],
      ['-o', 'json', '-o', 'text'],
      ['--no-strict'],
      ['-x'],
      ['-5'],
    ],
  ],
  [
    'health check',
    HealthCheck.flags as unknown as Flags,
    true,
    [
      [],
      ['--server', 'https://127.0.0.1:6443', '--insecure-skip-tls-verify'],
      ['--endpoint', 'livez', '--verbose', '--exclude', 'etcd', '--exclude=ping', '-o', 'json'],
      ['--check', 'store', '--wait', '--timeout', '30s', '--interval=1s'],
      ['--kubeconfig', 'k', '--context', 'c', '-n', 'ns', '--token', 't', '--request-timeout', '5s'],
      ['-s', 'https://h:1'],
    ],
    [
      ['--exclude', 'a', 'b'],
      ['--check', 'a', '--exclude', 'b'],
      ['--endpoint', 'nope'],
      ['extra'],
      ['--bogus'],
      ['--server'],
      ['--wait=true'],
    ],
  ],
]

describe('fast: the fast entries parse as oclif does, or hand over', () => {
  for (const [name, flags, strict, plain, others] of commands) {
    it(`${name}: the plain forms give oclif's flags and arguments`, async () => {
      for (const argv of plain) {
        const ours = await lite(flags, strict, argv)
        assert.notEqual(ours, 'oclif', `${JSON.stringify(argv)} was handed over`)
        assert.deepEqual(ours, await oclif(flags, strict, argv), JSON.stringify(argv))
      }
    })

    it(`${name}: the other forms, and every line oclif refuses, are handed over`, async () => {
      for (const argv of others) assert.equal(await lite(flags, strict, argv), 'oclif', JSON.stringify(argv))
      for (const argv of [...plain, ...others]) {
        if ('error' in (await oclif(flags, strict, argv))) assert.equal(await lite(flags, strict, argv), 'oclif', JSON.stringify(argv))
      }
    })
  }

  it('runCommand: exit status, hand-over with the whole command line, and errors thrown', async () => {
    class Exits extends LiteCommand {
      static override flags = {}
      async run(): Promise<void> {
        await this.parse()
        this.exit(4)
      }
    }
    const context = { bin: 'client', version: '0.0.0', root: '.' }
    const before = process.exitCode
    try {
      assert.equal(await runCommand(Exits, 'x:y', [], context), 'done')
      assert.equal(process.exitCode, 4)
    } finally {
      process.exitCode = before
    }
    assert.deepEqual(await runCommand(Exits, 'x:y', ['--nope', 'a'], context), { fallback: ['x', 'y', '--nope', 'a'] })
    class Throws extends LiteCommand {
      async run(): Promise<void> {
        throw new Error('boom')
      }
    }
    await assert.rejects(runCommand(Throws, 'x', [], context), /boom/)
    assert.ok(new LiteExit(3).message.includes('3'))
  })
})
