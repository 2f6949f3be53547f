/** internal.apiserver.k8s.io/v1alpha1 StorageVersions: their name rule and validation (../validation/apiserverinternal.ts). */
import { storageVersionName, validateStorageVersion, validateStorageVersionStatusUpdate, validateStorageVersionUpdate } from '../validation/apiserverinternal.js'
import type { KindTable } from './kind.js'

export const APISERVER_INTERNAL: KindTable = {
  'internal.apiserver.k8s.io/v1alpha1/storageversions': {
    validateName: storageVersionName,
    validate: validateStorageVersion,
    validateUpdate: validateStorageVersionUpdate,
    validateStatusUpdate: validateStorageVersionStatusUpdate,
  },
}
