// list_environments: the environments the caller may see, a page at a time.
import { z } from 'zod';
import { environmentSummary } from '../../../shared/environments';
import { READ_ONLY, type Registration } from '../caller';
import { cursorInput, offsetOf, pageFields, pageOf } from '../paging';
import { answer } from '../results';

const PAGE = 50;

export const environmentTools: Registration = (server, caller) => {
  server.registerTool(
    'list_environments',
    {
      title: 'List environments',
      description: `The environments you may see (an environment groups an application's production databases and CI repositories), ${PAGE} per page. Their ids are what the other tools take as \`environment\`.`,
      inputSchema: { cursor: cursorInput },
      outputSchema: { environments: z.array(environmentSummary), ...pageFields },
      annotations: READ_ONLY,
    },
    ({ cursor }) =>
      answer('list_environments', async () => {
        const page = pageOf(await caller.env.list(), offsetOf(cursor), PAGE);
        return { environments: page.items, total: page.total, nextCursor: page.nextCursor };
      }),
  );
};
