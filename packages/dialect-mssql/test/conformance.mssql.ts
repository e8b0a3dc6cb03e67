import { runConformance } from '@sqlinbox/conformance';
import { mssqlTarget } from './target.js';

await runConformance(mssqlTarget());
