import { failoverRuns } from './failover/cases.js';

await failoverRuns('sync', [
  { driver: 'pg', reach: 'relay', form: 'lease', failure: 'killed' },
  { driver: 'pg', reach: 'relay', form: 'rowlock', failure: 'killed' },
  { driver: 'pg', reach: 'relay', form: 'transactional', failure: 'killed' },
  { driver: 'postgres.js', reach: 'hosts', form: 'lease', failure: 'killed' },
  { driver: 'postgres.js', reach: 'hosts', form: 'rowlock', failure: 'killed' },
  { driver: 'postgres.js', reach: 'hosts', form: 'transactional', failure: 'killed' },
  { driver: 'postgres.js', reach: 'relay', form: 'lease', failure: 'killed' },
]);
