import { versionSuite } from './suite.js';

// The newest line the README promises: the whole suite.
await versionSuite(18, { postgresJs: true });
