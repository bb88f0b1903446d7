// One HTTP POST to a webhook: 10 s for the whole exchange, redirects not followed (a 3xx is an
// answer, not a new destination: following it would reach addresses the checks never saw), the
// destination's addresses checked on connection (addresses.ts), and at most 1 KiB of the answer read.
import http from 'node:http';
import https from 'node:https';
import { checkedLookup, refusedHost, RefusedAddressError } from './addresses';

export const SEND_TIMEOUT_MS = 10_000;
const EXCERPT_BYTES = 1024;
const EXCERPT_CHARS = 200;

export interface SendResult {
  /** The receiver's HTTP status; undefined when none came (refused, unreachable, timed out). */
  status?: number;
  excerpt?: string;
  error?: string;
  /** Sending again cannot help (an address refused by rule, a 4xx other than 408/429). */
  permanent: boolean;
}

export function sendWebhook(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: { allowPrivate: boolean; timeoutMs?: number },
): Promise<SendResult> {
  const refused = refusedHost(url.hostname, options.allowPrivate);
  if (refused) return Promise.resolve({ error: refused, permanent: true });
  const timeoutMs = options.timeoutMs ?? SEND_TIMEOUT_MS;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'querytrail-webhooks/1' },
        lookup: checkedLookup(options.allowPrivate),
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          const status = response.statusCode ?? 0;
          const excerpt = Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_CHARS) || undefined;
          if (status >= 200 && status < 300) return finish({ status, excerpt, permanent: false });
          const retryable = status >= 500 || status === 408 || status === 429 || (status >= 300 && status < 400);
          const why = status >= 300 && status < 400 ? `answered ${status} (a redirect, not followed)` : `answered ${status}`;
          finish({ status, excerpt, error: why, permanent: !retryable });
          response.destroy();
        };
        response.on('data', (chunk: Buffer) => {
          if (size < EXCERPT_BYTES) chunks.push(chunk.subarray(0, EXCERPT_BYTES - size));
          size += chunk.length;
          if (size >= EXCERPT_BYTES) done();
        });
        response.on('end', done);
        response.on('error', (error) => finish({ status: response.statusCode, error: error.message, permanent: false }));
      },
    );
    const timer = setTimeout(() => {
      finish({ error: `no answer within ${timeoutMs / 1000} s`, permanent: false });
      request.destroy();
    }, timeoutMs);
    request.on('error', (error) => finish({ error: describe(error), permanent: error instanceof RefusedAddressError }));
    request.end(body);
  });
}

/** Node's network errors name the host and port, never the path: safe to store beside the masked URL. */
function describe(error: Error): string {
  const code = (error as { code?: string }).code;
  return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}
