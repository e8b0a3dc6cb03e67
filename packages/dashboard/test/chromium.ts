/**
 * Where the browser tests find Chromium: `SQLINBOX_CHROMIUM`, else Debian's `/usr/bin/chromium`
 * (`apt-get install -y chromium`). None there: the browser tests are skipped and the run says why,
 * as for a missing server, except under CI (`CI=true`), where a missing Chromium fails the run
 * unless `chromium` is in `SQLINBOX_OPTIONAL_TARGETS`.
 */
import { accessSync, constants } from 'node:fs';
import { isCi, optionalTargets, TargetUnavailableError } from '@sqlinbox/conformance/resolve';

/** The browser to launch, or why there is none to launch. */
export type ChromiumTarget = { readonly path: string } | { readonly skip: string };

/** Whether a file is there and executable. */
export function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves Chromium as described above (pure but for `found`, which tells whether a path is an
 * executable). Throws `TargetUnavailableError` under CI when there is none.
 */
export function resolveChromium(
  env: NodeJS.ProcessEnv = process.env,
  found: (path: string) => boolean = executable,
): ChromiumTarget {
  const given = env.SQLINBOX_CHROMIUM;
  const path = given || '/usr/bin/chromium';
  if (found(path)) return { path };
  const reason = given
    ? `no executable Chromium at ${path} (SQLINBOX_CHROMIUM)`
    : `no Chromium at ${path}: install it (apt-get install -y chromium) or set SQLINBOX_CHROMIUM to a Chromium executable`;
  if (isCi(env) && !optionalTargets(env).has('chromium'))
    throw new TargetUnavailableError('Chromium', reason);
  return { skip: reason };
}
