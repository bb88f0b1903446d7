// People and their roles: the instance role on the user row, environment roles as memberships by
// email (a person may be given a role before they first sign in).
import { and, asc, eq, sql } from 'drizzle-orm';
import type { EnvRole, InstanceRole, Member } from '../../shared/auth';
import { memberships, users } from '../db/schema';
import type { Db } from '../db/store';
import { conflict, notFound } from '../errors';
import { newId } from '../ids';
import { requireEnvironment } from './environments';

/**
 * The person an identity provider vouched for, created on first sign-in. ADMIN_EMAILS make their
 * people admins at every sign-in (the first admins of a new deployment); nothing else changes a
 * role here, so an admin demoted through the API stays demoted unless ADMIN_EMAILS still names them.
 */
export async function upsertSignedInUser(db: Db, person: { email: string; name: string }, adminEmails: string[]): Promise<{ id: string; role: InstanceRole }> {
  const email = person.email.toLowerCase();
  const admin = adminEmails.includes(email);
  const [row] = await db
    .insert(users)
    .values({ id: newId('usr'), email, name: person.name, role: admin ? 'admin' : 'member', lastSignInAt: new Date() })
    .onConflictDoUpdate({
      target: users.email,
      set: { name: person.name, lastSignInAt: new Date(), ...(admin ? { role: 'admin' as const } : {}) },
    })
    .returning({ id: users.id, role: users.role });
  return row!;
}

/** Sets a person's instance role, creating the person if they never signed in (the CLI's `admin` command, the API). */
export async function setUserRole(db: Db, email: string, role: InstanceRole): Promise<void> {
  await db
    .insert(users)
    .values({ id: newId('usr'), email: email.toLowerCase(), role })
    .onConflictDoUpdate({ target: users.email, set: { role } });
}

export async function listUsers(db: Db) {
  const rows = await db.select().from(users).orderBy(asc(users.email));
  return rows.map((u) => ({
    email: u.email,
    name: u.name,
    role: u.role,
    createdAt: u.createdAt.toISOString(),
    lastSignInAt: u.lastSignInAt?.toISOString() ?? null,
  }));
}

export async function listMembers(db: Db, environmentId: string): Promise<Member[]> {
  await requireEnvironment(db, environmentId);
  const rows = await db
    .select({ email: memberships.email, role: memberships.role, createdAt: memberships.createdAt, name: users.name })
    .from(memberships)
    .leftJoin(users, eq(users.email, memberships.email))
    .where(eq(memberships.environmentId, environmentId))
    .orderBy(asc(memberships.email));
  return rows.map((r) => ({ email: r.email, name: r.name || null, role: r.role, createdAt: r.createdAt.toISOString() }));
}

/** Gives a person a role on the environment. The last owner cannot be made less than owner: someone must be able to manage it. */
export async function setMember(db: Db, environmentId: string, email: string, role: EnvRole): Promise<Member> {
  return db.transaction(async (tx) => {
    await requireEnvironment(tx, environmentId);
    if (role !== 'owner') await keepAnOwner(tx, environmentId, email);
    await tx
      .insert(memberships)
      .values({ environmentId, email, role })
      .onConflictDoUpdate({ target: [memberships.environmentId, memberships.email], set: { role } });
    const [member] = (await listMembers(tx, environmentId)).filter((m) => m.email === email);
    return member!;
  });
}

export async function removeMember(db: Db, environmentId: string, email: string): Promise<void> {
  await db.transaction(async (tx) => {
    await requireEnvironment(tx, environmentId);
    await keepAnOwner(tx, environmentId, email);
    const deleted = await tx
      .delete(memberships)
      .where(and(eq(memberships.environmentId, environmentId), eq(memberships.email, email)))
      .returning({ email: memberships.email });
    if (deleted.length === 0) throw notFound(`Member ${email}`);
  });
}

/** Refuses a change that would leave the environment without an owner when `email` is its only one. */
async function keepAnOwner(db: Db, environmentId: string, email: string) {
  const owners = await db
    .select({ email: memberships.email })
    .from(memberships)
    .where(and(eq(memberships.environmentId, environmentId), eq(memberships.role, 'owner')))
    .for('update');
  if (owners.length === 1 && owners[0]!.email === email) {
    throw conflict(`${email} is the environment's only owner: make someone else owner first`);
  }
}

/** The person who creates an environment owns it. */
export async function addOwner(db: Db, environmentId: string, email: string) {
  await db.insert(memberships).values({ environmentId, email, role: 'owner' }).onConflictDoNothing();
}

export const countAdmins = async (db: Db) =>
  Number(
    (
      await db
        .select({ n: sql<number>`count(*)` })
        .from(users)
        .where(eq(users.role, 'admin'))
    )[0]?.n ?? 0,
  );
