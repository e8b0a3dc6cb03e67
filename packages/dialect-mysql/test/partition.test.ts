import { runPartition } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { DB } from './helpers.js';
import { mariadbTarget, mysql2Target, NO_SERVER } from './targets.js';

// A broker in a network namespace of its own, its link to the server cut and slowed. Needs root
// and iproute2 (`ip netns`, `tc`): where a namespace cannot be made these tests fail.
for (const target of [mysql2Target(), mariadbTarget()]) {
  afterAll(() => target.close?.());
  if (NO_SERVER === undefined) await runPartition(target, { serverPort: DB.port });
}
