/**
 * The sqlinbox web dashboard: `dashboard(admin, { queues })` answers a request handler for
 * `node:http`, Express and Fastify, with `.fetch` for fetch-style servers such as Hono.
 */
export type { DashboardCredentials } from './auth.js';
export { type Dashboard, type DashboardOptions, type DashboardQueue, dashboard } from './dashboard.js';
export type { BrokerEvents, Sample, Settled } from './sampler.js';
