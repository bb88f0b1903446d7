// The analyzer is a separate origin on the user's machine: the browser calls it with fetch and
// reads its answers through the shared zod schemas, so a changed contract fails loudly here.
import { healthSchema, remoteSyncResponseSchema, type RemoteSyncResponse } from '../../shared/analyzer-schema';
import { describeIssues, errorBodySchema, issuesOf } from '../../shared/errors';

export const DEFAULT_ANALYZER_URL = 'http://localhost:2345';
export const HEALTH_POLL_MS = 10_000;
export const ANALYZER_URL_STORAGE_KEY = 'querytrail.analyzerUrl';

export class AnalyzerError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'AnalyzerError';
  }
}

/** Trims the endpoint and drops trailing slashes, so "http://host:2345/" and "http://host:2345" agree. */
export function normalizeAnalyzerUrl(url: string): string {
  return url.trim().replace(/\/+$/, '');
}

export function validateAnalyzerUrl(url: string): string | undefined {
  const value = normalizeAnalyzerUrl(url);
  if (!value) return 'Analyzer endpoint must not be empty';
  try {
    const parsed = new URL(value);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'Analyzer endpoint must start with http:// or https://';
  } catch {
    return 'Analyzer endpoint must be a URL such as http://localhost:2345';
  }
  return undefined;
}

export async function checkHealth(baseUrl: string, signal?: AbortSignal): Promise<boolean> {
  try {
    const response = await fetch(`${normalizeAnalyzerUrl(baseUrl)}/health`, { signal, cache: 'no-store' });
    if (!response.ok) return false;
    return healthSchema.safeParse(await response.json()).success;
  } catch {
    return false;
  }
}

export async function syncDatabase(baseUrl: string, db: string, signal?: AbortSignal): Promise<RemoteSyncResponse> {
  const base = normalizeAnalyzerUrl(baseUrl);
  let response: Response;
  try {
    response = await fetch(`${base}/postgres`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ db }),
      signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new AnalyzerError(
      `Could not reach the analyzer at ${base}. Is it running, and does it allow this page's origin (${window.location.origin})?`,
      'unreachable',
    );
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new AnalyzerError(`The analyzer answered ${response.status} without a JSON body`, 'invalid_response', response.status);
  }
  if (!response.ok) {
    const parsed = errorBodySchema.safeParse(body);
    if (parsed.success) throw new AnalyzerError(parsed.data.error.message, parsed.data.error.code, response.status);
    throw new AnalyzerError(`The analyzer answered ${response.status}`, 'invalid_response', response.status);
  }
  const parsed = remoteSyncResponseSchema.safeParse(body);
  if (!parsed.success) {
    const first = describeIssues(issuesOf(parsed.error).slice(0, 1));
    throw new AnalyzerError(
      `The analyzer's answer does not match this page's version of the contract (${first}). Update the analyzer or this app.`,
      'invalid_response',
      response.status,
    );
  }
  return parsed.data;
}
