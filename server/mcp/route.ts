// POST /mcp: MCP's streamable HTTP transport, stateless. Each request is authenticated before it
// gets here, by the same middleware as /api and /trpc (a personal access token as Bearer, or a
// session), and gets its own MCP server whose tools call the procedures as that caller. No MCP
// session is kept: any server process of a shared store answers any request. GET (a stream of
// server-initiated messages) and DELETE (ending a session) have nothing to serve here.
import express, { Router, type Request, type Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Principal } from '../auth/principal';
import type { Services } from '../services-type';
import { logUnexpectedError } from '../error-log';
import { sendError } from '../../shared/errors';
import { callerFor } from './caller';
import { createMcpServer } from './server';

type CallerOf = (req: Request, res: Response) => { principal?: Principal; sourceAddress?: string };

export function createMcpRouter(services: Services, callerOf: CallerOf): Router {
  const router = Router();
  router.post('/', express.json({ limit: services.config.maxBodyBytes }), async (req, res) => {
    const server = createMcpServer(callerFor(services, callerOf(req, res)));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (error) {
      logUnexpectedError('mcp', error);
      if (!res.headersSent) sendError(res, { status: 500, code: 'internal_error', message: 'Internal server error' });
    }
  });
  router.all('/', (_req, res) => {
    res.setHeader('Allow', 'POST');
    sendError(res, { status: 405, code: 'validation_failed', message: 'MCP over HTTP is POST /mcp (stateless: no GET stream, no session to DELETE)' });
  });
  return router;
}
