/**
 * The built-in tools through the API (docs/builtin-tools.md): the same four a manifest names under
 * `tools.builtin`. The file tools read only below `root`.
 */
import { calculatorTool, currentTimeTool, listFilesTool, readFileTool } from '../src/index.js';

export const builtinTools = [
  calculatorTool(),
  currentTimeTool(),
  readFileTool({ root: 'examples/data', maxBytes: 65_536 }),
  listFilesTool({ root: 'examples/data' }),
];
