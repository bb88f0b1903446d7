import type { ReactNode } from 'react';

export type BadgeTone = 'neutral' | 'accent' | 'success' | 'warning' | 'danger';

export function Badge({ tone = 'neutral', children, title }: { tone?: BadgeTone; children: ReactNode; title?: string }) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}

const ROLE_TONES: Record<string, BadgeTone> = { production: 'danger', staging: 'warning', ci: 'accent', other: 'neutral' };
export const roleTone = (role: string): BadgeTone => ROLE_TONES[role] ?? 'neutral';

const SOURCE_TONES: Record<string, BadgeTone> = { ci: 'accent', production: 'danger', manual: 'neutral' };
export const sourceTone = (source: string): BadgeTone => SOURCE_TONES[source] ?? 'neutral';
export const SOURCE_LABELS: Record<string, string> = { ci: 'CI', production: 'Production', manual: 'Manual' };
