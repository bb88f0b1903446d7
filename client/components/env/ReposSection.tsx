// Linked Repos: CI runs of these repositories land in this environment's catalog.
import { useState } from 'react';
import { repoSchema } from '../../../shared/validation';
import { useMutationForm } from '../../hooks/useMutationForm';
import { messageOf, validate } from '../../lib/errors';
import { useEnvAccess } from '../../hooks/useMe';
import { trpc, type RouterOutputs } from '../../trpc';
import { Card } from '../Card';
import { TextField, FormError } from '../Field';
import { RelativeTime } from '../RelativeTime';
import { RoleNote } from '../RoleNote';
import { InlineForm } from '../SubForm';
import { EmptyState } from '../States';

type Environment = RouterOutputs['env']['get'];

export function ReposSection({ env }: { env: Environment }) {
  const utils = trpc.useUtils();
  const [repo, setRepo] = useState('');
  const link = trpc.repos.link.useMutation({
    onSuccess: async () => {
      setRepo('');
      form.clear();
      await utils.env.get.invalidate({ id: env.id });
    },
  });
  const unlink = trpc.repos.unlink.useMutation({ onSettled: () => utils.env.get.invalidate({ id: env.id }) });
  // "already linked to environment X" is about the repository the user typed
  const form = useMutationForm(link, { conflict: 'repo', not_found: 'repo' });
  const repoError = validate(repoSchema, repo);
  const onSubmit = form.submit(!repoError, () => link.mutate({ id: env.id, repo: repo.trim() }));
  const { role, can } = useEnvAccess(env.id);
  const editor = can('editor');

  return (
    <Card id="repos-heading" title="Linked Repos" count={env.repos.length}>
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
              {editor ? (
                <button
                  type="button"
                  className="button button-small button-danger-quiet"
                  onClick={() => unlink.mutate({ id: env.id, repo: r.repo })}
                  disabled={unlink.isPending && unlink.variables?.repo === r.repo}
                  aria-label={`Unlink ${r.repo}`}
                >
                  Unlink
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      <FormError>{unlink.isError ? <>The repository could not be unlinked: {messageOf(unlink.error)}</> : null}</FormError>
      {editor ? (
        <InlineForm label="Link a repository" onSubmit={onSubmit} submit={{ pending: link.isPending, label: 'Link repository', pendingLabel: 'Linking…' }}>
          <TextField
            label="Repository"
            {...form.field('repo', repo, setRepo, repoError)}
            placeholder="acme/web-app"
            hint="As GitHub writes it: <org>/<repo>; on GitLab the project path with its groups: <group>/<subgroup>/<project>."
            autoComplete="off"
            spellCheck={false}
          />
        </InlineForm>
      ) : (
        <RoleNote needed="editor" role={role} action="link and unlink repositories" />
      )}
      <FormError>{form.formError}</FormError>
    </Card>
  );
}
