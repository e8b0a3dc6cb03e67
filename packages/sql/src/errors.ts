/** Node's socket error codes: the server is gone or cannot be reached. Every driver's `classifyError` reads them as `connection`. */
export const NODE_SOCKET_ERRORS: readonly string[] = [
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
];
