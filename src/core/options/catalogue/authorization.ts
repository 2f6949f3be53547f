/** Server options: authorization (spec 5, the authorization table). */
import { AUTHORIZATION_MODES, WEBHOOK_VERSIONS } from '../enums.js'
import type { OptionSpec } from '../types.js'

export const AUTHORIZATION_OPTIONS: readonly OptionSpec[] = [
  {
    name: 'authorization-mode',
    type: 'strings',
    help: 'Ordered list of authorization plug-ins from AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC, Node (default: Node,RBAC with the default roles; the reference defaults to AlwaysAllow).',
    section: 'authorization',
    constraints: { oneOf: AUTHORIZATION_MODES },
    repeatable: true,
  },
  {
    name: 'authorization-config',
    type: 'string',
    help: 'File with the authorizer chain configuration; needs the structured-authorization feature gate; exclusive with --authorization-mode and the --authorization-webhook-* options.',
    section: 'authorization',
  },
  {
    name: 'authorization-policy-file',
    type: 'string',
    help: 'File with the authorization policy in JSON-lines format, used with --authorization-mode=ABAC.',
    section: 'authorization',
  },
  {
    name: 'authorization-webhook-config-file',
    type: 'string',
    help: 'File with the webhook configuration in client-configuration format, used with --authorization-mode=Webhook.',
    section: 'authorization',
  },
  {
    name: 'authorization-webhook-cache-authorized-ttl',
    type: 'duration',
    default: '5m0s',
    help: 'Duration to cache allow responses from the authorization webhook.',
    section: 'authorization',
  },
  {
    name: 'authorization-webhook-cache-unauthorized-ttl',
    type: 'duration',
    default: '30s',
    help: 'Duration to cache deny responses from the authorization webhook.',
    section: 'authorization',
  },
  {
    name: 'authorization-webhook-version',
    type: 'string',
    default: 'v1beta1',
    help: 'API version of the subject access review object sent to and expected from the webhook (v1 or v1beta1).',
    section: 'authorization',
    constraints: { oneOf: WEBHOOK_VERSIONS },
  },
]
