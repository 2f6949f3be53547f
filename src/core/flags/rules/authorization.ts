/** Authorization options (spec section 5; the reference's authorization checks). */
import { AUTHORIZATION_MODES } from '../../options/enums.js'
import type { Rule } from '../rule.js'

const WEBHOOK_OPTIONS = [
  'authorization-webhook-config-file',
  'authorization-webhook-version',
  'authorization-webhook-cache-authorized-ttl',
  'authorization-webhook-cache-unauthorized-ttl',
]

export const authorizationRules: Rule[] = [
  {
    id: 'AUTHZ-2',
    phase: 'validate',
    check(ctx, report) {
      if (!ctx.has('authorization-config')) return
      if (ctx.has('authorization-mode') || WEBHOOK_OPTIONS.some((name) => ctx.has(name))) {
        report.error('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined', {
          option: '--authorization-config',
          remedy: 'configure the authorizer chain in the --authorization-config file only',
        })
      }
    },
  },
  {
    id: 'AUTHZ-5',
    phase: 'validate',
    check(ctx, report) {
      if (ctx.has('authorization-config')) return
      const modes = ctx.list('authorization-mode')
      const option = '--authorization-mode'
      for (const mode of modes) {
        if (!(AUTHORIZATION_MODES as readonly string[]).includes(mode)) {
          const near = AUTHORIZATION_MODES.find((m) => m.toLowerCase() === mode.toLowerCase())
          report.error(`authorization-mode ${JSON.stringify(mode)} is not a valid mode`, {
            option,
            value: mode,
            remedy: near ? `did you mean ${near}? (modes are case-sensitive)` : `one of ${AUTHORIZATION_MODES.join(', ')}`,
          })
        }
      }
      if (modes.includes('ABAC') && !ctx.text('authorization-policy-file')) {
        report.error("authorization-mode ABAC's authorization policy file not passed", { option, remedy: 'give --authorization-policy-file' })
      }
      if (modes.includes('Webhook') && !ctx.text('authorization-webhook-config-file')) {
        report.error("authorization-mode Webhook's authorization config file not passed", { option, remedy: 'give --authorization-webhook-config-file' })
      }
      if (ctx.text('authorization-policy-file') && !modes.includes('ABAC')) {
        report.error('cannot specify --authorization-policy-file without mode ABAC', { option: '--authorization-policy-file', remedy: 'add ABAC to --authorization-mode or drop the policy file' })
      }
      if (ctx.text('authorization-webhook-config-file') && !modes.includes('Webhook')) {
        report.error('cannot specify --authorization-webhook-config-file without mode Webhook', {
          option: '--authorization-webhook-config-file',
          remedy: 'add Webhook to --authorization-mode or drop the webhook config file',
        })
      }
      if (new Set(modes).size !== modes.length) {
        report.error(`authorization-mode [${modes.map((m) => JSON.stringify(m)).join(' ')}] has mode specified more than once`, {
          option,
          value: modes.join(','),
          remedy: 'name each mode once',
        })
      }
    },
  },
]

/**
 * What the reference settles while completing options (P4): AlwaysAllow is its default mode and
 * turns anonymous access off. This server's default is Node,RBAC, so only an explicit
 * AlwaysAllow (or the reference's default, for `--target reference`) is reported.
 */
export const authorizationDefaultRules: Rule[] = [
  {
    id: 'AUTHZ-DEFAULT',
    phase: 'complete',
    check(ctx, report) {
      if (ctx.has('authorization-config')) return
      const modes = ctx.list('authorization-mode')
      const alwaysAllow = modes.includes('AlwaysAllow') || (modes.length === 0 && ctx.forReference)
      if (!alwaysAllow) return
      if (ctx.value<boolean>('anonymous-auth') !== false) {
        report.warning(ANONYMOUS_RESET, { option: '--anonymous-auth' })
      }
      if (ctx.forReference) return
      const bind = ctx.text('bind-address') ?? '0.0.0.0'
      const everywhere = bind === '' || bind === '0.0.0.0' || bind === '::'
      const say = everywhere ? report.warning : report.notice
      say(`every authenticated request is authorized (AlwaysAllow)${everywhere ? ', on all interfaces' : ''}: anyone with a credential the server accepts can read and change everything`, {
        option: '--authorization-mode',
        remedy: 'leave --authorization-mode out for the default Node,RBAC with the default roles',
      })
    },
  },
]

/** The reference's start-up warning when AlwaysAllow meets anonymous access (the server says it too). */
export const ANONYMOUS_RESET = 'AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer'
