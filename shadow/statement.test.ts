// The first gate before the shadow's EXPLAIN: one plannable statement, or a clear reason why not.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadParser } from '../shared/sql-fingerprint.js';
import { refusalReason } from './statement.js';

beforeAll(() => loadParser());

describe('statements the shadow plans', () => {
  it('lets through exactly one SELECT, INSERT, UPDATE, DELETE or MERGE, with or without WITH', () => {
    for (const sql of [
      'SELECT * FROM t WHERE id = $1',
      'select 1;',
      '/* app */ SELECT 1 -- trailing',
      'VALUES (1), (2)',
      'INSERT INTO t (a) VALUES ($1) ON CONFLICT DO NOTHING',
      'UPDATE t SET a = $1 WHERE id = $2',
      'DELETE FROM t WHERE id = $1 RETURNING *',
      'MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE',
      'WITH d AS (DELETE FROM t WHERE id = $1 RETURNING *) SELECT * FROM d',
      'WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x',
      'SELECT * FROM t FOR UPDATE',
    ]) {
      expect(refusalReason(sql), sql).toBeUndefined();
    }
  });

  it('refuses a second statement, however it is hidden, and says how many there are', () => {
    expect(refusalReason(`SELECT 1; COPY (SELECT 1) TO PROGRAM 'touch /tmp/x'`)).toMatch(/^refused: the text holds 2 statements; only one SELECT/);
    expect(refusalReason(`SELECT 1;;SELECT 2; SELECT 3`)).toMatch(/holds 3 statements/);
    expect(refusalReason(`SELECT $$;$$; DROP TABLE t`)).toMatch(/holds 2 statements/);
  });

  it('refuses utility statements and DDL by name', () => {
    const cases: [string, string][] = [
      [`COPY t TO PROGRAM 'touch /tmp/x'`, 'COPY'],
      [`SET search_path = evil`, 'SET'],
      [`CALL p()`, 'CALL'],
      [`DO $$BEGIN END$$`, 'DO'],
      [`EXPLAIN SELECT 1`, 'EXPLAIN'],
      [`CREATE TABLE x (a int)`, 'CREATE TABLE'],
      [`DROP TABLE t`, 'DROP'],
      [`ALTER ROLE app SUPERUSER`, 'ALTER ROLE'],
      [`CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'select 1'`, 'CREATE FUNCTION'],
      [`BEGIN`, 'a transaction command'],
      [`PREPARE p AS SELECT 1`, 'PREPARE'],
      [`CREATE TABLE x AS SELECT 1`, 'CREATE TABLE AS'],
    ];
    for (const [sql, name] of cases)
      expect(refusalReason(sql), sql).toBe(
        `refused: ${name} is not planned; only one SELECT, INSERT, UPDATE, DELETE or MERGE statement (WITH allowed) is planned`,
      );
    expect(refusalReason('SELECT 1 INTO t2')).toMatch(/^refused: SELECT INTO creates a table/);
  });

  it('refuses empty texts and texts that do not parse', () => {
    expect(refusalReason('')).toMatch(/^refused: the text holds no statement/);
    expect(refusalReason('-- only a comment')).toMatch(/^refused: the text holds no statement/);
    expect(refusalReason(`SELECT 'abc`)).toMatch(/^parse: /);
  });
});
