/**
 * A publish's own insert is tried again after a deadlock, a serialization failure or a lock wait
 * timeout (each means nothing of it was committed), never after another kind of error and never
 * inside the caller's transaction. The table's statements are scripted (./scripted.ts): what the
 * database would answer is the test's to say.
 */
import { describe, expect, test } from 'vitest';
import { inbox, PublishError } from '../src/index.js';
import { silentLogger } from '../src/logger.js';
import { PUBLISH_RETRIES, Publisher } from '../src/publish.js';
import { scripted } from './scripted.js';

const jobs = inbox({ table: 'jobs', id: { column: 'id', generated: true }, payload: 'payload' });

function publisher(s: ReturnType<typeof scripted>): Publisher {
  const adapter = { dialect: s.dialect, pool: s.pool } as never;
  return new Publisher(adapter, { dialect: s.dialect, pool: s.pool }, silentLogger, () => {});
}

const inserts = (s: ReturnType<typeof scripted>) => s.calls.filter((c) => c.startsWith('insert'));

describe("R-PUB-1 a publish that met another session's locks is tried again", () => {
  test('R-PUB-1 a deadlock, then the insert goes in: the ids of the second try, on the same connection', async () => {
    const s = scripted({ insert: [new Error('deadlock found'), [7]] }, { kind: 'deadlock' });
    expect(await publisher(s).publishMany(jobs, [{ n: 1 }], {})).toEqual([7]);
    expect(inserts(s)).toEqual(['insert@c1', 'insert@c1']);
    expect(s.pool.out).toBe(0);
  });

  for (const kind of ['serialization', 'lock_timeout'] as const)
    test(`R-PUB-1 a ${kind} error is tried again too`, async () => {
      const s = scripted({ insert: [new Error(kind), [8]] }, { kind });
      expect(await publisher(s).publishMany(jobs, [{ n: 1 }], {})).toEqual([8]);
      expect(inserts(s)).toHaveLength(2);
    });

  test(`R-PUB-1 at most ${PUBLISH_RETRIES} more tries: then the error, as a PublishError naming the table`, async () => {
    const s = scripted(
      { insert: Array.from({ length: PUBLISH_RETRIES + 2 }, () => new Error('deadlock found')) },
      { kind: 'deadlock' },
    );
    const err = await publisher(s)
      .publishMany(jobs, [{ n: 1 }], {})
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PublishError);
    expect(err).toMatchObject({ table: 'jobs' });
    expect(inserts(s)).toHaveLength(PUBLISH_RETRIES + 1);
    expect(s.pool.out).toBe(0);
  });

  test('R-PUB-1 a lost connection is never tried again: the insert may have committed', async () => {
    const s = scripted({ insert: [new Error('connection reset'), [9]] }, { kind: 'connection' });
    await expect(publisher(s).publishMany(jobs, [{ n: 1 }], {})).rejects.toBeInstanceOf(PublishError);
    expect(inserts(s)).toHaveLength(1);
  });

  test("R-PUB-1 inside the caller's transaction nothing is tried again: the database rolled that transaction back", async () => {
    const s = scripted({ insert: [new Error('deadlock found'), [9]] }, { kind: 'deadlock' });
    const tx = await s.pool.acquire();
    await expect(publisher(s).publishMany(jobs, [{ n: 1 }], { tx })).rejects.toBeInstanceOf(PublishError);
    expect(inserts(s)).toEqual([`insert@${tx.id}`]);
    s.pool.release(tx);
  });
});
