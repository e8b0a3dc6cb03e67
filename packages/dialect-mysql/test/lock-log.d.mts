import type { Adapter } from '@sqlinbox/core';

/** The environment variable naming the file a target's adapters append their lock keys to. */
export declare const LOCK_LOG_ENV: string;
/** Wraps an adapter so every advisory lock it takes is first recorded in `file`. */
export declare function recordLocks<A extends Adapter>(adapter: A, file?: string): A;
