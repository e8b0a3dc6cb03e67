import { ConnectionStringError } from '@sqlinbox/core';
import { describe, expect, test } from 'vitest';
import { pg } from '../src/pg.js';
import { postgresJs } from '../src/postgres.js';

describe('connection strings the adapters make a pool from', () => {
  test('R-USER-4 pg({ connectionString }) refuses "not a url" before any connection, with an example', () => {
    expect(() => pg({ connectionString: 'not a url' })).toThrow(ConnectionStringError);
    expect(() => pg({ connectionString: 'not a url' })).toThrow(
      /connectionString "not a url" is not a connection string: .* Fix: give a URL such as postgres:\/\//,
    );
    expect(() => pg({ connectionString: 'localhost:5432/app' })).toThrow(
      /the scheme localhost: is not postgres:/,
    );
  });

  test('R-USER-4 postgresJs refuses a bad URL, given as a string or as { url }', () => {
    expect(() => postgresJs('not a url')).toThrow(ConnectionStringError);
    expect(() => postgresJs({ url: 'http://db/app' })).toThrow(/url "http:\/\/db\/app" .*scheme http:/);
  });

  test("R-USER-4 a valid URL makes the adapter; its server is the URL's host", async () => {
    const a = pg({ connectionString: 'postgres://u:pw@db.internal:6543/app' });
    expect(a.server).toBe('postgres://db.internal:6543/app');
    await a.close();
  });
});
