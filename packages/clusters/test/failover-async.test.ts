import { failoverRuns } from './failover/cases.js';

await failoverRuns('async', [
  { driver: 'pg', reach: 'relay', form: 'lease', failure: 'killed' },
  { driver: 'pg', reach: 'relay', form: 'rowlock', failure: 'killed' },
  { driver: 'postgres.js', reach: 'hosts', form: 'lease', failure: 'killed' },
  { driver: 'postgres.js', reach: 'hosts', form: 'rowlock', failure: 'killed' },
  { driver: 'pg', reach: 'relay', form: 'lease', failure: 'demoted' },
  { driver: 'pg', reach: 'relay', form: 'rowlock', failure: 'demoted' },
  { driver: 'pg', reach: 'relay', form: 'transactional', failure: 'demoted' },
  { driver: 'postgres.js', reach: 'hosts', form: 'lease', failure: 'demoted' },
  { driver: 'postgres.js', reach: 'hosts', form: 'rowlock', failure: 'demoted' },
  { driver: 'postgres.js', reach: 'hosts', form: 'transactional', failure: 'demoted' },
]);
