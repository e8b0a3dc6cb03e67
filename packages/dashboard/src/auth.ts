import { createHash, timingSafeEqual } from 'node:crypto';
import { parse as parseBasic } from 'basic-auth';

/**
 * A login of the dashboard's own, for a dashboard that has no application in front of it (the
 * standalone `sqlinbox dashboard`): HTTP basic authentication for browsers, a bearer token for
 * scripts, or both. Every request must carry one of them, pages included.
 */
export interface DashboardCredentials {
  /** The user name of HTTP basic authentication; given with `password`. Default: no basic login. */
  readonly user?: string | undefined;
  /** The password of HTTP basic authentication; given with `user`. */
  readonly password?: string | undefined;
  /** A token a request may send as `Authorization: Bearer <token>`. Default: none. */
  readonly token?: string | undefined;
}

/** Checks a request's `Authorization` header against the credentials it was made with. */
export class Login {
  private readonly basic: { user: Buffer; password: Buffer } | undefined;
  private readonly token: Buffer | undefined;
  /** The `WWW-Authenticate` header of a refusal. */
  readonly challenge: string;

  constructor(c: DashboardCredentials) {
    const hasUser = c.user !== undefined && c.user !== '';
    const hasPassword = c.password !== undefined && c.password !== '';
    if (hasUser !== hasPassword) {
      throw new TypeError(
        'dashboard credentials: give user and password together (HTTP basic authentication)',
      );
    }
    if (hasUser && c.user!.includes(':')) {
      throw new TypeError('dashboard credentials: a basic-authentication user name cannot hold a colon');
    }
    if (c.token !== undefined && c.token.length < 16) {
      throw new TypeError('dashboard credentials: a bearer token has at least 16 characters');
    }
    if (!hasUser && c.token === undefined) {
      throw new TypeError('dashboard credentials: give a user and password, a token, or both');
    }
    this.basic = hasUser ? { user: digest(c.user!), password: digest(c.password!) } : undefined;
    this.token = c.token === undefined ? undefined : digest(c.token);
    this.challenge =
      this.basic !== undefined ? 'Basic realm="sqlinbox", charset="UTF-8"' : 'Bearer realm="sqlinbox"';
  }

  /** Whether the header carries the user and password, or the token. Compared in constant time. */
  allows(authorization: string | undefined): boolean {
    if (authorization === undefined) return false;
    const bearer = /^bearer +(\S+)\s*$/i.exec(authorization);
    if (bearer !== null) return this.token !== undefined && timingSafeEqual(digest(bearer[1]!), this.token);
    if (this.basic === undefined) return false;
    const given = parseBasic(authorization);
    if (given === undefined) return false;
    // Both compared, always: how far the check got is not to be read from its time.
    const user = timingSafeEqual(digest(given.name), this.basic.user);
    const password = timingSafeEqual(digest(given.pass), this.basic.password);
    return user && password;
  }
}

/** Equal-length digests, so the comparison takes the same time whatever the lengths. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
