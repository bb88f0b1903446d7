// `querytrail mcp`: MCP over stdio for an assistant on this machine. A thin bridge: every tool
// call and resource read is forwarded to the server's POST /mcp with the caller's token, so the
// tools exist once, on the server, and answer with what that token may see. Nothing but MCP
// messages goes to stdout (it is the protocol's channel); what goes wrong is said on stderr.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Io } from './ci-types';

export const MCP_USAGE = `Usage: querytrail mcp

Speaks the Model Context Protocol on stdin/stdout for an AI assistant (an editor's MCP client
starts it), answering from a querytrail server with what your token may read.

  QUERYTRAIL_URL     the querytrail server (default http://localhost:3000)
  QUERYTRAIL_TOKEN   a personal access token (a read-scoped one is enough); not needed for a
                     single-user server on this machine

Exit codes: 0 when the assistant closes the connection, 1 when the server cannot be reached or
refuses the token, 2 usage error.`;

const DEFAULT_URL = 'http://localhost:3000';
const TOOL_TIMEOUT_MS = 10 * 60_000;

/** The server's /mcp endpoint from QUERYTRAIL_URL; undefined when it is not an http(s) URL. */
export function mcpEndpoint(env: NodeJS.ProcessEnv): URL | undefined {
  const base = env.QUERYTRAIL_URL?.trim() || DEFAULT_URL;
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return new URL(`${url.pathname.replace(/\/+$/, '')}/mcp`, url);
}

export async function mcp(args: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.err(MCP_USAGE);
    return 0;
  }
  if (args.length) {
    io.err(`querytrail mcp: takes no arguments (QUERYTRAIL_URL and QUERYTRAIL_TOKEN configure it)\n\n${MCP_USAGE}`);
    return 2;
  }
  const endpoint = mcpEndpoint(env);
  if (!endpoint) {
    io.err(`querytrail mcp: QUERYTRAIL_URL must be an http(s) URL such as ${DEFAULT_URL}`);
    return 2;
  }
  const token = env.QUERYTRAIL_TOKEN?.trim();
  const client = new Client({ name: 'querytrail-mcp-bridge', version: '1' });
  const remote = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} } });
  try {
    await client.connect(remote);
  } catch (error) {
    // the message names the endpoint and the HTTP answer, never the token
    io.err(`querytrail mcp: ${endpoint.href} refused or could not be reached: ${(error as Error).message}`);
    return 1;
  }

  const server = new Server(client.getServerVersion() ?? { name: 'querytrail', version: '0' }, {
    capabilities: { tools: {}, resources: {} },
    instructions: client.getInstructions(),
  });
  server.setRequestHandler(ListToolsRequestSchema, (request) => client.listTools(request.params));
  // planning in a cold shadow (explain_query) can outlast the SDK's default of a minute
  server.setRequestHandler(CallToolRequestSchema, (request) => client.callTool(request.params, undefined, { timeout: TOOL_TIMEOUT_MS }));
  server.setRequestHandler(ListResourcesRequestSchema, (request) => client.listResources(request.params));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, (request) => client.listResourceTemplates(request.params));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => client.readResource(request.params));

  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await server.connect(new StdioServerTransport());
  await closed;
  await client.close().catch(() => undefined);
  return 0;
}
