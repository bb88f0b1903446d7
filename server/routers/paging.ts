import type { Page } from '../domain/paging';
import type { Context } from '../context';

/** A list answers its page's rows; the REST adapter sends the total as the X-Total-Count header. */
export function rowsWithTotal<T>(ctx: Context, { rows, total }: Page<T>): T[] {
  ctx.response.headers['X-Total-Count'] = String(total);
  return rows;
}
