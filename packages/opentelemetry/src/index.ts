export { type InstrumentOptions, instrument, type Uninstrument } from './instrument.js';
export { ATTR, METRIC, SYSTEM } from './names.js';
