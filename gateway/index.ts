// The one way into a user's database. Everything that reads one (the analyzer's sync and analyze,
// production sync, ci-report, the advisor's snapshot) goes through here; a lint rule keeps `pg` out
// of the rest of the code and keeps callers to this file.
export { openGateway, type Gateway, type GatewayOptions, type ReadOnlyTransaction, type ReadOptions, type TransactionOptions, type Attempt } from './gateway';
export { GatewayError, classifyError, messageOf, type GatewayErrorCode } from './errors';
export { MARKER, tag } from './marker';
export { APPLICATION_NAME, DEFAULT_LIMITS, PINNED_SETTINGS, type SessionLimits } from './session-config';
export { escapeIdentifier, escapeLiteral } from './quoting';
export { redactConnectionString } from './redact';
export { COLUMN_STATS_HELPER, columnStatsHelperUsable, readThroughColumnStatsHelper } from './column-stats-helper';
