// @vitest-environment jsdom
// The verdict's banner tells which tables were planned without production's column statistics
// (the production connection's role may not read them), each with its fix; a verdict without any
// shows no such list. The verdict is plain data, as the API sends it.
import { cleanup, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultPolicy, type Verdict } from '../../../shared/policy';
import { hiddenStatisticsWarning } from '../../../shared/statistics-warnings';
import { VerdictBanner } from './VerdictBanner';

const verdict = (extra: Partial<Verdict>): Verdict => ({
  status: 'pass',
  reason: null,
  baseline: null,
  snapshotAt: null,
  plannedOn: null,
  analyzedAt: null,
  policy: defaultPolicy(),
  summary: { queries: 2, newQueries: 0, regressions: 0, needIndex: 0, lostIndex: 0 },
  findings: [],
  statements: { run: null, baseline: null },
  schemaNotes: [],
  ...extra,
});

const show = (v: Verdict) =>
  render(
    <MemoryRouter>
      <VerdictBanner verdict={v} envId={null} />
    </MemoryRouter>,
  );

afterEach(cleanup);

describe('the verdict banner', () => {
  it("lists the tables planned without production's column statistics, with the fix", () => {
    show(verdict({ warnings: [hiddenStatisticsWarning('shop.orders')] }));
    const list = screen.getByText('Planned without production column statistics:').parentElement!;
    expect(within(list).getByRole('listitem').textContent).toMatch(
      /^planned without production column statistics for shop\.orders: .*Grant it SELECT on shop\.orders.*docs\/monitoring-role\.md/,
    );
  });

  it('shows no such list when every table was planned with its statistics', () => {
    show(verdict({}));
    expect(screen.queryByText('Planned without production column statistics:')).toBeNull();
  });
});
