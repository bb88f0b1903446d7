import { useNow } from '../hooks/useNow';
import { formatExact, formatRelative } from '../lib/time';

/** "3 hours ago", with the exact time on hover. */
export function RelativeTime({ value }: { value: string }) {
  const now = useNow();
  return (
    <time dateTime={value} title={formatExact(value)}>
      {formatRelative(value, new Date(now))}
    </time>
  );
}
