// Call sites from each convention ORMs and frameworks write, and comments built to hurt.
import { describe, expect, it } from 'vitest';
import { CALL_SITE_LIMITS, callSitesIgnored, callSitesOf, commentsOf, describeCallSite, globToRegExp, mergeCallSites } from './call-sites';

describe('call sites, by convention', () => {
  it('Rails marginalia: key:value', () => {
    expect(callSitesOf('SELECT * FROM users WHERE id = $1 /*application:Shop,controller:users,action:show*/')).toEqual([
      { controller: 'users', action: 'show', tags: { application: 'Shop', controller: 'users', action: 'show' } },
    ]);
  });

  it("Rails 7 query log tags (sqlcommenter format) with Rails 7.1's source_location", () => {
    const [site] = callSitesOf("SELECT * FROM orders /*action='index',controller='orders',source_location='app/models/order.rb:88:in %60recent%27'*/");
    expect(site).toMatchObject({ file: 'app/models/order.rb', line: 88, controller: 'orders', action: 'index' });
    expect(describeCallSite(site!)).toBe('app/models/order.rb:88, orders#index');
  });

  it('Django / SQLAlchemy / Knex / Sequelize sqlcommenter: URL-encoded values, traceparent kept as a tag', () => {
    const text =
      "SELECT * FROM polls_question /*controller='index',db_driver='django.db.backends.postgresql',framework='django%3A4.2.1'," +
      "route='%2Fpolls%2F',traceparent='00-5bd66ef5095369c7b0d1f8f4bd33716a-c532cb4098ac3dd2-01'*/";
    expect(callSitesOf(text)).toEqual([
      {
        controller: 'index',
        route: '/polls/',
        framework: 'django:4.2.1',
        tags: {
          controller: 'index',
          db_driver: 'django.db.backends.postgresql',
          framework: 'django:4.2.1',
          route: '/polls/',
          traceparent: '00-5bd66ef5095369c7b0d1f8f4bd33716a-c532cb4098ac3dd2-01',
        },
      },
    ]);
    // Knex and Sequelize put the comment first
    expect(callSitesOf("/*route='%2Fapi%2Forders',framework='express%3A4'*/ SELECT 1")[0]).toMatchObject({ route: '/api/orders', framework: 'express:4' });
  });

  it("file and line: 'file' with its line, 'line' alone, OpenTelemetry's code.filepath / code.lineno", () => {
    expect(callSitesOf("SELECT 1 /*file='app/models/user.rb:42'*/")[0]).toMatchObject({ file: 'app/models/user.rb', line: 42 });
    expect(callSitesOf("SELECT 1 /*file='src/db.ts',line='7'*/")[0]).toMatchObject({ file: 'src/db.ts', line: 7 });
    expect(callSitesOf("SELECT 1 /*code.filepath='svc/repo.py',code.lineno='120'*/")[0]).toMatchObject({ file: 'svc/repo.py', line: 120 });
  });

  it('Prisma with its sqlcommenter plugin; an escaped quote inside a value', () => {
    expect(callSitesOf("SELECT 1 /*prismaAction='findMany',prismaModel='User',file='src/users.ts:12'*/")[0]).toMatchObject({
      file: 'src/users.ts',
      line: 12,
      tags: { prismaAction: 'findMany', prismaModel: 'User' },
    });
    expect(callSitesOf("SELECT 1 /*controller='o\\'brien'*/")[0]!.tags).toEqual({ controller: "o'brien" });
  });

  it('not a call site: plain comments, Hibernate HQL comments, comment-like text inside a literal or after --', () => {
    expect(callSitesOf('SELECT 1 /* just a note */')).toEqual([]);
    expect(callSitesOf('/* select u from User u where u.id=:id */ SELECT * FROM users WHERE id = $1')).toEqual([]);
    expect(callSitesOf("SELECT '/*controller:users*/' AS x")).toEqual([]);
    expect(callSitesOf('SELECT 1 -- /*controller:users*/\n')).toEqual([]);
    expect(callSitesOf('SELECT 1')).toEqual([]);
  });
});

describe('hostile comments: bounded cost, no crash', () => {
  it('a huge comment is skipped; text past the scanned prefix is not read', () => {
    const huge = `SELECT 1 /*controller='${'x'.repeat(1_000_000)}'*/`;
    const started = performance.now();
    expect(callSitesOf(huge)).toEqual([]);
    expect(callSitesOf(`SELECT 1 ${' '.repeat(CALL_SITE_LIMITS.maxScan)} /*controller:late*/`)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('nested, unterminated and many comments; NULs and control characters; broken escapes', () => {
    expect(callSitesOf("SELECT 1 /* /*controller='inner'*/ action='outer' */")).toEqual([]);
    expect(callSitesOf("SELECT 1 /*controller='open'")).toEqual([]);
    expect(commentsOf('/*a:1*/'.repeat(1000))).toHaveLength(CALL_SITE_LIMITS.maxComments);
    expect(callSitesOf('/*a:1*/'.repeat(1000))).toEqual([{ tags: { a: '1' } }]);
    expect(callSitesOf("SELECT 1 /*controller='us\u0000ers',action='sh\u0007ow',route='%E0%A4%A'*/")[0]).toEqual({
      controller: 'users',
      action: 'show',
      route: '%E0%A4%A',
      tags: { controller: 'users', action: 'show', route: '%E0%A4%A' },
    });
    const manyTags = Array.from({ length: 100 }, (_, i) => `k${i}='${'v'.repeat(2000)}'`).join(',');
    const [site] = callSitesOf(`SELECT 1 /*${manyTags.slice(0, 4000)}*/`);
    expect(Object.keys(site!.tags).length).toBeLessThanOrEqual(CALL_SITE_LIMITS.maxTags);
    for (const value of Object.values(site!.tags)) expect(value.length).toBeLessThanOrEqual(CALL_SITE_LIMITS.maxValue);
    // quotes everywhere, a pathological mix for the tag patterns
    const quotes = `SELECT 1 /*a='${"\\'".repeat(1500)}*/`;
    const started = performance.now();
    expect(() => callSitesOf(quotes)).not.toThrow();
    expect(() => callSitesOf(`/*${"a:'b',".repeat(500)}*/`)).not.toThrow();
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('merging keeps the first sightings, each once, at most the bound', () => {
    const a = { file: 'a.rb', tags: { file: 'a.rb' } };
    const b = { file: 'b.rb', tags: { file: 'b.rb' } };
    expect(mergeCallSites([[a], [b, a]])).toEqual([a, b]);
    expect(mergeCallSites([[a, b]], 1)).toEqual([a]);
  });
});

describe('ignored call sites', () => {
  const site = (file?: string) => ({ ...(file === undefined ? {} : { file }), tags: {} });

  it('globs: ** crosses folders, * and ? stay within one; the rest is literal', () => {
    expect(globToRegExp('spec/**').test('spec/models/user_spec.rb')).toBe(true);
    expect(globToRegExp('**/fixtures/*.rb').test('test/fixtures/users.rb')).toBe(true);
    expect(globToRegExp('**/fixtures/*.rb').test('fixtures/users.rb')).toBe(true);
    expect(globToRegExp('test/*.ts').test('test/a/b.ts')).toBe(false);
    expect(globToRegExp('app/model?.rb').test('app/models.rb')).toBe(true);
    expect(globToRegExp('a.b(c)').test('a.b(c)')).toBe(true);
    expect(globToRegExp('a.b').test('axb')).toBe(false);
  });

  it('a query is ignored when every call site that names a file matches; one in application code keeps it', () => {
    const patterns = ['spec/**', '**/test_helper.rb'];
    expect(callSitesIgnored([site('spec/support/seed.rb')], patterns)).toBe(true);
    expect(callSitesIgnored([site('spec/support/seed.rb'), site('test/test_helper.rb'), site()], patterns)).toBe(true);
    expect(callSitesIgnored([site('spec/support/seed.rb'), site('app/models/order.rb')], patterns)).toBe(false);
    expect(callSitesIgnored([site()], patterns)).toBe(false);
    expect(callSitesIgnored([], patterns)).toBe(false);
    expect(callSitesIgnored([site('spec/x.rb')], [])).toBe(false);
  });
});
