// Started as a child process by component tests: the real web server on a PGlite store and, with
// --analyzer, the real analyzer beside it. They run outside jsdom because jsdom replaces Node
// globals (URL among them) that server code needs.
import { startAnalyzer, type RunningAnalyzer } from '../../analyzer/app';
import { openTestServices, startTestServer } from '../../test/support/services';

const server = await startTestServer(await openTestServices('pglite'));
let analyzer: RunningAnalyzer | undefined;
if (process.argv.includes('--analyzer')) {
  analyzer = await startAnalyzer({ port: 0, webPort: Number(new URL(server.url).port), log: () => undefined, env: {} });
}
process.stdout.write(`${JSON.stringify({ url: server.url, analyzerUrl: analyzer?.url })}\n`);
const stop = () => void Promise.all([server.close(), analyzer?.close()]).finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop); // the test process went away
process.stdin.resume();
