import { isRefusal } from './errors';

/** A failed load is tried once more, unless the API said the thing does not exist or the caller may not have it. */
export const retryUnlessNotFound = (failures: number, error: unknown) => !isRefusal(error) && failures < 1;

/** Offset paging: the next page starts after the last one, and there is none once a page comes back short. */
export const nextOffset =
  (pageSize: number) =>
  (lastPage: readonly unknown[], _pages: unknown, lastOffset: number): number | undefined =>
    lastPage.length < pageSize ? undefined : lastOffset + pageSize;
