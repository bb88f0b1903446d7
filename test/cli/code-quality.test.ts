// Where a Code Quality issue points: a call site's file is text from a query's comment (anyone
// could have written it), so only a plain relative path inside the repository is used.
import { describe, expect, it } from 'vitest';
import { fallbackPath, repositoryPath } from '../../cli/code-quality';

describe('Code Quality locations', () => {
  it('keeps relative paths, without a leading ./', () => {
    expect(repositoryPath('app/models/order.rb')).toBe('app/models/order.rb');
    expect(repositoryPath('./lib/report.py')).toBe('lib/report.py');
  });

  it('refuses absolute paths, climbing out, backslashes and empty segments', () => {
    for (const file of ['/etc/passwd', '../secrets.yml', 'app/../../x.rb', 'C:/app/x.rb', 'app\\x.rb', 'app//x.rb', '', undefined]) {
      expect(repositoryPath(file), String(file)).toBeUndefined();
    }
  });

  it('places findings without a call site on the CI configuration, unless it lives in another project', () => {
    expect(fallbackPath({})).toBe('.gitlab-ci.yml');
    expect(fallbackPath({ CI_CONFIG_PATH: 'ci/pipeline.yml' })).toBe('ci/pipeline.yml');
    expect(fallbackPath({ CI_CONFIG_PATH: 'pipeline.yml@acme/ci-templates' })).toBe('.gitlab-ci.yml');
    expect(fallbackPath({ CI_CONFIG_PATH: '../outside.yml' })).toBe('.gitlab-ci.yml');
  });
});
