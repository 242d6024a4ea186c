import { describe, expect, it, vi } from 'vitest';

import { cellDiff, IReviewCell, lineDiff, TurnReview } from '../src/ui/review';
import { host } from './helpers';

function cell(overrides: Partial<IReviewCell> = {}): IReviewCell {
  return {
    key: 't1:nb.ipynb:c1',
    path: 'nb.ipynb',
    cellId: 'c1',
    before: 'y = 2',
    after: 'y = 20',
    state: 'pending',
    ...overrides
  };
}

describe('cellDiff', () => {
  it('shows a changed line as removed and added, the rest as context', () => {
    expect(lineDiff(['a', 'b', 'c'], ['a', 'B', 'c'])).toEqual([' a', '-b', '+B', ' c']);
  });

  it('names an inserted cell as new and a deleted one as gone', () => {
    const added = cellDiff(null, 'x = 1', 'c9').split('\n');
    expect(added[0]).toBe('--- /dev/null');
    expect(added.slice(3)).toEqual(['+x = 1']);
    const gone = cellDiff('x = 1', null, 'c9').split('\n');
    expect(gone[1]).toBe('+++ /dev/null');
    expect(gone.slice(3)).toEqual(['-x = 1']);
  });
});

describe('TurnReview', () => {
  it('lists each cell with its diff and asks the caller on Accept and Reject', async () => {
    const decide = vi.fn(() => Promise.resolve(null));
    const review = new TurnReview(host(), 't1', { decide });
    review.upsert(cell());
    review.upsert(cell({ key: 't1:nb.ipynb:c2', cellId: 'c2', before: null, after: 'a = 1' }));
    const items = review.node.querySelectorAll('.jp-zengine-review-cell');
    expect(items).toHaveLength(2);
    expect(items[0].querySelector('.jp-zengine-diff')?.textContent).toContain('+y = 20');
    expect(items[1].textContent).toContain('cell c2 · added');
    expect(review.node.textContent).toContain('Notebook cells changed: 2 · 2 to review');

    (items[0].querySelector('.jp-zengine-review-reject') as HTMLButtonElement).click();
    expect(decide).toHaveBeenLastCalledWith(['t1:nb.ipynb:c1'], false);
    (review.node.querySelector('.jp-zengine-review-accept-all') as HTMLButtonElement).click();
    expect(decide).toHaveBeenLastCalledWith(['t1:nb.ipynb:c1', 't1:nb.ipynb:c2'], true);
    await Promise.resolve();
  });

  it('shows the outcome instead of buttons once decided, and disables the turn buttons', () => {
    const review = new TurnReview(host(), 't1', { decide: () => Promise.resolve(null) });
    review.upsert(cell({ state: 'rejected' }));
    const item = review.node.querySelector('.jp-zengine-review-cell') as HTMLElement;
    expect(item.dataset.state).toBe('rejected');
    expect(item.querySelector('.jp-zengine-review-reject')).toBeNull();
    expect(item.textContent).toContain('Rejected');
    const all = review.node.querySelector('.jp-zengine-review-reject-all') as HTMLButtonElement;
    expect(all.disabled).toBe(true);
    expect(review.node.textContent).toContain('· reviewed');
  });

  it('shows what the caller could not do', async () => {
    const review = new TurnReview(host(), 't1', {
      decide: () => Promise.resolve('nb.ipynb is not open: cell c1 was not put back')
    });
    review.upsert(cell());
    (review.node.querySelector('.jp-zengine-review-reject') as HTMLButtonElement).click();
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(review.node.querySelector('.jp-zengine-review-error')?.textContent).toContain(
      'was not put back'
    );
  });
});
