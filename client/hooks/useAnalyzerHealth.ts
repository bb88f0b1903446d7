import { useQuery } from '@tanstack/react-query';
import { checkHealth, HEALTH_POLL_MS, normalizeAnalyzerUrl } from '../lib/analyzer';

export type AnalyzerHealth = 'checking' | 'live' | 'not-live';

/** Polls GET /health of the analyzer every 10 seconds. */
export function useAnalyzerHealth(url: string): AnalyzerHealth {
  const base = normalizeAnalyzerUrl(url);
  const { data } = useQuery({
    queryKey: ['analyzer-health', base],
    queryFn: ({ signal }) => checkHealth(base, signal),
    refetchInterval: HEALTH_POLL_MS,
    refetchIntervalInBackground: false,
    retry: false,
    enabled: base.length > 0,
  });
  if (data === undefined) return 'checking';
  return data ? 'live' : 'not-live';
}
