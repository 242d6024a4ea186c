/**
 * Which kernel the panel talks to: the active notebook's. Follows notebook switches, kernel
 * changes, restarts (the same kernel comes back: `sameKernel` true, so the panel keeps its
 * chat) and death, and reports them to the panel through callbacks.
 */

import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { Kernel } from '@jupyterlab/services';

/** What the status line says; also `data-state` on the panel (tests read it). */
export type ConnectionState =
  'no-notebook' | 'no-kernel' | 'connecting' | 'connected' | 'restarting' | 'closed' | 'failed';

export interface IBindingCallbacks {
  notebook(path: string): void;
  state(state: ConnectionState, detail?: string): void;
  /** Connect to `kernel` (null: none); `sameKernel` after a restart of the bound kernel. */
  kernel(kernel: Kernel.IKernelConnection | null, sameKernel: boolean): void;
  restarting(): void;
}

export class KernelBinding {
  constructor(
    private readonly _tracker: INotebookTracker,
    private readonly _cb: IBindingCallbacks
  ) {
    this._tracker.currentChanged.connect(this._onNotebookChanged, this);
    this._cb.state('no-notebook');
    this._onNotebookChanged();
  }

  dispose(): void {
    this._unbind();
    this._tracker.currentChanged.disconnect(this._onNotebookChanged, this);
  }

  private _onNotebookChanged(): void {
    const panel = this._tracker.currentWidget;
    if (panel === this._panel) {
      return;
    }
    this._unbind();
    this._panel = panel;
    if (!panel) {
      this._cb.notebook('');
      this._cb.state('no-notebook');
      return;
    }
    this._cb.notebook(panel.context.path);
    panel.sessionContext.kernelChanged.connect(this._onKernelChanged, this);
    panel.disposed.connect(this._onPanelDisposed, this);
    void panel.sessionContext.ready.then(() => {
      if (this._panel === panel) {
        this._bindKernel(panel.sessionContext.session?.kernel ?? null);
      }
    });
  }

  private _onPanelDisposed(): void {
    this._unbind();
    this._onNotebookChanged();
  }

  private _onKernelChanged(): void {
    this._bindKernel(this._panel?.sessionContext.session?.kernel ?? null);
  }

  private _unbind(): void {
    if (this._panel) {
      this._panel.sessionContext.kernelChanged.disconnect(this._onKernelChanged, this);
      this._panel.disposed.disconnect(this._onPanelDisposed, this);
    }
    this._panel = null;
    this._bindKernel(null);
  }

  private _bindKernel(kernel: Kernel.IKernelConnection | null): void {
    if (kernel === this._kernel && kernel !== null) {
      return;
    }
    this._kernel?.statusChanged.disconnect(this._onKernelStatus, this);
    this._kernel = kernel;
    this._restarting = false;
    if (!kernel) {
      this._cb.kernel(null, false);
      if (this._panel) {
        this._cb.state('no-kernel');
      }
      return;
    }
    kernel.statusChanged.connect(this._onKernelStatus, this);
    this._cb.kernel(kernel, false);
  }

  private _onKernelStatus(kernel: Kernel.IKernelConnection, status: Kernel.Status): void {
    if (kernel !== this._kernel) {
      return;
    }
    if (status === 'dead') {
      this._cb.kernel(null, true);
      this._cb.state('failed', 'the kernel died');
    } else if (status === 'restarting' || status === 'autorestarting') {
      if (!this._restarting) {
        this._restarting = true;
        this._cb.restarting();
        this._cb.kernel(null, true);
        this._cb.state('restarting');
      }
    } else if (status === 'idle' && this._restarting) {
      this._restarting = false;
      this._cb.kernel(kernel, true);
    }
  }

  private _panel: NotebookPanel | null = null;
  private _kernel: Kernel.IKernelConnection | null = null;
  private _restarting = false;
}
