import { auditTree } from '../../audit/audit-tree.js';
import { complain, type CommandIO } from '../command-io.js';
import { EXIT } from '../exit-codes.js';
import { formatAudit } from '../format-audit.js';
import { colorsFor } from '../format.js';
import { openCommandStore } from '../store-target.js';

export interface AuditFlags {
  readonly store?: string;
  readonly json?: boolean;
}

/** `dualloop audit <runId>`: the stop tree, readable or (`--json`) as an AuditReport, the runs it delegated to nested in it (`auditTree`). */
export async function auditCommand(runId: string, flags: AuditFlags, io: CommandIO): Promise<number> {
  const opened = await openCommandStore({ flag: flags.store, create: false }, io);
  if (opened === undefined) return EXIT.usage;
  try {
    const report = await auditTree(opened.store, runId);
    if (report === undefined) {
      complain(io, `no run ${runId} in ${opened.where}`);
      return EXIT.usage;
    }
    io.stdout.write(flags.json === true ? `${JSON.stringify(report, null, 2)}\n` : `${formatAudit(report, colorsFor(io.stdout))}\n`);
    return EXIT.completed;
  } finally {
    await opened.close();
  }
}
