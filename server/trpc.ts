// The one place where the tRPC context, error formatting and procedure kinds are made.
import { initTRPC } from '@trpc/server';
import { z } from 'zod';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Store } from './db/store';
import type { Secrets } from './secrets';
import type { Config } from './config';
import type { RunningQueue } from './queue/index';
import { apiCodeOf, asInvalidInput, issuesOf, publicMessage } from './errors';

export interface Services {
  store: Store;
  secrets: Secrets;
  config: Config;
  /** The durable job queue shared by every server process on the store (server/queue/). */
  queue: RunningQueue;
}

/** What a procedure may say about its HTTP response beyond its body (REST status, headers). */
export interface ResponseHints {
  status?: number;
  headers: Record<string, string>;
}

export interface Context extends Services {
  response: ResponseHints;
}

export function createContext(services: Services): Context {
  return { ...services, response: { headers: {} } };
}

const t = initTRPC
  .context<Context>()
  .meta<OpenApiMeta<{ successStatus?: number }>>()
  .create({
    errorFormatter({ shape, error }) {
      return {
        ...shape,
        message: publicMessage(error),
        data: {
          code: shape.data.code,
          httpStatus: shape.data.httpStatus,
          path: shape.data.path,
          // stack traces never leave the server
          apiCode: apiCodeOf(error),
          issues: issuesOf(error),
        },
      };
    },
  });

export const router = t.router;
// Every procedure: a value the database refuses as data answers 400, not 500 (see asInvalidInput).
export const publicProcedure = t.procedure.use(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const invalid = asInvalidInput(result.error);
    if (invalid) throw invalid;
  }
  return result;
});
export const createCallerFactory = t.createCallerFactory;

/**
 * A list procedure's output: an array of `entry`. tRPC checks an output with parseAsync, which
 * passes over zod's compiled checker for objects; a page of hundreds of rows would then cost more
 * to check than to read from the store. No output schema has an asynchronous refinement, so the
 * synchronous parse checks exactly the same, by the compiled path.
 */
export function listOutput<T extends z.ZodType>(entry: T) {
  const schema = z.array(entry);
  schema.parseAsync = async (data, params) => schema.parse(data, params);
  return schema;
}
