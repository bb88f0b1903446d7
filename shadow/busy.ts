// Shadow servers are whole PostgreSQL clusters: each takes memory and a core while it plans. Their
// number is capped; a request that finds every slot taken and the queue full is refused with this
// error (HTTP 503) instead of starting one more.
export class ShadowBusyError extends Error {
  readonly code = 'shadow_busy' as const;
  constructor(message = 'Every shadow planner is busy and the queue is full; try again in a minute.') {
    super(message);
    this.name = 'ShadowBusyError';
  }
}
