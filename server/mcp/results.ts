// What a tool answers. Everything that comes from a user's database (query texts, schema, table
// and index names) travels here as data: in structuredContent, and as the same JSON in one text
// block for clients that read only text. Tool names, titles and descriptions are fixed text of
// ours, so nothing read from a database can pose as an instruction to the assistant.
import { TRPCError } from '@trpc/server';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorBody } from '../../shared/errors';
import { logUnexpectedError } from '../error-log';
import { apiCodeOf, issuesCarriedBy, publicMessage } from '../errors';

export function structured(data: Record<string, unknown>): CallToolResult {
  return { structuredContent: data, content: [{ type: 'text', text: JSON.stringify(data) }] };
}

/** A refusal or failure in the API's one error shape ({ error: { code, message, issues? } }), never a stack trace. */
export function toolError(tool: string, error: unknown): CallToolResult {
  let body;
  if (error instanceof TRPCError && error.code !== 'INTERNAL_SERVER_ERROR') {
    body = errorBody(apiCodeOf(error), publicMessage(error), issuesCarriedBy(error));
  } else {
    logUnexpectedError(`mcp ${tool}`, error);
    body = errorBody('internal_error', 'Internal server error');
  }
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/** Runs a tool's body: its answer as structured data, or its error as a tool error the assistant can read. */
export async function answer(tool: string, run: () => Promise<Record<string, unknown>>): Promise<CallToolResult> {
  try {
    return structured(await run());
  } catch (error) {
    return toolError(tool, error);
  }
}
