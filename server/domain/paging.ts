/** One page of a list and how many items match in all (REST answers the total in X-Total-Count). */
export interface Page<T> {
  rows: T[];
  total: number;
}
