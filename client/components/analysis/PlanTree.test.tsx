// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { PlanNode } from '../../../shared/plan';
import { changedNodes } from '../../lib/plan';
import { PlanTree } from './PlanTree';

afterEach(cleanup);

// production's plan and the plan with an index on orders (customer_id, created_at DESC), as EXPLAIN (FORMAT JSON) gives them
const before: PlanNode = {
  'Node Type': 'Limit',
  'Total Cost': 412.5,
  'Plan Rows': 4,
  Plans: [
    {
      'Node Type': 'Sort',
      'Total Cost': 412.49,
      'Plan Rows': 4,
      'Sort Key': ['created_at DESC'],
      Plans: [{ 'Node Type': 'Seq Scan', 'Relation Name': 'orders', Alias: 'orders', 'Total Cost': 412.4, 'Plan Rows': 4, Filter: '(customer_id = $1)' }],
    },
  ],
};
const after: PlanNode = {
  'Node Type': 'Limit',
  'Total Cost': 8.34,
  'Plan Rows': 4,
  Plans: [
    {
      'Node Type': 'Index Scan',
      'Relation Name': 'orders',
      Alias: 'orders',
      'Index Name': 'orders_customer_id_created_at_idx',
      'Total Cost': 8.33,
      'Plan Rows': 4,
      'Index Cond': '(customer_id = $1)',
    },
  ],
};

/** The line of the plan node whose description is `name`, inside the plan labelled `plan`. */
const nodeLine = (plan: string, name: string) => within(screen.getByRole('group', { name: plan })).getByText(name).parentElement!;

describe('PlanTree', () => {
  it('marks with a "changed" label the steps the other plan does not have, in both plans', () => {
    render(
      <>
        <PlanTree plan={before} compareWith={after} label="Production plan now" />
        <PlanTree plan={after} compareWith={before} label="Plan with the recommended indexes" />
      </>,
    );
    expect(within(nodeLine('Production plan now', 'Seq Scan on orders')).getByText('changed')).toBeTruthy();
    expect(within(nodeLine('Production plan now', 'Sort')).getByText('changed')).toBeTruthy();
    expect(within(nodeLine('Production plan now', 'Limit')).queryByText('changed')).toBeNull();
    expect(
      within(nodeLine('Plan with the recommended indexes', 'Index Scan on orders using orders_customer_id_created_at_idx')).getByText('changed'),
    ).toBeTruthy();
    expect(within(nodeLine('Plan with the recommended indexes', 'Limit')).queryByText('changed')).toBeNull();
    expect(screen.getByRole('group', { name: 'Production plan now' }).textContent).toContain('2 steps marked changed');
  });

  it('shows each step indented under its parent, with cost, rows and its conditions', () => {
    render(<PlanTree plan={before} label="Plan" />);
    const seqScan = screen.getByText('Seq Scan on orders').closest('li')!;
    const sort = screen.getByText('Sort').closest('li')!;
    expect(sort.contains(seqScan)).toBe(true);
    expect(seqScan.textContent).toContain('cost 412.4');
    expect(seqScan.textContent).toContain('rows 4');
    expect(within(seqScan).getByText('(customer_id = $1)')).toBeTruthy();
    expect(within(sort).getByText('created_at DESC')).toBeTruthy();
    // alone, nothing is compared, so nothing is marked
    expect(screen.queryByText('changed')).toBeNull();
  });

  it('does not mark a step that only moved, nor one the other plan has once more', () => {
    // costs do not matter here: every node gets the same
    const node = (type: string, rest: Partial<PlanNode> = {}): PlanNode => ({ 'Node Type': type, 'Total Cost': 1, 'Plan Rows': 1, ...rest });
    const joined = node('Hash Join', {
      Plans: [node('Seq Scan', { 'Relation Name': 'orders' }), node('Hash', { Plans: [node('Seq Scan', { 'Relation Name': 'customers' })] })],
    });
    const reordered = node('Hash Join', {
      Plans: [
        node('Seq Scan', { 'Relation Name': 'customers' }),
        node('Hash', { Plans: [node('Index Scan', { 'Relation Name': 'orders', 'Index Name': 'orders_pkey' })] }),
      ],
    });
    const changed = [...changedNodes(joined, reordered)].map((n) => `${n['Node Type']} ${n['Relation Name'] ?? ''}`.trim());
    expect(changed).toEqual(['Seq Scan orders']);
    expect(changedNodes(joined, null).size).toBe(0);
  });
});
