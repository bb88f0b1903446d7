// A request's queries as catalog rows: one per fingerprint, unparseable ones rejected alone. Uses
// the SQL parser (WebAssembly), no database.
import { describe, expect, it } from 'vitest';
import { prepareQueries } from './prepare';

describe('prepareQueries', () => {
  it('counts a query listed twice once: calls summed, mean weighted, the last text kept', async () => {
    const { rows, rejected } = await prepareQueries([
      { query: 'SELECT * FROM users WHERE id = 1', calls: 1, meanTimeMs: 4 },
      { query: 'select * from users where id = 2', calls: 3, meanTimeMs: 0 },
    ]);
    expect(rejected).toEqual([]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ query: 'select * from users where id = 2', calls: 4, meanTimeMs: 1 });
    expect(rows[0]!.formattedQuery).toContain('$1');
  });

  it('rejects a query that does not parse by its index, and keeps the others in hash order', async () => {
    const { rows, rejected } = await prepareQueries([
      { query: 'SELECT 1 FROM b' },
      { query: "SELECT 'unterminated" },
      { query: 'not sql', hash: '00000000000000aa', formattedQuery: 'shown as sent' },
    ]);
    expect(rejected).toEqual([{ index: 1, reason: expect.stringMatching(/^Query could not be parsed: /) }]);
    expect(rows.map((r) => r.hash)).toEqual([...rows.map((r) => r.hash)].sort());
    expect(rows.find((r) => r.hash === '00000000000000aa')).toMatchObject({ formattedQuery: 'shown as sent', calls: null });
  });
});
