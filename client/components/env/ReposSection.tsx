// Linked Repos: CI runs of these repositories land in this environment's catalog.
import { useState, type FormEvent } from 'react';
import { repoSchema } from '../../../shared/validation';
import { apiCodeOf, fieldErrorsOf, messageOf, validate } from '../../lib/errors';
import { trpc, type RouterOutputs } from '../../trpc';
import { TextField, FormError } from '../Field';
import { RelativeTime } from '../RelativeTime';
import { EmptyState } from '../States';

type Environment = RouterOutputs['env']['get'];

export function ReposSection({ env }: { env: Environment }) {
  const utils = trpc.useUtils();
  const [repo, setRepo] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const link = trpc.repos.link.useMutation({
    onSuccess: async () => {
      setRepo('');
      setSubmitted(false);
      await utils.env.get.invalidate({ id: env.id });
    },
  });
  const unlink = trpc.repos.unlink.useMutation({ onSettled: () => utils.env.get.invalidate({ id: env.id }) });

  const repoError = validate(repoSchema, repo);
  const server = fieldErrorsOf(link.error);
  // "already linked to environment X" is about the repository the user typed
  if (link.error && !server.repo && ['conflict', 'not_found'].includes(apiCodeOf(link.error) ?? '')) server.repo = messageOf(link.error);
  const formError = link.error && Object.keys(server).length === 0 ? messageOf(link.error) : undefined;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    if (repoError) return;
    link.mutate({ id: env.id, repo: repo.trim() });
  };

  return (
    <section className="card" aria-labelledby="repos-heading">
      <h2 id="repos-heading" className="card-title">
        Linked Repos <span className="count">{env.repos.length}</span>
      </h2>
      {env.repos.length === 0 ? (
        <EmptyState title="No repositories linked yet.">Link a repository and its CI runs add their queries to this environment's catalog.</EmptyState>
      ) : (
        <ul className="repo-list">
          {env.repos.map((r) => (
            <li key={r.id}>
              <span className="repo-name">{r.repo}</span>
              <span className="muted small">
                linked <RelativeTime value={r.createdAt} />
              </span>
              <button
                type="button"
                className="button button-small button-danger-quiet"
                onClick={() => unlink.mutate({ id: env.id, repo: r.repo })}
                disabled={unlink.isPending && unlink.variables?.repo === r.repo}
                aria-label={`Unlink ${r.repo}`}
              >
                Unlink
              </button>
            </li>
          ))}
        </ul>
      )}
      <FormError>{unlink.isError ? <>The repository could not be unlinked: {messageOf(unlink.error)}</> : null}</FormError>
      <form className="subform subform-inline" onSubmit={onSubmit} noValidate aria-label="Link a repository">
        <TextField
          label="Repository"
          value={repo}
          onChange={(v) => {
            setRepo(v);
            link.reset();
          }}
          error={server.repo ?? (submitted || repo ? repoError : undefined)}
          placeholder="acme/web-app"
          hint="As GitHub writes it: <org>/<repo>."
          autoComplete="off"
          spellCheck={false}
        />
        <button type="submit" className="button button-primary" disabled={link.isPending}>
          {link.isPending ? 'Linking…' : 'Link repository'}
        </button>
      </form>
      <FormError>{formError}</FormError>
    </section>
  );
}
