import { runPartition } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { NO_SERVER, pgTarget, postgresJsTarget } from './targets.js';

// A broker in a network namespace of its own, its link to the server cut and slowed. Needs root
// and iproute2 (`ip netns`, `tc`): where a namespace cannot be made these tests fail.
const serverPort = Number(
  new URL(process.env.SQLINBOX_PG_URL ?? 'postgres://127.0.0.1:5432/test').port || 5432,
);
for (const target of [pgTarget(), postgresJsTarget()]) {
  afterAll(() => target.close?.());
  if (NO_SERVER === undefined) await runPartition(target, { serverPort });
}
