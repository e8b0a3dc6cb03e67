import type { Connection, QueryResult, Row, StepRecord, StepsOps } from '@sqlinbox/core';
import type { Statement } from './params.js';
import type { QueueStatements } from './statements.js';

/** What the steps' runner needs of a {@link SqlTable}: its statements and how it runs one. */
export interface StepsRunner {
  readonly sql: QueueStatements;
  run(conn: Connection, st: Statement): Promise<QueryResult<Row>>;
}

/** Rows per delete of the orphan sweep. */
const ROWS = 200;

/** The steps table's statements run on a connection (`TableOps.steps`). */
export function stepsOps(r: StepsRunner): StepsOps {
  const st = () => r.sql.steps;
  return {
    async readSteps(conn, key): Promise<StepRecord[]> {
      const res = await r.run(conn, st().readSteps(key));
      return res.rows.map((row) => ({ name: String(row.step_name), result: row.result }));
    },
    async writeStep(conn, key, name, result): Promise<void> {
      await r.run(conn, st().writeStep(key, name, result));
    },
    async deleteSteps(conn, table, queue, rowIds): Promise<number> {
      if (rowIds.length === 0) return 0;
      return (await r.run(conn, st().deleteSteps(table, queue, rowIds))).rowCount;
    },
    async stepRows(conn, table, queue, limit, after) {
      const res = await r.run(conn, st().stepRows(table, queue, limit, after));
      return res.rows.map((row) => ({ rowId: String(row.row_id), lastMs: String(row.last_ms) }));
    },
    async deleteStepsUpTo(conn, table, queue, rows): Promise<number> {
      let took = 0;
      // Two values a row: SQL Server binds at most 2,100 a statement.
      for (let i = 0; i < rows.length; i += ROWS)
        took += (await r.run(conn, st().deleteStepsUpTo(table, queue, rows.slice(i, i + ROWS)))).rowCount;
      return took;
    },
  };
}
