// `npm run analyzer`: the analyzer alone, on ANALYZER_HOST:ANALYZER_PORT (default 127.0.0.1:2345).
import { startAnalyzer } from './app';

const analyzer = await startAnalyzer();
console.log(`querytrail analyzer listening on ${analyzer.url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void analyzer.close().finally(() => process.exit(0));
  });
}
