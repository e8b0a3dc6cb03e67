/** What a PostgreSQL connection string must look like (pg and postgres.js read the same URLs). */
export const PG_URL = {
  option: 'connectionString',
  schemes: ['postgres', 'postgresql'],
  example: 'postgres://user:password@localhost:5432/app',
  socketPath: true,
} as const;
