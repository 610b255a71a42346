/**
 * `POST /api/runs/<runId>/approve` with `{ approvalId, answer }` — the viewer's answer to a parked
 * approval (docs/operations.md), for the viewer's own page when it was started with a control
 * that approves (control-request.ts). An answer the control refuses (edited arguments the tool's
 * schema refuses) is a 400 naming the fields; nothing is stored.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApprovalAnswer } from '../contracts/policy.js';
import type { ViewerControl } from './viewer-control.js';
import { readControlRequest, sendControlFailure } from './control-request.js';
import { sendJson, sendText } from './local-http.js';

/** Room for edited arguments and a message; the store keeps what the tool's limits allow anyway. */
const MAX_BODY_BYTES = 65_536;

export async function handleApproveRequest(request: IncomingMessage, response: ServerResponse, runId: string, control: ViewerControl | undefined): Promise<void> {
  if (control !== undefined && control.approve === undefined) return sendText(response, 403, 'this viewer\'s control does not answer approvals');
  const accepted = await readControlRequest(request, response, control, MAX_BODY_BYTES);
  if (accepted === undefined || control?.approve === undefined) return;
  const { approvalId, answer } = (accepted.body ?? {}) as { approvalId?: unknown; answer?: unknown };
  if (typeof approvalId !== 'string' || approvalId === '') return sendText(response, 400, 'the body must name the approval: { approvalId, answer }');
  try {
    return sendJson(response, 200, { approvalId: await control.approve(runId, { approvalId, answer: answer as ApprovalAnswer }) });
  } catch (error) {
    return sendControlFailure(response, error);
  }
}
