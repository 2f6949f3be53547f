/**
 * kubectl's words for a bad command line (pflag's and cobra's texts), and boolean flags that
 * take a value as pflag's do; the texts are kubectl 1.32's, as it prints them.
 */
import assert from 'node:assert/strict'
import { BooleanValueError, takeBooleanValues, usageErrorText, usageHint } from '../../src/cli/usage-errors.js'
import { suggestCommands, unknownCommandText } from '../../src/cli/command-suggestions.js'

const parseError = (message: string, extra: Record<string, unknown>) => Object.assign(new Error(`${message}\nSee more help with --help`), extra)

describe('cli: usage errors in kubectl style', () => {
  it('an unknown flag, long or short', () => {
    assert.equal(usageErrorText(parseError('Nonexistent flag: --bogus', { flags: ['--bogus'] }), 'health check'), 'unknown flag: --bogus')
    assert.equal(usageErrorText(parseError('Nonexistent flag: --secure-port=0', { flags: ['--secure-port=0'] }), 'flags validate'), 'unknown flag: --secure-port')
    assert.equal(usageErrorText(parseError('Nonexistent flag: -x', { flags: ['-x'] }), 'health check'), "unknown shorthand flag: 'x' in -x")
  })

  it('a missing value, a value not among the choices, exclusive flags', () => {
    assert.equal(usageErrorText(new Error('Flag --check expects a value'), 'health check'), 'flag needs an argument: --check')
    assert.equal(
      usageErrorText(new Error('Expected --endpoint=foo to be one of: livez, readyz, healthz\nSee more help with --help'), 'health check'),
      'invalid argument "foo" for "--endpoint" flag: must be one of livez, readyz, healthz',
    )
    assert.equal(
      usageErrorText(new Error('The following error occurred:\n  \u001b[2m--check=a cannot also be provided when using --exclude\u001b[22m\nSee more help with --help'), 'health check'),
      'if any flags in the group [check exclude] are set none of the others can be; [check exclude] were all set',
    )
  })

  it('leaves other errors alone', () => {
    assert.equal(usageErrorText(new Error('EEXIT: 1'), 'health check'), undefined)
    assert.equal(usageErrorText(new TypeError('x is undefined'), 'health check'), undefined)
  })

  it("hints as kubectl: See 'client <command> --help' for usage.", () => {
    assert.equal(usageHint('health check'), "See 'client health check --help' for usage.")
  })
})

describe('cli: boolean flags with a value', () => {
  const names = new Set(['insecure-skip-tls-verify', 'verbose'])

  it('takes --name=value out of the line, with strconv.ParseBool spellings; the last one wins', () => {
    assert.deepEqual(takeBooleanValues(['--insecure-skip-tls-verify=true', '--server', 's'], names), { argv: ['--server', 's'], values: { 'insecure-skip-tls-verify': true } })
    assert.deepEqual(takeBooleanValues(['--verbose=F'], names), { argv: [], values: { verbose: false } })
    assert.deepEqual(takeBooleanValues(['--verbose=1', '--verbose=false'], names), { argv: [], values: { verbose: false } })
    assert.deepEqual(takeBooleanValues(['--verbose', '--verbose=false'], names), { argv: [], values: { verbose: false } })
    assert.deepEqual(takeBooleanValues(['--verbose=false', '--verbose'], names), { argv: ['--verbose'], values: {} })
  })

  it('leaves other flags, bare booleans and everything after -- alone', () => {
    assert.deepEqual(takeBooleanValues(['--verbose', '--output=json', '--', '--verbose=true'], names), { argv: ['--verbose', '--output=json', '--', '--verbose=true'], values: {} })
  })

  it('refuses a value ParseBool refuses, with pflag and strconv words', () => {
    assert.throws(
      () => takeBooleanValues(['--insecure-skip-tls-verify=maybe'], names),
      (err: unknown) => err instanceof BooleanValueError && err.message === 'invalid argument "maybe" for "--insecure-skip-tls-verify" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    )
  })
})

describe('cli: a mistyped command', () => {
  const commands = ['flags validate', 'health check', 'health watch', 'patch', 'server start']

  it('suggests the commands within two edits, or that start with what was typed', () => {
    assert.deepEqual(suggestCommands('server strat', commands), ['server start'])
    assert.deepEqual(suggestCommands('helth check', commands), ['health check'])
    assert.deepEqual(suggestCommands('health', commands), ['health check', 'health watch'])
    assert.deepEqual(suggestCommands('bogus', commands), [])
  })

  it('compares a mistyped word with the names at its level and never suggests help (as cobra)', () => {
    const withHelp = [...commands, 'help']
    // cobra's `kubectl helth`: `Did you mean this? health`; its help command is never suggested.
    assert.deepEqual(suggestCommands('helth', withHelp), ['health'])
    assert.deepEqual(suggestCommands('hepl', withHelp), [])
    assert.deepEqual(suggestCommands('pach', withHelp), ['patch'])
  })

  it("words it as cobra does, with kubectl's hint", () => {
    assert.equal(unknownCommandText('server strat', commands), 'error: unknown command "server strat" for "client"\n\nDid you mean this?\n\tserver start\n\nSee \'client --help\' for usage.\n')
    assert.equal(unknownCommandText('bogus', commands), 'error: unknown command "bogus" for "client"\nSee \'client --help\' for usage.\n')
  })
})
