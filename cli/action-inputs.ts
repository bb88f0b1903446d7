// The GitHub Action (action.yml, `runs: using: node24`) runs the bundle with no arguments and its
// inputs as INPUT_<NAME> variables (upper-cased, hyphens kept). They become the command's flags
// here, the secrets the variables the command reads them from (never a command-line argument).
// Without the `token` input, a job with `permissions: id-token: write` reports with its ID token.

const input = (env: NodeJS.ProcessEnv, name: string) => (env[`INPUT_${name.toUpperCase()}`] ?? '').trim();

/** Whether this process is the action: no arguments, and the action's one required input set. */
export function isActionRun(argv: string[], env: NodeJS.ProcessEnv): boolean {
  return argv.length === 0 && env.GITHUB_ACTIONS === 'true' && input(env, 'api-url') !== '';
}

export function actionInvocation(env: NodeJS.ProcessEnv): { argv: string[]; env: NodeJS.ProcessEnv } {
  const argv = ['ci-report', '--api', input(env, 'api-url')];
  const flag = (name: string, option = `--${name}`) => {
    const value = input(env, name);
    if (value) argv.push(option, value);
  };
  flag('database-url', '--db');
  flag('file');
  flag('repo');
  flag('run-id');
  flag('wait');
  flag('fail-on');
  flag('comment');
  flag('format');
  flag('app-url');
  flag('audience');
  if (input(env, 'schema') === 'false') argv.push('--no-schema');
  if (input(env, 'strict') === 'true') argv.push('--strict');
  const token = input(env, 'token');
  const githubToken = input(env, 'github-token');
  return {
    argv,
    env: {
      ...env,
      ...(token ? { QUERYTRAIL_TOKEN: token } : {}),
      ...(githubToken ? { GITHUB_TOKEN: githubToken } : {}),
    },
  };
}
