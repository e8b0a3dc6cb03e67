export * from './errors.js';
export * from './description.js';
export * from './driver.js';
export * from './dialect.js';
