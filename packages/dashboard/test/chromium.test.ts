import { TargetUnavailableError } from '@sqlinbox/conformance/resolve';
import { describe, expect, test } from 'vitest';
import { resolveChromium } from './chromium.js';

const none = () => false;
const only = (path: string) => (p: string) => p === path;

describe('where the browser tests find Chromium (pure)', () => {
  test('R-USER-7 without Chromium and without CI the browser tests skip, saying what is missing and how to get it', () => {
    const t = resolveChromium({}, none);
    expect(t).toEqual({
      skip: 'no Chromium at /usr/bin/chromium: install it (apt-get install -y chromium) or set SQLINBOX_CHROMIUM to a Chromium executable',
    });
    expect(resolveChromium({ CI: 'false' }, none)).toHaveProperty('skip');
    expect(resolveChromium({ CI: '0' }, none)).toHaveProperty('skip');
    expect(resolveChromium({ SQLINBOX_CHROMIUM: '/nowhere/chrome' }, none)).toEqual({
      skip: 'no executable Chromium at /nowhere/chrome (SQLINBOX_CHROMIUM)',
    });
  });

  test('R-USER-7 under CI a missing Chromium fails the run, unless chromium is an optional target', () => {
    expect(() => resolveChromium({ CI: 'true' }, none)).toThrow(TargetUnavailableError);
    expect(() => resolveChromium({ CI: 'true', SQLINBOX_CHROMIUM: '/nowhere/chrome' }, none)).toThrow(
      /Chromium: no server for a run that requires one \(CI\): no executable Chromium at \/nowhere\/chrome/,
    );
    expect(resolveChromium({ CI: 'true', SQLINBOX_OPTIONAL_TARGETS: 'mssql,chromium' }, none)).toHaveProperty(
      'skip',
    );
  });

  test('R-USER-7 a Chromium that is there is launched: SQLINBOX_CHROMIUM first, else /usr/bin/chromium', () => {
    expect(resolveChromium({ CI: 'true' }, only('/usr/bin/chromium'))).toEqual({ path: '/usr/bin/chromium' });
    expect(resolveChromium({ SQLINBOX_CHROMIUM: '/opt/chrome' }, only('/opt/chrome'))).toEqual({
      path: '/opt/chrome',
    });
  });
});
