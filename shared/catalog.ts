// Wire shapes of an environment's catalog as the API answers it: an entry of the list, with its
// production figures and the latest analysis' cost, and one query read whole, with its call sites.
// The entry's own fields come first; the rest are extra fields a client may ignore.
import { z } from 'zod';
import { callSiteSchema } from './call-sites';
import { catalogEntryFigures } from './ci';
import { catalogEntry, catalogQuery } from './environments';

export const catalogListEntry = catalogEntry.extend(catalogEntryFigures).extend({
  cost: z.number().nullable().meta({ description: 'Estimated production cost from the latest analysis (null before one)' }),
  recommendationCount: z.number().int().nullable().meta({ description: 'Indexes the latest analysis recommends for this query' }),
});
export type CatalogListEntry = z.infer<typeof catalogListEntry>;

export const catalogDetail = catalogQuery.extend(catalogEntryFigures).extend({
  callSites: z
    .array(callSiteSchema)
    .meta({ description: "Where the query comes from in the application, read from its comments' tags (sqlcommenter, marginalia); latest first" }),
});
export type CatalogDetail = z.infer<typeof catalogDetail>;
