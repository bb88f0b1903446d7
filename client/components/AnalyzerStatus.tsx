import type { AnalyzerHealth } from '../hooks/useAnalyzerHealth';

const LABELS: Record<AnalyzerHealth, string> = { checking: 'Checking…', live: 'Live', 'not-live': 'Not live' };

/** The live / not live indicator: a status region, so screen readers announce changes. */
export function AnalyzerStatus({ health, url }: { health: AnalyzerHealth; url: string }) {
  return (
    <div className="analyzer-status">
      <span className="muted analyzer-url">{url}</span>
      <span role="status" aria-label="Analyzer status" className={`status-pill status-${health}`}>
        <span className="status-dot" aria-hidden="true" />
        {LABELS[health]}
      </span>
    </div>
  );
}
