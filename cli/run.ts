// The bundle's entry point (dist/querytrail.mjs): the command line, or the GitHub Action's inputs.
import { actionInvocation, isActionRun } from './action-inputs';
import { main } from './main';

const args = process.argv.slice(2);
const invocation = isActionRun(args, process.env) ? actionInvocation(process.env) : { argv: args, env: process.env };
const code = await main(invocation.argv, invocation.env);
// Exit now: an idle keep-alive socket of fetch would otherwise hold the process for seconds.
process.exit(code);
