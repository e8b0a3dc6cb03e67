import { setTimeout as sleep } from 'node:timers/promises';
import { Broker, inbox, Outcome, queue } from '@sqlinbox/core';
import { sqlite } from '@sqlinbox/dialect-sqlite';

// The queue is a table: one row per message.
const emails = inbox({
  table: 'emails',
  id: { column: 'id', generated: true },
  attempt: { column: 'attempt', generated: true },
  lease: 'locked_until',
  payload: 'payload',
});

const adapter = sqlite('tutorial.db');
const broker = new Broker(adapter);
const [command, ...addresses] = process.argv.slice(2);

if (command === 'setup') {
  // Once per database: the table and the index a claim needs.
  for (const sql of adapter.dialect.ddl(emails, { deadLetterTable: 'emails_dead' })) {
    await broker.transaction((tx) => tx.query(sql));
  }
  console.log('created the tables emails and emails_dead');
} else {
  for (const to of addresses) {
    await broker.publish(emails, { to });
    console.log(`published an email to ${to}`);
  }

  const { ready, inWork } = await broker.stats(emails);
  console.log(`in the queue: ${ready} ready, ${inWork} in work`);

  const emailQueue = queue(emails)
    .workers(2) // two emails at a time
    .lease('10s') // a row whose process died comes back after 10 s
    .maxAttempts(5) // a fifth failure moves the row to emails_dead
    .deadLetter({ table: 'emails_dead' });
  broker.subscribe(emailQueue, async (email, ctx) => {
    console.log(`sending to ${email.to} (attempt ${ctx.attempt})`);
    await sleep(3000); // a slow mail server
    console.log(`sent to ${email.to}`);
    return Outcome.ack(); // done: the row is deleted
  });
  await broker.start();

  // Work until the table is empty, then stop.
  for (;;) {
    const { ready, delayed, inWork } = await broker.stats(emails);
    if (ready + delayed + inWork === 0) break;
    await sleep(500);
  }
}

await broker.shutdown();
console.log('done');
