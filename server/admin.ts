// `npm run admin -- grant|revoke <email>` and `npm run admin -- list`: instance roles set on the
// server's own machine, for when no admin can sign in yet (or any more). It opens the store the
// server uses, from the same environment (DATABASE_URL, else PGlite in DATA_DIR), and records each
// change in the audit log as the CLI's. PGlite's folder is held by a running server, so there the
// server must be stopped first; with DATABASE_URL it may keep running, and the change applies to
// its sessions at once (roles are read on every request).
import { hostname, userInfo } from 'node:os';
import { readConfig } from './config';
import { openStore, type Store } from './db/store';
import { FolderLockedError } from './db/folder-lock';
import { listUsers, setUserRole, countAdmins } from './domain/people';
import { recordAudit } from './audit/record';
import { auditSettings } from './audit/settings';
import { emailSchema } from '../shared/auth';

const USAGE = `Usage: npm run admin -- <command>
  grant <email>    make the person an admin (created if they never signed in)
  revoke <email>   make the person a member
  list             every person and their role
The store is the server's: DATABASE_URL, else PGlite in DATA_DIR (default .data).`;

/** Who ran it, for the audit log: the account on this machine, never a secret. */
function cliActor() {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry (some containers): the host still says where
  }
  return { kind: 'cli' as const, name: `admin CLI (${user}@${hostname()})` };
}

async function openServerStore(): Promise<Store> {
  const config = readConfig();
  try {
    return await openStore({ databaseUrl: config.databaseUrl, dataDir: config.databaseUrl ? undefined : config.dataDir });
  } catch (error) {
    if (error instanceof FolderLockedError) {
      throw new Error(
        `The store in DATA_DIR (${config.dataDir}) is PGlite, which only one process may open, and a running querytrail server holds it.\n` +
          `Stop the server, run this command, then start the server again (or, as an admin, change roles on the People page or with PUT /api/users/{email}).\n` +
          error.message,
        { cause: error },
      );
    }
    throw error;
  }
}

async function run(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  if (command !== 'list' && command !== 'grant' && command !== 'revoke') {
    console.error(USAGE);
    return 2;
  }
  let email: string | undefined;
  if (command !== 'list') {
    const parsed = emailSchema.safeParse(rest[0] ?? '');
    if (rest.length !== 1 || !parsed.success) {
      console.error(`${command} takes one email address${rest[0] ? `, got "${rest.join(' ')}"` : ''}\n\n${USAGE}`);
      return 2;
    }
    email = parsed.data;
  }
  const store = await openServerStore();
  try {
    if (command === 'list') {
      const users = await listUsers(store.db);
      if (users.length === 0) console.log('No one yet: people appear here when they first sign in, or when granted a role.');
      for (const u of users)
        console.log(`${u.role.padEnd(6)}  ${u.email}${u.name ? `  (${u.name})` : ''}${u.lastSignInAt ? `  last sign-in ${u.lastSignInAt}` : ''}`);
      return 0;
    }
    const role = command === 'grant' ? 'admin' : 'member';
    const before = await auditSettings.userRole(store.db, { email });
    await setUserRole(store.db, email!, role);
    // the same entry as the API's PUT /api/users/{email}, by the CLI
    await recordAudit(store.db, { principal: cliActor(), action: 'me.setUserRole', target: email!, before, after: { role } });
    console.log(`${email} is now ${role === 'admin' ? 'an admin' : 'a member'}.`);
    if (role === 'member' && (await countAdmins(store.db)) === 0) {
      console.log('Note: no admin is left. Grant someone with `npm run admin -- grant <email>`, or list them in ADMIN_EMAILS.');
    }
    return 0;
  } finally {
    await store.close();
  }
}

process.umask(0o077);
run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
