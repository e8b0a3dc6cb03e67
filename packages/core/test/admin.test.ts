import { describe, expect, test } from 'vitest';
import { instant, previewOf } from '../src/admin.js';

describe('admin row fields', () => {
  test('R-ADM-2 a payload preview is its first n characters: text as is, bytes as UTF-8, JSON as text', () => {
    expect(previewOf('héllo wörld', 5)).toEqual({ preview: 'héllo', truncated: true });
    expect(previewOf(new TextEncoder().encode('✓ok'), 2)).toEqual({ preview: '✓o', truncated: true });
    expect(previewOf({ a: 1, big: 2n }, 100)).toEqual({ preview: '{"a":1,"big":"2"}', truncated: false });
    expect(previewOf(null, 10)).toEqual({ preview: '', truncated: false });
  });

  test('R-ADM-2 an instant column reads from a Date, epoch milliseconds or UTC text', () => {
    const at = new Date(Date.UTC(2030, 0, 2, 3, 4, 5, 678));
    expect(instant(at)).toBe(at);
    expect(instant(at.getTime())?.getTime()).toBe(at.getTime());
    expect(instant(BigInt(at.getTime()))?.getTime()).toBe(at.getTime());
    expect(instant('2030-01-02 03:04:05.678')?.getTime()).toBe(at.getTime());
    expect(instant('2030-01-02T03:04:05.678Z')?.getTime()).toBe(at.getTime());
    expect(instant(null)).toBeNull();
    expect(instant('not a time')).toBeNull();
  });
});
