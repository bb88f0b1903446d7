// How often this environment's production is read for its history: the server's default
// (SNAPSHOT_INTERVAL_SECONDS, its name kept for compatibility), an interval of the environment's own, or off. Saved when picked, as
// PATCH /api/env/{id} does; an interval set through the API that is none of these shows as itself.
import { useState } from 'react';
import { useEnvAccess } from '../../hooks/useMe';
import { messageOf } from '../../lib/errors';
import { roleReason } from '../../lib/roles';
import { trpc } from '../../trpc';
import { SelectField } from '../Field';

const DEFAULT = 'default';
const CHOICES = [
  { value: DEFAULT, label: "Server's default" },
  { value: '60', label: 'Every minute' },
  { value: '300', label: 'Every 5 minutes' },
  { value: '600', label: 'Every 10 minutes' },
  { value: '3600', label: 'Every hour' },
  { value: '0', label: 'Off' },
] as const;

const choiceOf = (seconds: number | null) => (seconds === null ? DEFAULT : String(seconds));

/** "10 min", "2 h", "45 s". */
function intervalText(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** `seconds` is the environment's own interval (null: the server's default), `effectiveSeconds` the one in effect. */
export function ReadingInterval({ envId, seconds, effectiveSeconds }: { envId: string; seconds: number | null; effectiveSeconds: number }) {
  const utils = trpc.useUtils();
  // the pick shows at once; the environment's saved value takes over once it is read again
  const [picked, setPicked] = useState<string>();
  const update = trpc.env.update.useMutation({
    onSuccess: async () => {
      await utils.env.get.invalidate({ id: envId });
      setPicked(undefined);
    },
    onError: () => setPicked(undefined),
  });
  const value = picked ?? choiceOf(seconds);
  const { role, can } = useEnvAccess(envId);
  // the server's default is known when the environment follows it
  const choices = CHOICES.map((choice) =>
    choice.value === DEFAULT && seconds === null ? { ...choice, label: `Server's default (every ${intervalText(effectiveSeconds)})` } : choice,
  );
  const custom = { value, label: `Every ${intervalText(Number(value))}` };
  const options = choices.some((choice) => choice.value === value) ? choices : [...choices, custom];
  const pick = (next: string) => {
    setPicked(next);
    update.mutate({ id: envId, snapshotIntervalSeconds: next === DEFAULT ? null : Number(next) });
  };
  return (
    <SelectField
      label="Readings"
      value={value}
      onChange={pick}
      options={options}
      disabled={update.isPending || !can('editor')}
      error={update.error ? messageOf(update.error) : undefined}
      hint={can('editor') ? undefined : roleReason('editor', 'change how often production is read', role)}
    />
  );
}
