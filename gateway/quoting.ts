// Quoting with PostgreSQL's own rules (double quotes doubled; literals with E'' when they hold a
// backslash), for the few statements we build around a user's identifiers.
import pg from 'pg';

export const escapeIdentifier: (name: string) => string = pg.escapeIdentifier;
export const escapeLiteral: (value: string) => string = pg.escapeLiteral;
