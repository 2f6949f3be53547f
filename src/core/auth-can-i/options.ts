/**
 * The command lines of `auth can-i` and `auth who-can`, parsed with pflag's rules (the shared
 * parser) and checked in the order and with the messages of kubectl's `auth can-i`
 * (Complete, then Validate) and kubectl-who-can's.
 */
import { OptionIndex, parseCommandLine } from '../flags/command-line.js'
import { CLIENT_OPTIONS } from '../options/catalogue/client.js'
import type { OptionSpec } from '../options/types.js'

/** A usage problem: `error: <message>`, exit 1 (cmdutil.CheckErr). */
export class UsageError extends Error {}

const client = (name: string) => CLIENT_OPTIONS.filter((o) => o.name === name)

/** The options both commands share: where the policy comes from, and where. */
const COMMON: readonly OptionSpec[] = [
  ...client('namespace'),
  {
    name: 'rbac-from',
    type: 'strings',
    help: 'Files or directories (read recursively; YAML, multi-document, or JSON, Lists too) holding Roles, ClusterRoles, RoleBindings and ClusterRoleBindings; repeatable. Other kinds are skipped.',
    section: 'client',
    repeatable: true,
    productOnly: true,
  },
  {
    name: 'default-policy',
    type: 'bool',
    default: 'true',
    help: "Also load the server's default roles and bindings (its bootstrap policy), as a new cluster has them.",
    section: 'client',
    productOnly: true,
  },
  { name: 'all-namespaces', short: 'A', type: 'bool', help: 'If true, check the specified action in all namespaces.', section: 'client' },
  { name: 'subresource', type: 'string', help: 'SubResource such as pod/log or deployment/scale', section: 'client' },
]

export const CAN_I_OPTIONS: readonly OptionSpec[] = [
  ...client('as'),
  ...client('as-group'),
  ...COMMON,
  { name: 'quiet', short: 'q', type: 'bool', help: 'If true, suppress output and just return the exit code.', section: 'client' },
  { name: 'list', type: 'bool', help: 'If true, prints all allowed actions.', section: 'client' },
  { name: 'no-headers', type: 'bool', help: 'If true, prints allowed actions without headers', section: 'client' },
  {
    name: 'explain',
    type: 'bool',
    help: 'Also print the reason of the answer, as the server gives it in a SubjectAccessReview (`RBAC: allowed by ClusterRoleBinding ...`); kubectl has no such flag.',
    section: 'client',
    productOnly: true,
  },
]

export const WHO_CAN_OPTIONS: readonly OptionSpec[] = COMMON

/** What both commands read from their command line. */
export interface AuthCommandOptions {
  args: string[]
  rbacFrom: string[]
  defaultPolicy: boolean
  as: string | undefined
  asGroups: string[]
  /** `-n` when given. */
  namespace: string | undefined
  allNamespaces: boolean
  subresource: string
  quiet: boolean
  list: boolean
  noHeaders: boolean
  explain: boolean
}

export type ParseOutcome = { kind: 'help' } | { kind: 'options'; options: AuthCommandOptions }

const indexes = new Map<readonly OptionSpec[], OptionIndex>()

/** Parses `argv`; pflag's errors are UsageErrors with `hint` the `See '... --help'` line. */
export function parseAuthCommandLine(argv: readonly string[], specs: readonly OptionSpec[], command: string): ParseOutcome {
  let index = indexes.get(specs)
  if (!index) indexes.set(specs, (index = new OptionIndex(specs)))
  const parsed = parseCommandLine(argv, index, command)
  const first = parsed.findings.find((f) => f.severity === 'error' && f.rule !== 'ARGS')
  if (first) throw new UsageError(`${first.message}\nSee '${command} --help' for usage.`)
  if (parsed.asksForHelp) return { kind: 'help' }
  const value = (name: string) => parsed.options.get(name)?.value
  const bool = (name: string, fallback = false) => {
    const v = value(name)
    return typeof v === 'boolean' ? v : fallback
  }
  const strings = (name: string) => {
    const v = value(name)
    return Array.isArray(v) ? (v as string[]) : []
  }
  const str = (name: string) => {
    const v = value(name)
    return typeof v === 'string' ? v : undefined
  }
  return {
    kind: 'options',
    options: {
      args: parsed.positional,
      rbacFrom: strings('rbac-from'),
      defaultPolicy: bool('default-policy', true),
      as: str('as'),
      asGroups: strings('as-group'),
      namespace: str('namespace'),
      allNamespaces: bool('all-namespaces'),
      subresource: str('subresource') ?? '',
      quiet: bool('quiet'),
      list: bool('list'),
      noHeaders: bool('no-headers'),
      explain: bool('explain'),
    },
  }
}
