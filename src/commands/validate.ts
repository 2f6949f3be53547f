import { Command, Flags } from '@oclif/core'
import { directWriter } from '../core/util/direct-output.js'

export default class Validate extends Command {
  static override summary = 'Check manifests offline as the API server would on create: the same decoding, defaulting, validation and admission, with kubectl apply --dry-run=server messages.'
  static override description = `Each object of the input is created with dryRun=All through an in-process server over a temporary store (nothing is kept). Namespaces, CustomResourceDefinitions, admission policies with their bindings and parameters, service accounts and RBAC objects of the input (and of --crd and --policy) are created first, so that the other objects are checked against them: custom resources against their CRD's schema and x-kubernetes-validations rules, every object against the ValidatingAdmissionPolicies, pods against the Pod Security level of their namespace's labels (or --pod-security).

Output: one line per error or warning, FILE#DOCUMENT (from 1) and kubectl's text; -o json; -o sarif (SARIF 2.1.0, for code-scanning annotations). Exit status: 0 valid (warnings allowed unless --warnings-as-errors), 1 invalid, 2 usage error.`
  static override usage = ['validate -f FILE|DIR|- [-f ...] [-R] [-k DIR] [--crd FILE] [--policy FILE] [--pod-security LEVEL] [--emulated-version 1.N] [-o text|json|sarif]']
  static override examples = [
    '<%= config.bin %> validate -f manifests/',
    '<%= config.bin %> validate -k overlays/prod --pod-security restricted',
    '<%= config.bin %> validate -f deploy/ --crd crds/ --policy policies/ -o sarif > validate.sarif',
  ]
  static override flags = {
    filename: Flags.string({ char: 'f', description: 'A manifest file, a directory (its .yaml, .yml and .json files; with -R its subdirectories too) or - for standard input.', multiple: true }),
    recursive: Flags.boolean({ char: 'R', description: 'Process the directory used in -f, --filename recursively (and those of --crd and --policy).', default: false }),
    kustomize: Flags.string({ char: 'k', description: 'A kustomization directory (resources, namespace, namePrefix, nameSuffix, commonLabels, commonAnnotations, patches, images).' }),
    crd: Flags.string({ description: 'CustomResourceDefinitions to check custom resources against (files or directories), not otherwise part of the input.', multiple: true }),
    policy: Flags.string({ description: 'ValidatingAdmissionPolicies, bindings and parameters to check against (files or directories).', multiple: true }),
    namespace: Flags.string({ char: 'n', description: 'The namespace of namespaced objects that name none.', default: 'default' }),
    'pod-security': Flags.string({ description: 'The Pod Security level enforced (and warned) in namespaces without pod-security labels.', options: ['privileged', 'baseline', 'restricted'] }),
    'emulated-version': Flags.string({ description: 'Check as a server of this version (1.N) would: its kinds and fields.' }),
    output: Flags.string({ char: 'o', description: 'Output format.', options: ['text', 'json', 'sarif'], default: 'text' }),
    'warnings-as-errors': Flags.boolean({ description: 'Exit 1 on warnings too.', default: false }),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(Validate)
    const { ValidateUsageError, readStdinOnce, runValidate } = await import('../server/offline/run-validate.js')
    const err = directWriter(2)
    try {
      process.exitCode = await runValidate(
        {
          filename: flags.filename ?? [],
          recursive: flags.recursive,
          ...(flags.kustomize !== undefined ? { kustomize: flags.kustomize } : {}),
          crd: flags.crd ?? [],
          policy: flags.policy ?? [],
          namespace: flags.namespace,
          ...(flags['pod-security'] ? { podSecurity: flags['pod-security'] as 'restricted' } : {}),
          ...(flags['emulated-version'] ? { emulatedVersion: flags['emulated-version'] } : {}),
          output: flags.output as 'text' | 'json' | 'sarif',
          warningsAsErrors: flags['warnings-as-errors'],
        },
        { cwd: process.cwd(), readStdin: readStdinOnce(), out: directWriter(1), err, tool: { name: this.config.bin, version: this.config.version } },
      )
    } catch (e) {
      if (!(e instanceof ValidateUsageError)) throw e
      err(`error: ${e.message}\n`)
      process.exitCode = 2
    }
  }
}
