// The one place where the tRPC context, error formatting and procedure kinds are made.
import { initTRPC } from '@trpc/server';
import { z } from 'zod';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Services } from './services-type';
import { apiCodeOf, asInvalidInput, issuesCarriedBy, publicMessage } from './errors';
import type { Principal } from './auth/principal';
import type { Context } from './context';
import { authorize, inputRecord, visibleEnvironments } from './auth/authorize';
import { ACCESS } from './auth/access';
import { auditChange } from './audit/change';

/** The caller of in-process calls (tests, tools) is the local admin unless a principal is given. */
export function createContext(services: Services, caller: { principal?: Principal; sourceAddress?: string } = { principal: { kind: 'local' } }): Context {
  const { principal, sourceAddress } = caller;
  return {
    ...services,
    response: { headers: {} },
    principal,
    sourceAddress,
    visibleEnvironments: (role) => (principal ? visibleEnvironments(principal, role) : []),
  };
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
          issues: issuesCarriedBy(error),
        },
      };
    },
  });

export const router = t.router;
// Every procedure: a value the database refuses as data answers 400, not 500 (see asInvalidInput).
// Not for the app's routers: a procedure on it checks no access (use `procedure`).
export const backstoppedProcedure = t.procedure.use(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const invalid = asInvalidInput(result.error);
    if (invalid) throw invalid;
  }
  return result;
});

/**
 * Every procedure of the app: the caller is checked against the access table (server/auth/access.ts)
 * before the input is parsed, and a change that succeeded is written to the audit log.
 */
export const procedure = backstoppedProcedure.use(async ({ ctx, path, type, getRawInput, next }) => {
  const input = inputRecord(await getRawInput());
  await authorize(ctx.store, ctx.principal, path, type, input);
  const audit = ACCESS[path]?.audit;
  if (type !== 'mutation' || audit === false) return next();
  const before = audit?.settings ? await audit.settings(ctx.store.db, input) : undefined;
  const result = await next();
  if (result.ok) await auditChange(ctx, { path, input, before, output: result.data, settings: audit?.settings });
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
