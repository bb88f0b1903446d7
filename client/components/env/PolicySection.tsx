// The environment's policy: what its CI runs are compared with, the thresholds of each finding,
// and whether each kind of finding fails a run, warns, or is off. Checked with the same zod
// schemas the server applies; the server's messages show beside their fields too.
import { useEffect, useState } from 'react';
import { useLocation } from 'react-router-dom';
import {
  branchNameSchema,
  CONDITION_MODES,
  FINDING_KINDS,
  ignoredCallSitesSchema,
  ignoredHashesSchema,
  policyPatchSchema,
  type ConditionMode,
  type FindingKind,
  type Policy,
} from '../../../shared/policy';
import { useEnvAccess } from '../../hooks/useMe';
import { useMutationForm } from '../../hooks/useMutationForm';
import { validate } from '../../lib/errors';
import { retryUnlessNotFound } from '../../lib/queries';
import { trpc } from '../../trpc';
import { Card } from '../Card';
import { FormError, SelectField, SubmitButton, TextAreaField, TextField } from '../Field';
import { RoleNote } from '../RoleNote';
import { ErrorState, Loading } from '../States';
import { KIND_LABELS } from '../verdict/Findings';

const MODE_OPTIONS = CONDITION_MODES.map((mode) => ({ value: mode, label: { fail: 'Fail the run', warn: 'Warn', off: 'Off' }[mode] }));

/** A number field's text as the schema sees it: empty is not a number (not 0). */
const numberOf = (text: string) => (text.trim() === '' ? Number.NaN : Number(text));
/** Ignored hashes as typed: one per line, or separated by spaces or commas. */
const hashesOf = (text: string) => text.split(/[\s,]+/).filter(Boolean);
/** Call site patterns as typed: one per line. */
const patternsOf = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

interface FormValues {
  comparisonBranch: string;
  costRegressionPct: string;
  minCost: string;
  minSavedPct: string;
  callRatio: string;
  minCalls: string;
  conditions: Record<FindingKind, ConditionMode>;
  ignoredHashes: string;
  ignoredCallSites: string;
}

const valuesOf = (policy: Policy): FormValues => ({
  comparisonBranch: policy.comparisonBranch,
  costRegressionPct: String(policy.costRegressionPct),
  minCost: String(policy.minCost),
  minSavedPct: String(policy.minSavedPct),
  callRatio: String(policy.callRatio),
  minCalls: String(policy.minCalls),
  conditions: { ...policy.conditions },
  ignoredHashes: policy.ignoredHashes.join('\n'),
  ignoredCallSites: policy.ignoredCallSites.join('\n'),
});

type FormErrors = Record<Exclude<keyof FormValues, 'conditions'>, string | undefined>;

/** Each field checked by the schema the server applies to it. */
function errorsOf(values: FormValues): FormErrors {
  const shape = policyPatchSchema.shape;
  return {
    comparisonBranch: validate(branchNameSchema, values.comparisonBranch),
    costRegressionPct: validate(shape.costRegressionPct, numberOf(values.costRegressionPct)),
    minCost: validate(shape.minCost, numberOf(values.minCost)),
    minSavedPct: validate(shape.minSavedPct, numberOf(values.minSavedPct)),
    callRatio: validate(shape.callRatio, numberOf(values.callRatio)),
    minCalls: validate(shape.minCalls, numberOf(values.minCalls)),
    ignoredHashes: validate(ignoredHashesSchema, hashesOf(values.ignoredHashes)),
    ignoredCallSites: validate(ignoredCallSitesSchema, patternsOf(values.ignoredCallSites)),
  };
}

/** The form's text as the policy it sets. */
const patchOf = (values: FormValues) => ({
  comparisonBranch: values.comparisonBranch.trim(),
  costRegressionPct: numberOf(values.costRegressionPct),
  minCost: numberOf(values.minCost),
  minSavedPct: numberOf(values.minSavedPct),
  callRatio: numberOf(values.callRatio),
  minCalls: numberOf(values.minCalls),
  conditions: values.conditions,
  ignoredHashes: hashesOf(values.ignoredHashes),
  ignoredCallSites: patternsOf(values.ignoredCallSites),
});

const numeric = { type: 'number', inputMode: 'decimal', step: 'any', min: 0 } as const;

/** The policy's numbers: each field's label, hint and the limits its input allows beyond `numeric`'s. */
const NUMBER_FIELDS: {
  name: 'costRegressionPct' | 'minCost' | 'minSavedPct' | 'callRatio' | 'minCalls';
  label: string;
  hint: string;
  max?: number;
  min?: number;
  step?: number;
}[] = [
  { name: 'costRegressionPct', label: 'Cost regression (%)', hint: "A cost above the baseline's by more than this regresses." },
  { name: 'minCost', label: 'Minimum cost', hint: 'Cheaper queries never count as a regression.' },
  { name: 'minSavedPct', label: 'Minimum saved (%)', hint: 'A new query needs an index when one saves at least this.', max: 100 },
  { name: 'callRatio', label: 'Call ratio', hint: 'A query called at least this many times as often as in the baseline is flagged (N+1).', min: 1 },
  { name: 'minCalls', label: 'Minimum calls', hint: 'Fewer calls than this in the run never count.', step: 1 },
];

interface ThresholdFieldsProps {
  values: FormValues;
  errors: FormErrors;
  set: (name: keyof FormValues) => (value: string) => void;
  field: ReturnType<typeof useMutationForm>['field'];
}

/** The comparison branch and the numbers each finding is measured against. */
function ThresholdFields({ values, errors, set, field }: ThresholdFieldsProps) {
  return (
    <div className="form-grid policy-grid">
      <TextField
        label="Comparison branch"
        {...field('comparisonBranch', values.comparisonBranch, set('comparisonBranch'), errors.comparisonBranch)}
        hint="A run is compared with the latest earlier run of this branch."
        autoComplete="off"
        spellCheck={false}
      />
      {NUMBER_FIELDS.map(({ name, label, hint, ...limits }) => (
        <TextField key={name} label={label} {...field(name, values[name], set(name), errors[name])} hint={hint} {...numeric} {...limits} />
      ))}
    </div>
  );
}

interface ConditionFieldsProps {
  conditions: Record<FindingKind, ConditionMode>;
  onChange: (kind: FindingKind) => (value: string) => void;
  error: string | undefined;
}

/** Whether each kind of finding fails the run, warns, or is off. */
function ConditionFields({ conditions, onChange, error }: ConditionFieldsProps) {
  return (
    <fieldset className="policy-conditions">
      <legend>What each finding does</legend>
      <div className="form-grid policy-grid">
        {FINDING_KINDS.map((kind) => (
          <SelectField
            key={kind}
            label={KIND_LABELS[kind].label}
            value={conditions[kind]}
            onChange={onChange(kind)}
            options={MODE_OPTIONS}
            title={KIND_LABELS[kind].explain}
          />
        ))}
      </div>
      <FormError>{error}</FormError>
    </fieldset>
  );
}

/** `readOnly`: the caller may read the policy but not change it (not an owner): the same form, disabled. */
function PolicyForm({ envId, policy, readOnly }: { envId: string; policy: Policy; readOnly: boolean }) {
  const utils = trpc.useUtils();
  const [values, setValues] = useState(() => valuesOf(policy));
  const [saved, setSaved] = useState(false);
  const update = trpc.policy.update.useMutation({
    onSuccess: async (next) => {
      utils.policy.get.setData({ id: envId }, next);
      setValues(valuesOf(next));
      setSaved(true);
      form.clear();
      // verdicts are computed when read, with the policy of that moment
      await Promise.all([utils.ci.verdict.invalidate(), utils.ci.list.invalidate()]);
    },
  });
  const form = useMutationForm(update);
  const set = (name: keyof FormValues) => (value: string) => {
    setValues((current) => ({ ...current, [name]: value }));
    setSaved(false);
  };
  const setCondition = (kind: FindingKind) => (value: string) => {
    setValues((current) => ({ ...current, conditions: { ...current.conditions, [kind]: value as ConditionMode } }));
    setSaved(false);
    update.reset();
  };

  const errors = errorsOf(values);
  const onSubmit = form.submit(
    Object.values(errors).every((e) => !e),
    () => update.mutate({ id: envId, ...patchOf(values) }),
  );
  return (
    <form className="form" onSubmit={onSubmit} noValidate aria-label="Policy">
      <fieldset className="plain-fieldset form" disabled={readOnly}>
        <ThresholdFields values={values} errors={errors} set={set} field={form.field} />
        <ConditionFields conditions={values.conditions} onChange={setCondition} error={form.serverError('conditions')} />
        <TextAreaField
          label="Ignored queries"
          {...form.field('ignoredHashes', values.ignoredHashes, set('ignoredHashes'), errors.ignoredHashes)}
          hint="Query hashes (16 hexadecimal digits), one per line: they never produce a finding."
          rows={3}
          monospace
          spellCheck={false}
          placeholder="a1b2c3d4e5f60718"
        />
        <TextAreaField
          label="Ignored call sites"
          {...form.field('ignoredCallSites', values.ignoredCallSites, set('ignoredCallSites'), errors.ignoredCallSites)}
          hint="File patterns, one per line (** any folders, * within one): queries called only from matching files never produce a finding."
          rows={3}
          monospace
          spellCheck={false}
          placeholder={'spec/**\n**/fixtures/**'}
        />
      </fieldset>
      {readOnly ? null : (
        <>
          <FormError>{form.formError}</FormError>
          <div className="form-actions">
            <SubmitButton pending={update.isPending} label="Save policy" pendingLabel="Saving…" />
            <span role="status" className="muted small">
              {saved ? 'Policy saved.' : ''}
            </span>
          </div>
        </>
      )}
    </form>
  );
}

export function PolicySection({ envId }: { envId: string }) {
  const policy = trpc.policy.get.useQuery({ id: envId }, { retry: retryUnlessNotFound });
  // a run's verdict links here (#policy); the section renders after the page loaded, so the
  // browser cannot have scrolled to it by itself
  const { hash } = useLocation();
  const loaded = policy.data !== undefined;
  const { role, can } = useEnvAccess(envId);
  useEffect(() => {
    if (hash === '#policy' && loaded) document.getElementById('policy')?.scrollIntoView?.();
  }, [hash, loaded]);
  return (
    <Card id="policy-heading" title="Policy" sectionId="policy">
      <p className="muted">
        How each CI run of the linked repositories is judged: its queries are planned against production and compared with a baseline run; a finding that fails
        makes the run&apos;s verdict fail.
      </p>
      {policy.isPending ? (
        <Loading label="Loading the policy…" />
      ) : policy.isError ? (
        <ErrorState title="The policy could not be loaded" error={policy.error} onRetry={() => policy.refetch()} />
      ) : (
        <>
          <PolicyForm envId={envId} policy={policy.data} readOnly={!can('owner')} />
          {can('owner') ? null : <RoleNote needed="owner" role={role} action="change the policy" />}
        </>
      )}
    </Card>
  );
}
