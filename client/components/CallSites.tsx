// Where a query comes from in the application: the file and line, controller#action, route and
// framework its comments named (sqlcommenter, marginalia), with every tag on hover.
import { describeCallSite, type CallSite } from '../../shared/call-sites';

const tagsTitle = (site: CallSite) =>
  Object.entries(site.tags)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n');

export function CallSites({ sites, label = 'Call sites' }: { sites: readonly CallSite[]; label?: string }) {
  if (sites.length === 0) return null;
  return (
    <ul className="call-sites" aria-label={label}>
      {sites.map((site) => {
        const text = describeCallSite(site);
        return (
          <li key={JSON.stringify(site)} title={tagsTitle(site)}>
            <code>{text}</code>
            {site.framework ? <span className="muted small"> · {site.framework}</span> : null}
          </li>
        );
      })}
    </ul>
  );
}
