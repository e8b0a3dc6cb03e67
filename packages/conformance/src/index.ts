export type { ConformanceTarget, OpenAdapter, OpenOptions } from './target.js';
