/** Shared by the unit tests: a fresh container per test, attached so focus works. */

import { afterEach } from 'vitest';

import { ApprovalRequest, Reply } from '../src/protocol';

export function host(): HTMLElement {
  const node = document.createElement('div');
  document.body.appendChild(node);
  return node;
}

afterEach(() => {
  document.body.replaceChildren();
});

export function request(extra: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    id: 'r1',
    call_id: 'c1',
    tool: 'Bash',
    summary: 'run the tests',
    reason: 'Bash needs approval in default mode',
    suggested_rule: 'Bash(pytest:*)',
    ...extra
  };
}

export function reply(ok: boolean, error: string | null = null): Reply {
  return { v: 1, kind: 'reply', id: 'q1', ok, error };
}

/** The text of every element matching `selector` under `root`. */
export function texts(root: ParentNode, selector: string): string[] {
  return Array.from(root.querySelectorAll(selector)).map(n => n.textContent ?? '');
}

/** Let pending promise callbacks run. */
export async function flush(): Promise<void> {
  await new Promise(resolve => setTimeout(resolve, 0));
}
