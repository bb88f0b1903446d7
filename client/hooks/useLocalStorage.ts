import { useCallback, useState } from 'react';

function read(key: string, fallback: string): string {
  try {
    return window.localStorage.getItem(key) ?? fallback;
  } catch {
    return fallback; // storage disabled (private mode, policies): behave as if empty
  }
}

/** A string remembered in this browser across visits. */
export function useLocalStorage(key: string, fallback: string): [string, (value: string) => void] {
  const [value, setValue] = useState(() => read(key, fallback));
  const update = useCallback(
    (next: string) => {
      setValue(next);
      try {
        window.localStorage.setItem(key, next);
      } catch {
        // not remembered, still used for this visit
      }
    },
    [key],
  );
  return [value, update];
}
