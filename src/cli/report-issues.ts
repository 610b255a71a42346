import { formatIssue, type SourceIssue } from '../manifest/yaml-source.js';

/** Prints problems grouped by file, one `path (line N): message` per line. */
export function reportIssues(stderr: NodeJS.WritableStream, issues: readonly SourceIssue[]): void {
  const byFile = new Map<string, SourceIssue[]>();
  for (const issue of issues) byFile.set(issue.file, [...(byFile.get(issue.file) ?? []), issue]);
  for (const [file, fileIssues] of byFile) {
    const count = fileIssues.length === 1 ? '1 problem' : `${fileIssues.length} problems`;
    stderr.write(`${file}: ${count}\n`);
    const sorted = [...fileIssues].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    for (const issue of sorted) stderr.write(`  ${formatIssue(issue)}\n`);
  }
}
