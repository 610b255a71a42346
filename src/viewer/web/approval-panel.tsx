import { useState } from 'preact/hooks';
import type { ApprovalAnswer } from '../../contracts/policy.js';
import type { WaitingApproval } from '../model/waiting-approvals.js';

interface Props {
  readonly approvals: readonly WaitingApproval[];
  /** Sends an answer; `undefined` when the viewer's control does not answer approvals (the forms show disabled). */
  readonly onAnswer: ((approvalId: string, answer: ApprovalAnswer) => Promise<void>) | undefined;
  /** Opens another run (a delegated run whose approval this one waits on). */
  readonly onOpenRun: (runId: string) => void;
}

const DISABLED = 'start the viewer with control enabled (dualloop view --control) to answer approvals';

/** A parked run's approvals, each with the call's arguments in an editable field: approve (as edited) or reject (with a message for the model). */
export function ApprovalPanel({ approvals, onAnswer, onOpenRun }: Props) {
  if (approvals.length === 0) return null;
  return (
    <section class="approvals">
      <h2>
        awaiting approval <small>answers apply when the run is resumed</small>
      </h2>
      {approvals.map((approval) =>
        approval.childRunId === undefined ? (
          <ApprovalForm key={approval.approvalId} approval={approval} onAnswer={onAnswer} />
        ) : (
          <p key={approval.approvalId} class="approval" data-approval-id={approval.approvalId}>
            tool <b>{approval.toolName}</b> waits on delegated run{' '}
            <button type="button" class="link" onClick={() => onOpenRun(approval.childRunId!)}>
              {approval.childRunId}
            </button>
            : answer its approvals there.
          </p>
        ),
      )}
    </section>
  );
}

function ApprovalForm({ approval, onAnswer }: { readonly approval: WaitingApproval; readonly onAnswer: Props['onAnswer'] }) {
  const proposed = approval.proposedArgs === undefined ? undefined : JSON.stringify(approval.proposedArgs, null, 2);
  const [args, setArgs] = useState(proposed ?? '');
  const [message, setMessage] = useState('');
  // `pending` while an answer is on its way: the buttons wait and an earlier answer's error is not left on show.
  const [status, setStatus] = useState<{ readonly ok: boolean | 'pending'; readonly text: string } | undefined>(undefined);
  const send = (given: { readonly answer: ApprovalAnswer } | { readonly problem: string }, sent: string) => {
    if ('problem' in given) return setStatus({ ok: false, text: given.problem });
    if (onAnswer === undefined) return;
    setStatus({ ok: 'pending', text: 'sending…' });
    onAnswer(approval.approvalId, given.answer).then(
      () => setStatus({ ok: true, text: `${sent}; it applies when the run is resumed` }),
      (error: unknown) => setStatus({ ok: false, text: error instanceof Error ? error.message : String(error) }),
    );
  };
  const edited = proposed !== undefined && args.trim() !== proposed.trim();
  const approve = () => send(approvalOf(args, edited), edited ? 'approved with the edited arguments' : 'approved');
  const reject = () => send({ answer: message.trim() === '' ? 'reject' : { decision: 'reject', message } }, 'rejected');
  const disabled = onAnswer === undefined || status?.ok === true || status?.ok === 'pending';
  return (
    <form class="approval" data-approval-id={approval.approvalId} onSubmit={(event) => event.preventDefault()}>
      <p>
        <b>{approval.subject === 'tool' ? `tool ${approval.toolName ?? '?'}` : `task ${approval.taskId}`}</b> <span class="detail">({approval.approvalId}): {approval.reason}</span>
      </p>
      {proposed === undefined ? null : (
        <textarea aria-label="arguments" rows={Math.min(12, proposed.split('\n').length + 1)} value={args} disabled={disabled} onInput={(event) => setArgs((event.target as HTMLTextAreaElement).value)} />
      )}
      <div class="approval-actions">
        <button type="button" data-testid="approve" disabled={disabled} title={onAnswer === undefined ? DISABLED : 'run the call with the arguments above'} onClick={approve}>
          approve
        </button>
        <input aria-label="message for the model" placeholder="why not (the model is told)" value={message} disabled={disabled} onInput={(event) => setMessage((event.target as HTMLInputElement).value)} />
        <button type="button" data-testid="reject" disabled={disabled} title={onAnswer === undefined ? DISABLED : 'do not run the call; the model gets the message'} onClick={reject}>
          reject
        </button>
      </div>
      {status === undefined ? null : <p class={status.ok === false ? 'error' : 'approval-sent'} data-testid="approval-status">{status.text}</p>}
    </form>
  );
}

/** The answer for the field's text: a plain approval unless it was edited, else the edit (JSON). */
function approvalOf(text: string, edited: boolean): { readonly answer: ApprovalAnswer } | { readonly problem: string } {
  if (!edited) return { answer: 'approve' };
  try {
    return { answer: { decision: 'approve', args: JSON.parse(text) as unknown } };
  } catch (error) {
    return { problem: `the arguments are not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}
