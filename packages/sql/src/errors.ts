/**
 * Node's socket error codes: the server is gone or cannot be reached. Every dialect's
 * `classifyError` reads them as `connection`.
 */
export const NODE_SOCKET_ERRORS: readonly string[] = [
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
];
