// Production snapshots on the wire: the schema and statistics a CI run's verdict is planned against.
import { z } from 'zod';
import { isoDate } from './dates';

export const snapshotRefreshSchema = z.object({
  environmentId: z.string(),
  refreshing: z.literal(true).meta({ description: 'A new read of production has started; CI runs arriving now wait for it' }),
  current: z
    .object({ id: z.string(), readAt: isoDate })
    .nullable()
    .meta({ description: 'The snapshot used until the new one is read (null when none was read yet)' }),
});
export type SnapshotRefresh = z.infer<typeof snapshotRefreshSchema>;
