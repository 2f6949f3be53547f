/** Options specific to the `patch` client operation (spec 4.3). `-h, --help` is the framework's. */
import { PATCH_DRY_RUN_MODES, PATCH_TYPES } from '../enums.js'
import type { OptionSpec } from '../types.js'

export const PATCH_OPTIONS: readonly OptionSpec[] = [
  {
    name: 'allow-missing-template-keys',
    type: 'bool',
    default: 'true',
    help: 'If true, ignore errors in templates when a field or map key is missing (go-template and jsonpath output formats only).',
    section: 'patch',
  },
  {
    name: 'dry-run',
    type: 'string',
    default: 'none',
    help: 'Must be none, server or client (a bare --dry-run means unchanged): client prints the object that would be sent without sending it, server submits the request without persisting the resource.',
    section: 'patch',
    constraints: { oneOf: PATCH_DRY_RUN_MODES },
    valueName: 'string[="unchanged"]',
  },
  {
    name: 'field-manager',
    type: 'string',
    default: 'client-patch',
    help: 'Name of the manager used to track field ownership.',
    section: 'patch',
  },
  {
    name: 'filename',
    short: 'f',
    type: 'strings',
    help: 'File, directory or URL identifying the resource to update.',
    section: 'patch',
    repeatable: true,
  },
  {
    name: 'kustomize',
    short: 'k',
    type: 'string',
    help: 'Process the customization directory; cannot be combined with -f or -R.',
    section: 'patch',
  },
  {
    name: 'local',
    type: 'bool',
    help: 'If true, patch operates on the content of the file, not the server-side resource.',
    section: 'patch',
  },
  {
    name: 'output',
    short: 'o',
    type: 'string',
    help: 'Output format: one of json, yaml, kyaml, name, go-template, go-template-file, template, templatefile, jsonpath, jsonpath-as-json, jsonpath-file.',
    section: 'patch',
  },
  {
    name: 'patch',
    short: 'p',
    type: 'string',
    help: 'The patch to apply to the resource, as JSON or YAML.',
    section: 'patch',
  },
  {
    name: 'patch-file',
    type: 'string',
    help: 'File containing the patch to apply to the resource.',
    section: 'patch',
  },
  {
    name: 'recursive',
    short: 'R',
    type: 'bool',
    help: 'Process the directory used in -f recursively.',
    section: 'patch',
  },
  {
    name: 'show-managed-fields',
    type: 'bool',
    help: 'If true, keep the managed fields when printing objects in JSON or YAML format.',
    section: 'patch',
  },
  {
    name: 'subresource',
    type: 'string',
    help: 'If specified, patch operates on this subresource of the requested object (for example scale).',
    section: 'patch',
  },
  {
    name: 'template',
    type: 'string',
    help: 'Template string or path to a template file for the go-template and go-template-file output formats (Go template format).',
    section: 'patch',
  },
  {
    name: 'type',
    type: 'string',
    default: 'strategic',
    help: 'Type of patch being provided: json, merge or strategic.',
    section: 'patch',
    constraints: { oneOf: PATCH_TYPES },
  },
]
