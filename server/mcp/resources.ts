// Resources: an environment (querytrail://environments/{id}) and a catalog entry
// (querytrail://environments/{id}/queries/{hash}), each read as JSON through the same procedures
// as the tools. Only environments are listed, a bounded number of them: a catalog may hold
// thousands of entries, which search_queries pages through.
import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { TRPCError } from '@trpc/server';
import { logUnexpectedError } from '../error-log';
import { apiCodeOf, publicMessage } from '../errors';
import type { Registration } from './caller';

/** Environments listed as resources; list_environments pages through all of them. */
const LISTED_ENVIRONMENTS = 100;

const json = (uri: URL, data: unknown): ReadResourceResult => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(data) }] });

/** A template variable as one value (the SDK gives an array for an exploded variable). */
const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) ?? '';

/** A refusal as an MCP error in the API's words (not_found for an environment the caller may not see); never internals. */
async function read(what: string, run: () => Promise<ReadResourceResult>): Promise<ReadResourceResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof TRPCError && error.code !== 'INTERNAL_SERVER_ERROR') {
      throw new McpError(error.code === 'NOT_FOUND' ? ErrorCode.InvalidParams : ErrorCode.InvalidRequest, `${apiCodeOf(error)}: ${publicMessage(error)}`);
    }
    logUnexpectedError(`mcp resource ${what}`, error);
    throw new McpError(ErrorCode.InternalError, 'Internal server error');
  }
}

export const catalogResources: Registration = (server, caller) => {
  server.registerResource(
    'environment',
    new ResourceTemplate('querytrail://environments/{id}', {
      list: async () => ({
        resources: (await caller.env.list()).slice(0, LISTED_ENVIRONMENTS).map((env) => ({
          uri: `querytrail://environments/${env.id}`,
          name: env.id,
          title: env.name,
          mimeType: 'application/json',
        })),
      }),
    }),
    { title: 'Environment', description: 'An environment with its connections (passwords masked) and linked repositories', mimeType: 'application/json' },
    (uri, { id }) => read('environment', async () => json(uri, await caller.env.get({ id: one(id) }))),
  );

  server.registerResource(
    'catalog-query',
    new ResourceTemplate('querytrail://environments/{id}/queries/{hash}', { list: undefined }),
    {
      title: 'Catalog query',
      description: "One catalog entry by its fingerprint: the query's text, production figures and call sites",
      mimeType: 'application/json',
    },
    (uri, { id, hash }) => read('catalog-query', async () => json(uri, await caller.queries.get({ id: one(id), hash: one(hash) }))),
  );
};
