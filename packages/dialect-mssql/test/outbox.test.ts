/**
 * The T-SQL of a relay's claims (R-OUT-1): ids the relay held back are left out of every claim,
 * candidate select and take, each bound. Pure: no statement here reaches a server.
 */
import { expect, test } from 'vitest';
import { advisoryTable, bindsExactly, leaseTable, statements, table } from './helpers.js';

const NOW = new Date(Date.UTC(2030, 0, 1, 12, 0, 0, 123));
const EXPIRY = new Date(NOW.getTime() + 30_000);

test('R-OUT-1 row lock claim of a relay leaves out the held-back ids, bound as one JSON value', () => {
  const held = new Set<unknown>([7, 9]);
  const st = statements(table({ processedAt: 'relayed_at' }), undefined, held).rowLock.claim(1, NOW);
  expect(st.sql).toBe(
    'SELECT TOP (@p2) q.* FROM [jobs] q WITH (UPDLOCK, READPAST, ROWLOCK)' +
      ' WHERE q.[relayed_at] IS NULL AND q.[id] NOT IN (SELECT [value] FROM OPENJSON(@p1)) ORDER BY q.[id]',
  );
  expect(st.params).toEqual(['["7","9"]', 1]);
  expect(bindsExactly(st)).toBe(true);
});

test('R-OUT-1 the set is read at each statement: an id held back later is left out of the next claim', () => {
  const held = new Set<unknown>();
  const s = statements(leaseTable({ processedAt: 'relayed_at' }), undefined, held);
  expect(s.lease.claim(2, NOW, EXPIRY).sql).not.toContain('NOT IN');
  held.add(3);
  const st = s.lease.claim(2, NOW, EXPIRY);
  expect(st.sql).toContain(
    'q.[relayed_at] IS NULL AND (q.[locked_until] IS NULL OR q.[locked_until] <= @p1) AND q.[id] NOT IN (SELECT [value] FROM OPENJSON(@p2))',
  );
  expect(st.params).toContain('["3"]');
  expect(bindsExactly(st)).toBe(true);
});

test('R-OUT-1 advisory candidates and take of a relay leave out the held-back ids', () => {
  const held = new Set<unknown>(['5']);
  const s = statements(advisoryTable({ processedAt: 'relayed_at' }), undefined, held);
  const c = s.advisory.candidates(2, NOW, new Set());
  expect(c.sql).toContain(
    'WHERE q.[relayed_at] IS NULL AND q.[id] NOT IN (SELECT [value] FROM OPENJSON(@p2)) AND APPLOCK_TEST(',
  );
  expect(c.params).toEqual(['jobs-', '["5"]', 'jobs-', 2]);
  expect(bindsExactly(c)).toBe(true);
  const t = s.advisory.take('5', NOW);
  expect(t.sql).toContain('q.[id] NOT IN (');
  expect(bindsExactly(t)).toBe(true);
});

test('R-OUT-1 5,000 held-back ids are one JSON parameter (OPENJSON), within the 2,100 parameters of a request', () => {
  const held = new Set<unknown>(Array.from({ length: 5_000 }, (_, i) => i + 1));
  const lease = statements(leaseTable({ processedAt: 'relayed_at' }), undefined, held);
  const advisory = statements(advisoryTable({ processedAt: 'relayed_at' }), undefined, held);
  const rowLock = statements(table({ processedAt: 'relayed_at' }), undefined, held);
  const all = [
    rowLock.rowLock.claim(10, NOW),
    lease.lease.claim(10, NOW, EXPIRY),
    advisory.advisory.candidates(10, NOW, new Set()),
    advisory.advisory.take(7, NOW),
  ];
  for (const st of all) {
    expect(st.params.length).toBeLessThan(10);
    expect(bindsExactly(st)).toBe(true);
    expect(st.sql).toMatch(/q\.\[id\] NOT IN \(SELECT \[value\] FROM OPENJSON\(@p\d+\)\)/);
    const json = st.params.find((v) => typeof v === 'string' && v.startsWith('['));
    expect(JSON.parse(String(json))).toHaveLength(5_000);
  }
});
