import { Link } from 'react-router-dom';
import { EmptyState } from '../components/States';

export function NotFoundPage() {
  return (
    <div className="page">
      <h1>Page not found</h1>
      <EmptyState title="There is nothing at this address.">
        Go to <Link to="/environments">environments</Link> or <Link to="/">the analyzer</Link>.
      </EmptyState>
    </div>
  );
}
