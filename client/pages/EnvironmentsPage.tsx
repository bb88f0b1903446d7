// Environments: the list and the create form (slug suggested from the name, validated live).
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Card } from '../components/Card';
import { nameSchema, slugify, slugSchema } from '../../shared/validation';
import { TextField, FormError, SubmitButton } from '../components/Field';
import { FieldRow } from '../components/SubForm';
import { RelativeTime } from '../components/RelativeTime';
import { EmptyState, Loaded } from '../components/States';
import { useMutationForm } from '../hooks/useMutationForm';
import { validate } from '../lib/errors';
import { environmentPath } from '../lib/paths';
import { ME_KEY } from '../lib/session';
import { trpc } from '../trpc';

function CreateEnvironmentForm() {
  const navigate = useNavigate();
  const utils = trpc.useUtils();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [slugEdited, setSlugEdited] = useState(false);
  const create = trpc.env.create.useMutation({
    onSuccess: async ({ id }) => {
      // its maker owns it: who I am (my roles) is read again before its page opens
      await Promise.all([utils.env.list.invalidate(), queryClient.invalidateQueries({ queryKey: ME_KEY })]);
      navigate(environmentPath(id));
    },
  });
  // a taken slug comes back as a conflict without field issues: it belongs beside the slug
  const form = useMutationForm(create, { conflict: 'slug' });
  const nameError = validate(nameSchema, name);
  const slugError = validate(slugSchema, slug);

  const onName = (value: string) => {
    setName(value);
    if (!slugEdited) setSlug(slugify(value));
  };
  const onSlug = (value: string) => {
    setSlug(value);
    setSlugEdited(value !== '');
  };

  const onSubmit = form.submit(!nameError && !slugError, () => create.mutate({ name: name.trim(), slug }));

  return (
    <form className="card form" onSubmit={onSubmit} noValidate aria-labelledby="create-env-heading">
      <h2 id="create-env-heading" className="card-title">
        Create an environment
      </h2>
      <p className="muted">One environment per application or service: its databases, its CI repositories and their query catalog.</p>
      <FieldRow>
        <TextField label="Name" {...form.field('name', name, onName, nameError)} placeholder="Checkout service" autoComplete="off" required />
        <TextField
          label="Slug"
          {...form.field('slug', slug, onSlug, slugError)}
          hint="Lowercase letters, digits and hyphens. Suggested from the name."
          placeholder="checkout-service"
          autoComplete="off"
          spellCheck={false}
          required
        />
      </FieldRow>
      <FormError>{form.formError}</FormError>
      <SubmitButton pending={create.isPending} label="Create environment" pendingLabel="Creating…" />
    </form>
  );
}

export function EnvironmentsPage() {
  const list = trpc.env.list.useQuery();
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Environments</h1>
          <p className="lead">Group the databases and CI repositories of one application and follow every query they run.</p>
        </div>
      </header>
      <Card id="env-list-heading" title="All environments" count={list.data?.length}>
        <Loaded
          query={list}
          loading="Loading environments…"
          failed="Environments could not be loaded"
          empty={<EmptyState title="No environments yet.">Create the first one below.</EmptyState>}
        >
          {(environments) => (
            <ul className="env-list">
              {environments.map((env) => (
                <li key={env.id}>
                  <Link to={environmentPath(env.id)} className="env-link">
                    <span className="env-name">{env.name}</span>
                    <code className="muted">{env.slug}</code>
                  </Link>
                  <span className="muted small">
                    created <RelativeTime value={env.createdAt} />
                  </span>
                </li>
              ))}
            </ul>
          )}
        </Loaded>
      </Card>
      <CreateEnvironmentForm />
    </div>
  );
}
