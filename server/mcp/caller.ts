// The MCP tools call the app's own tRPC procedures, in process, as the caller of the MCP request:
// the access table (server/auth/access.ts) decides what each may read, exactly as for the API, and
// no domain logic exists twice.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { idSchema } from '../../shared/validation';
import { appRouter } from '../routers/root';
import type { Services } from '../services-type';
import { createContext } from '../trpc';
import type { Principal } from '../auth/principal';

export type Caller = ReturnType<typeof appRouter.createCaller>;

export function callerFor(services: Services, caller: { principal?: Principal; sourceAddress?: string }): Caller {
  return appRouter.createCaller(createContext(services, caller));
}

/** Registers one group of tools (or resources) against the caller. */
export type Registration = (server: McpServer, caller: Caller) => void;

/** Every tool reads; none changes anything here or in a user's database. */
export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export const environmentInput = idSchema.describe('The environment id (env_...), as list_environments gives it');
export const pageSizeInput = (max: number, fallback: number) =>
  z.number().int().min(1).max(max).optional().describe(`Entries per page, 1 to ${max} (default ${fallback})`);
