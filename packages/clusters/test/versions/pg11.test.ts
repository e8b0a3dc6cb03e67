import { versionSuite } from './suite.js';

// The oldest line the README promises: the whole suite.
await versionSuite(11, { postgresJs: true });
