import { writeSync } from 'node:fs';
import { afterEach, beforeEach } from 'vitest';
const t0 = Date.now();
beforeEach((ctx) => { writeSync(2, `START ${Date.now() - t0} ${ctx.task.name}\n`); });
afterEach((ctx) => { writeSync(2, `END ${Date.now() - t0} ${ctx.task.result?.state} ${ctx.task.name} ${ctx.task.result?.errors?.[0]?.message ?? ''}\n`); });
