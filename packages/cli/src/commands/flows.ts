/** `flow <id>`: a flow as a tree, each node with its state. */
import { type FlowNode, Flows } from '@sqlinbox/core';
import { type Commands, EXIT, idOf, json } from '../base.js';
import { one, readConfig } from '../config.js';

/** `flow <id>`. */
export const flowCommands: Commands = (cli, host) => {
  const { io } = host;
  cli
    .command(
      'flow <id>',
      "A flow as a tree from the row given: each job's name, id and state (waiting for its children, ready, delayed, in work, done, dead), its edge to the job above it, and the children a parent still waits for (the queue's config names flows)",
    )
    .option('--flows [table]', 'With --table: the flow tables the queue keeps (default sqlinbox_flow)')
    .action((id: string) => {
      host.run(async () => {
        const flags = host.flags();
        const config = readConfig(flags.config);
        const { table, deadLetter } = one(flags, config, 'flow');
        await host.open(config);
        const tree = await new Flows(host.adapter()!).tree(table, idOf(String(id)), { deadLetter });
        if (flags.json) io.out(json(tree));
        else for (const line of treeLines(tree)) io.out(line);
        return tree.state === 'missing' ? EXIT.failed : EXIT.ok;
      });
    });
};

/** A tree as lines: each node under its parent, indented, with its state. */
export function treeLines(node: FlowNode, depth = 0): string[] {
  const parts = [
    `${'  '.repeat(depth)}${node.name === '' ? '(root)' : node.name}`,
    `#${node.id}`,
    node.state,
  ];
  if (node.edge !== undefined) parts.push(`edge=${node.edge}`);
  if (node.pending !== undefined && node.pending > 0) parts.push(`waiting-for=${node.pending}`);
  return [parts.join('  '), ...node.children.flatMap((c) => treeLines(c, depth + 1))];
}
