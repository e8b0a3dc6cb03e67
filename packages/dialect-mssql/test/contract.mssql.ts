import { runContract, skipWithoutServer } from '@sqlinbox/conformance';
import { mssqlTarget } from './target.js';

if (skipWithoutServer('SQLINBOX_MSSQL_SKIP') === undefined) await runContract(mssqlTarget());
