// The schemas a sync reads, as two pattern fields (include, exclude) checked with the schemas the
// server and the analyzer apply: the same on the onboarding page and on an environment's connections.
import { useState } from 'react';
import { excludeSchemasSchema, includeSchemasSchema } from '../../shared/schema-filters';
import type { useMutationForm } from '../hooks/useMutationForm';
import { validate } from '../lib/errors';
import { PATTERN_HINT, patternsOf } from '../lib/schema-patterns';
import { TextField } from './Field';
import { FieldRow } from './SubForm';

/** The two fields' text, their errors, and the patterns they hold. */
export function useSchemaFilterFields(initial: { include: string; exclude: string } = { include: '', exclude: '' }) {
  const [include, setInclude] = useState(initial.include);
  const [exclude, setExclude] = useState(initial.exclude);
  const includeError = validate(includeSchemasSchema, patternsOf(include));
  const excludeError = validate(excludeSchemasSchema, patternsOf(exclude));
  return {
    include,
    setInclude,
    exclude,
    setExclude,
    includeError,
    excludeError,
    valid: !includeError && !excludeError,
    /** The patterns as the API and the analyzer take them. */
    patterns: () => ({ includeSchemas: patternsOf(include), excludeSchemas: patternsOf(exclude) }),
  };
}

export type SchemaFilterState = ReturnType<typeof useSchemaFilterFields>;

interface SchemaFilterFieldsProps {
  fields: SchemaFilterState;
  /** A form's binding, which also shows the server's errors about the fields; without it, only their own. */
  field?: ReturnType<typeof useMutationForm>['field'];
  /** Side by side (the default) or one below the other. */
  layout?: 'row' | 'stacked';
}

/** The include and exclude patterns of a sync. */
export function SchemaFilterFields({ fields, field, layout = 'row' }: SchemaFilterFieldsProps) {
  const bind = (name: string, value: string, set: (value: string) => void, error: string | undefined) =>
    field ? field(name, value, set, error) : { value, onChange: set, error };
  const inputs = (
    <>
      <TextField
        label="Include schemas"
        {...bind('includeSchemas', fields.include, fields.setInclude, fields.includeError)}
        placeholder="all schemas"
        hint={PATTERN_HINT}
        autoComplete="off"
        spellCheck={false}
      />
      <TextField
        label="Exclude schemas"
        {...bind('excludeSchemas', fields.exclude, fields.setExclude, fields.excludeError)}
        placeholder="none"
        autoComplete="off"
        spellCheck={false}
      />
    </>
  );
  return layout === 'row' ? <FieldRow>{inputs}</FieldRow> : inputs;
}
