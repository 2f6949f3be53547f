/** storagemigration.k8s.io/v1beta1 StorageVersionMigrations: validation (../validation/storagemigration.ts). */
import { validateStorageVersionMigration, validateStorageVersionMigrationStatusUpdate, validateStorageVersionMigrationUpdate } from '../validation/storagemigration.js'
import type { KindTable } from './kind.js'

export const STORAGE_MIGRATION: KindTable = {
  'storagemigration.k8s.io/v1beta1/storageversionmigrations': {
    validate: validateStorageVersionMigration,
    validateUpdate: validateStorageVersionMigrationUpdate,
    validateStatusUpdate: validateStorageVersionMigrationStatusUpdate,
  },
}
