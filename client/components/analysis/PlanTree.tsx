// An EXPLAIN plan as an indented tree: each node's kind, what it reads, its cost and rows, and a
// "changed" label on the nodes that the other plan does not have, and optionally the node whose
// cost moved most between the two, highlighted.
import type { PlanNode } from '../../../shared/plan';
import { changedNodes, describeNode, formatCost, nodeDetails } from '../../lib/plan';
import { formatNumber } from '../../lib/time';
import { Badge } from '../Badge';

function PlanNodeItem({ node, changed, highlight }: { node: PlanNode; changed: Set<PlanNode>; highlight: PlanNode | null }) {
  const isChanged = changed.has(node);
  const isHot = node === highlight;
  const details = nodeDetails(node);
  const children = node.Plans ?? [];
  return (
    <li className={`plan-node${isChanged ? ' plan-node-changed' : ''}${isHot ? ' plan-node-hot' : ''}`}>
      <div className="plan-node-line">
        <span className="plan-node-name">{describeNode(node)}</span>
        {isChanged ? (
          <Badge tone="warning" title="This step differs between the two plans">
            changed
          </Badge>
        ) : null}
        {isHot ? (
          <Badge tone="danger" title="The step whose own cost moved most between the two plans">
            cost moved most
          </Badge>
        ) : null}
        <span className="plan-node-figures">
          <span>cost {formatCost(node['Total Cost'])}</span>
          <span>rows {formatNumber(node['Plan Rows'])}</span>
        </span>
      </div>
      {details.length > 0 ? (
        <dl className="plan-node-details">
          {details.map((d) => (
            <div key={d.label}>
              <dt>{d.label}</dt>
              <dd>
                <code>{d.text}</code>
              </dd>
            </div>
          ))}
        </dl>
      ) : null}
      {children.length > 0 ? (
        <ul className="plan-children">
          {children.map((child, i) => (
            <PlanNodeItem key={i} node={child} changed={changed} highlight={highlight} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

/**
 * `compareWith` is the other plan: nodes without a counterpart there are marked "changed";
 * `highlight`, a node of this plan, is marked as the one whose cost moved most.
 */
export function PlanTree({
  plan,
  compareWith = null,
  label,
  highlight = null,
}: {
  plan: PlanNode;
  compareWith?: PlanNode | null;
  label: string;
  highlight?: PlanNode | null;
}) {
  const changed = changedNodes(plan, compareWith);
  return (
    <div className="plan-scroll" tabIndex={0} role="group" aria-label={label}>
      <ul className="plan-tree">
        <PlanNodeItem node={plan} changed={changed} highlight={highlight} />
      </ul>
      {changed.size > 0 ? (
        <p className="muted small plan-legend">
          {changed.size} step{changed.size === 1 ? '' : 's'} marked <strong>changed</strong> differ from the other plan.
        </p>
      ) : null}
    </div>
  );
}
