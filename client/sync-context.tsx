// The last sync result lives in memory only: it holds real sample rows and query texts from the
// user's database, which have no business in browser storage.
import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import type { SyncView } from './lib/analyzer';

interface SyncState {
  /** A summarized sync from the analyzer (its objects fetched as they are shown), or a whole one (the demo's). */
  result: SyncView;
  /** The database as the user typed it, with its password hidden. */
  target: string;
  receivedAt: string;
}

interface SyncContextValue {
  sync: SyncState | undefined;
  setSync: (sync: SyncState | undefined) => void;
}

const SyncContext = createContext<SyncContextValue | undefined>(undefined);

export function SyncProvider({ children }: { children: ReactNode }) {
  const [sync, setSync] = useState<SyncState>();
  const value = useMemo(() => ({ sync, setSync }), [sync]);
  return <SyncContext.Provider value={value}>{children}</SyncContext.Provider>;
}

export function useSync(): SyncContextValue {
  const value = useContext(SyncContext);
  if (!value) throw new Error('useSync must be used inside SyncProvider');
  return value;
}
