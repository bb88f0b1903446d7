// Why a request to querytrail or a forge did not get an answer, in a few words: the system's error
// code (ECONNREFUSED, ENOTFOUND, ...) when there is one, else what fetch said.
export function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if ((error as Error).name === 'TimeoutError') return 'no answer in time';
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
