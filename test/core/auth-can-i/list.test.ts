/**
 * `--list`'s table as kubectl's printStatus makes it: rules broken down and merged per group,
 * resource and name (new verbs appended), sorted by the Go string of the rule (its verbs
 * first), in kubectl's tab writer's columns, `[]` for an empty list.
 */
import assert from 'node:assert/strict'
import { printRules } from '../../../src/core/auth-can-i/list.js'

describe('auth can-i --list table', () => {
  const rules = {
    resourceRules: [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: [] },
      { verbs: ['list', 'watch'], apiGroups: [''], resources: ['pods'], resourceNames: [] },
      { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments/scale'], resourceNames: ['web'] },
    ],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
    incomplete: false,
    errors: [],
  }

  it('merges, sorts by the Go string of the rule and prints in columns', () => {
    assert.equal(
      printRules(rules, false),
      [
        'Resources                Non-Resource URLs   Resource Names   Verbs',
        'pods                     []                  []               [get list watch]',
        '                         [/healthz]          []               [get]',
        'deployments.apps/scale   []                  [web]            [get]',
        '',
      ].join('\n'),
    )
  })

  it('--no-headers leaves the header line out', () => {
    assert.ok(!printRules(rules, true).includes('Resources'))
  })
})
