import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * CSRF protection for the dashboard's POST actions, in two independent layers:
 *
 * 1. Same origin: the browser's `Origin` header (else `Sec-Fetch-Site: same-origin`, else the
 *    `Referer`) must name this host, or one of the allowed origins. A form posted from another
 *    site fails here.
 * 2. A token, double-submitted: a GET sets an HttpOnly, SameSite=Strict cookie holding
 *    `<nonce>.<HMAC(secret, nonce)>` and every form carries the same value in a hidden field. A POST
 *    needs both, equal, with a signature this process (or one sharing its secret) made; another
 *    site can neither read the cookie nor mint a value that verifies.
 */
export class Csrf {
  private readonly key: Buffer;

  constructor(secret: string | undefined) {
    this.key = secret === undefined ? randomBytes(32) : Buffer.from(secret, 'utf8');
  }

  /** A fresh signed token. */
  issue(): string {
    const nonce = randomBytes(18).toString('base64url');
    return `${nonce}.${this.sign(nonce)}`;
  }

  /** Whether `token` is one this key signed. */
  valid(token: string | undefined): token is string {
    if (token === undefined) return false;
    const dot = token.indexOf('.');
    if (dot <= 0) return false;
    return same(token.slice(dot + 1), this.sign(token.slice(0, dot)));
  }

  /** Whether the cookie's token is valid and the form carries the same one. */
  check(cookie: string | undefined, form: string | undefined): boolean {
    return this.valid(cookie) && form !== undefined && same(cookie, form);
  }

  private sign(nonce: string): string {
    return createHmac('sha256', this.key).update(nonce).digest('base64url');
  }
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Whether a POST comes from a page of this origin: its `Origin` (or, without one,
 * `Sec-Fetch-Site`, then `Referer`) names the request's `Host` or one of `allowed` (full origins
 * such as `https://ops.example.com`, for a proxy that rewrites `Host`).
 */
export function sameOrigin(
  header: (name: string) => string | undefined,
  allowed: ReadonlySet<string>,
): boolean {
  const host = header('host');
  const matches = (value: string): boolean => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return false;
    }
    return allowed.has(url.origin) || (host !== undefined && url.host === host.toLowerCase());
  };
  const origin = header('origin');
  if (origin !== undefined && origin !== 'null') return matches(origin);
  if (origin === 'null') return false;
  const site = header('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin';
  const referer = header('referer');
  return referer !== undefined && matches(referer);
}
