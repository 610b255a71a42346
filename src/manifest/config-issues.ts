/**
 * The kernel's own checks (`createKernel`, `normalizeTasks`) throw one ConfigError naming every bad
 * field by its option path (`tasks.2.dependsOn.0`); a manifest reports them as its problems, each
 * on the line of the field it came from.
 */
import { isDualloopError, type ConfigIssue } from '../errors.js';
import { withLine, type SourceIssue, type YamlSource } from './yaml-source.js';

/** The ConfigError issues `action` throws, or none. */
export function configIssues(action: () => unknown): readonly ConfigIssue[] {
  try {
    action();
    return [];
  } catch (error) {
    if (isDualloopError(error, 'config_invalid')) return error.issues;
    throw error;
  }
}

/** An option path's issue on its manifest line. */
export function kernelIssue(source: YamlSource, path: string, message: string): SourceIssue {
  const segments = path.split('.').filter((segment) => segment !== '');
  // Tools come from the module or the built-ins; point problems with them at the tools block.
  return withLine(source, segments[0] === 'tools' ? ['tools'] : segments, message);
}
