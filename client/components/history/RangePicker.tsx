// The windows a history view offers: the last hour, day, week or 90 days.
import { HISTORY_RANGES, type HistoryRange } from '../../../shared/history';

const LABELS: Record<HistoryRange, string> = { '1h': '1 h', '24h': '24 h', '7d': '7 d', '90d': '90 d' };

export function RangePicker({ value, onChange, name }: { value: HistoryRange; onChange: (range: HistoryRange) => void; name: string }) {
  return (
    <div className="segmented" role="radiogroup" aria-label={name}>
      {(Object.keys(HISTORY_RANGES) as HistoryRange[]).map((range) => (
        <button
          key={range}
          type="button"
          role="radio"
          aria-checked={value === range}
          className={value === range ? 'segment active' : 'segment'}
          onClick={() => onChange(range)}
        >
          {LABELS[range]}
        </button>
      ))}
    </div>
  );
}

/** The window of a range ending now, as the API takes it; fixed when the range is picked, so it does not refetch on every render. */
export function windowEndingNow(range: HistoryRange): { from: string; to: string } {
  const to = Date.now();
  return { from: new Date(to - HISTORY_RANGES[range]).toISOString(), to: new Date(to).toISOString() };
}

export function rangeLabel(range: HistoryRange): string {
  return { '1h': 'the last hour', '24h': 'the last 24 hours', '7d': 'the last 7 days', '90d': 'the last 90 days' }[range];
}
