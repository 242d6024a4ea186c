/**
 * JupyterLab's rendermime as the component library's markdown renderer (`ui/markdown.ts`):
 * untrusted, so the sanitiser runs, exactly as for a markdown cell's output.
 */

import { IRenderMimeRegistry, MimeModel } from '@jupyterlab/rendermime';

import { IMarkdown } from './ui/markdown';

const MARKDOWN = 'text/markdown';

export function rendermimeMarkdown(rendermime: IRenderMimeRegistry): IMarkdown {
  return {
    block(host: HTMLElement) {
      if (!rendermime.preferredMimeType({ [MARKDOWN]: '' }, 'any')) {
        return null;
      }
      const renderer = rendermime.createRenderer(MARKDOWN);
      host.replaceChildren(renderer.node);
      return (source: string) =>
        renderer.renderModel(new MimeModel({ data: { [MARKDOWN]: source }, trusted: false }));
    }
  };
}
