// Environments: the list and the create form (slug suggested from the name, validated live).
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { nameSchema, slugify, slugSchema } from '../../shared/validation';
import { TextField, FormError, SubmitButton } from '../components/Field';
import { RelativeTime } from '../components/RelativeTime';
import { EmptyState, ErrorState, Loading } from '../components/States';
import { apiCodeOf, fieldErrorsOf, messageOf, validate } from '../lib/errors';
import { environmentPath } from '../lib/paths';
import { trpc } from '../trpc';

function CreateEnvironmentForm() {
  const navigate = useNavigate();
  const utils = trpc.useUtils();
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [slugEdited, setSlugEdited] = useState(false);
  const [submitted, setSubmitted] = useState(false);
  const create = trpc.env.create.useMutation({
    onSuccess: async ({ id }) => {
      await utils.env.list.invalidate();
      navigate(environmentPath(id));
    },
  });

  const nameError = validate(nameSchema, name);
  const slugError = validate(slugSchema, slug);
  const server = fieldErrorsOf(create.error);
  // a taken slug comes back as a conflict without field issues: it belongs beside the slug
  if (apiCodeOf(create.error) === 'conflict') server.slug ??= messageOf(create.error);
  const formError = create.error && Object.keys(server).length === 0 ? messageOf(create.error) : undefined;

  const onName = (value: string) => {
    setName(value);
    if (!slugEdited) setSlug(slugify(value));
    create.reset();
  };
  const onSlug = (value: string) => {
    setSlug(value);
    setSlugEdited(value !== '');
    create.reset();
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    if (nameError || slugError) return;
    create.mutate({ name: name.trim(), slug });
  };

  return (
    <form className="card form" onSubmit={onSubmit} noValidate aria-labelledby="create-env-heading">
      <h2 id="create-env-heading" className="card-title">
        Create an environment
      </h2>
      <p className="muted">One environment per application or service: its databases, its CI repositories and their query catalog.</p>
      <div className="form-grid">
        <TextField
          label="Name"
          value={name}
          onChange={onName}
          error={server.name ?? (submitted || name ? nameError : undefined)}
          placeholder="Checkout service"
          autoComplete="off"
          required
        />
        <TextField
          label="Slug"
          value={slug}
          onChange={onSlug}
          error={server.slug ?? (submitted || slug ? slugError : undefined)}
          hint="Lowercase letters, digits and hyphens. Suggested from the name."
          placeholder="checkout-service"
          autoComplete="off"
          spellCheck={false}
          required
        />
      </div>
      <FormError>{formError}</FormError>
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
      <section className="card" aria-labelledby="env-list-heading">
        <h2 id="env-list-heading" className="card-title">
          All environments {list.data ? <span className="count">{list.data.length}</span> : null}
        </h2>
        {list.isPending ? (
          <Loading label="Loading environments…" />
        ) : list.isError ? (
          <ErrorState title="Environments could not be loaded" error={list.error} onRetry={() => list.refetch()} />
        ) : list.data.length === 0 ? (
          <EmptyState title="No environments yet.">Create the first one below.</EmptyState>
        ) : (
          <ul className="env-list">
            {list.data.map((env) => (
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
      </section>
      <CreateEnvironmentForm />
    </div>
  );
}
