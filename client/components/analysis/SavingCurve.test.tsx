// @vitest-environment jsdom
// The saving curve on the analysis page: every step's figures, the chosen point marked, and why the
// choice stopped there. jsdom has no canvas, so the chart's drawing is checked through the data it is given.
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChoiceStop, SavingPoint } from '../../../shared/analysis';
import { SavingCurve, savingCurveData } from './SavingCurve';

afterEach(cleanup);

const MB = 1024 * 1024;
const curve: SavingPoint[] = [
  { indexes: 0, bytes: 0, cost: 10_000, createIndex: null },
  { indexes: 1, bytes: 2 * MB, cost: 2_000, createIndex: 'CREATE INDEX ON public.orders (customer_id)' },
  { indexes: 2, bytes: 3 * MB, cost: 1_500, createIndex: 'CREATE INDEX ON public.orders (created_at)' },
  { indexes: 3, bytes: 40 * MB, cost: 1_400, createIndex: 'CREATE INDEX ON public.orders (note)' },
];
const stop: ChoiceStop = { code: 'knee', indexes: 2, message: 'Stopped at 2 of 3 indexes (3.0 MB, 85.0% of the workload’s cost saved): …' };

describe('the saving curve', () => {
  it('lists every step with its storage, cost and saving, marks the chosen one and says why it stopped', () => {
    render(<SavingCurve curve={curve} stop={stop} />);
    const section = screen.getByRole('region', { name: 'Saving curve' });
    expect(within(section).getByRole('img').getAttribute('aria-label')).toBe('Workload cost against index storage, 3 steps, chosen: 2');
    expect(within(section).getByText(/^Stopped at 2 of 3 indexes/)).toBeTruthy();
    const rows = within(section).getAllByRole('row').slice(1);
    expect(rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent))).toEqual([
      ['0', '0 B', '10,000', '0.0%', '–'],
      ['1', '2.0 MB', '2,000', '80.0%', 'CREATE INDEX ON public.orders (customer_id)'],
      ['2 (chosen)', '3.0 MB', '1,500', '85.0%', 'CREATE INDEX ON public.orders (created_at)'],
      ['3', '40 MB', '1,400', '86.0%', 'CREATE INDEX ON public.orders (note)'],
    ]);
    expect(rows.filter((r) => r.getAttribute('aria-current') === 'step')).toEqual([rows[2]]);
  });

  it('gives the chart storage in MB, the cost at every step, and the chosen point alone', () => {
    expect(savingCurveData(curve, 2)).toEqual([
      [0, 2, 3, 40],
      [10_000, 2_000, 1_500, 1_400],
      [null, null, 1_500, null],
    ]);
  });

  it('draws nothing for a curve without a step', () => {
    const { container } = render(<SavingCurve curve={curve.slice(0, 1)} stop={null} />);
    expect(container.innerHTML).toBe('');
  });
});
