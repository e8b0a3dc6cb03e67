import { versionSuite } from './suite.js';

// A line between the oldest and the newest: the contract, the lease and row lock forms.
await versionSuite(12, { forms: ['lease', 'rowlock'] });
