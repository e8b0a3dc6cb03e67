import type { Admin, AnyTable, ChangeReport, DeadLetterTarget, Selection } from '@sqlinbox/core';
import type { Notice } from './pages.js';

/** The POST actions of a queue's page, by the last part of their path. */
export const ACTIONS = ['requeue', 'delete', 'run-now', 'cancel', 'pause', 'resume'] as const;
export type Action = (typeof ACTIONS)[number];

export const isAction = (s: string | undefined): s is Action =>
  (ACTIONS as readonly string[]).includes(s ?? '');

/** An action's refusal: the HTTP status and the page's message. */
export class ActionError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** What the action acts on. */
export interface ActionTarget {
  readonly name: string;
  readonly table: AnyTable;
  readonly deadLetter: DeadLetterTarget | undefined;
}

/** What an action did: the redirect's query, and whether to go back to the one row's page. */
export interface ActionResult {
  readonly verb: Notice['verb'];
  readonly report: Pick<ChangeReport, 'changed' | 'skipped'> | undefined;
  /** Cancel: the rows in work whose broker is told to stop them. */
  readonly signalled?: number;
  /** The one row acted on, where its page is where the form came from. */
  readonly row: string | number | undefined;
}

const MAX_GROUP = 255;

/**
 * Runs one action of a queue's page through {@link Admin} (its checks, locks and statements):
 * requeue and delete of selected rows, run now (a delayed row due at once), cancel (a live row
 * leaves, or its running handler is told to stop), pause and resume of the queue or one FIFO group. The caller has checked the method, read-only mode, the origin and
 * the CSRF token.
 */
export async function act(
  admin: Admin,
  qu: ActionTarget,
  action: Action,
  form: URLSearchParams,
  selection: () => Selection,
): Promise<ActionResult> {
  const oneRow = (s: Selection) =>
    form.get('back') === 'row' && 'ids' in s && s.ids.length === 1
      ? (s.ids[0] as string | number)
      : undefined;
  switch (action) {
    case 'requeue': {
      if (qu.deadLetter === undefined) {
        throw new ActionError(400, `the queue ${qu.name} has no dead letter configured`);
      }
      const s = selection();
      return {
        verb: 'requeued',
        report: await admin.requeue(qu.table, s, { deadLetter: qu.deadLetter }),
        row: oneRow(s),
      };
    }
    case 'delete': {
      const dead = form.get('dead') === '1';
      if (dead && qu.deadLetter === undefined) {
        throw new ActionError(400, `the queue ${qu.name} has no dead letter configured`);
      }
      const s = selection();
      if (!dead && !('ids' in s)) throw new ActionError(400, 'live rows are deleted by id only');
      return {
        verb: 'deleted',
        report: await admin.remove(qu.table, s, { deadLetter: qu.deadLetter, dead }),
        row: undefined,
      };
    }
    case 'run-now': {
      if (qu.table.retryAfter === undefined) {
        throw new ActionError(400, `the table ${qu.table.table} has no retryAfter column: no row is delayed`);
      }
      const s = selection();
      if (!('ids' in s)) throw new ActionError(400, 'rows are run now by id only');
      return {
        verb: 'rescheduled',
        report: await admin.reschedule(qu.table, s, new Date(), { deadLetter: qu.deadLetter }),
        row: oneRow(s),
      };
    }
    case 'cancel': {
      if (qu.table.control === undefined) {
        throw new ActionError(
          400,
          `the table ${qu.table.table} declares no control table: add control: true to its description to cancel its rows`,
        );
      }
      const s = selection();
      if (!('ids' in s)) throw new ActionError(400, 'rows are cancelled by id only');
      const report = await admin.cancel(qu.table, s, {
        deadLetter: qu.deadLetter,
        reason: 'cancelled from the dashboard',
      });
      // Back to the row's page only where the row is still there (in work, told to stop).
      const signalled = report.signalled.length;
      return { verb: 'cancelled', report, signalled, row: signalled > 0 ? oneRow(s) : undefined };
    }
    case 'pause':
    case 'resume': {
      if (qu.table.control === undefined) {
        throw new ActionError(
          400,
          `the table ${qu.table.table} declares no control table: add control: true to its description to pause it`,
        );
      }
      const group = (form.get('group') ?? '').trim();
      if (group.length > MAX_GROUP) throw new ActionError(400, `a group has at most ${MAX_GROUP} characters`);
      if (group !== '' && qu.table.group === undefined) {
        throw new ActionError(
          400,
          `the table ${qu.table.table} has no FIFO group column: pause the whole queue`,
        );
      }
      const scope = group === '' ? {} : { group };
      if (action === 'pause') await admin.pause(qu.table, scope);
      else await admin.resume(qu.table, scope);
      return { verb: action === 'pause' ? 'paused' : 'resumed', report: undefined, row: undefined };
    }
  }
}
