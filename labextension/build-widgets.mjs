// Bundles the cell widgets (src/widgets/*.ts, built from the same component library as the
// panel: src/ui/) into one ESM file each for anywidget, plus the shared stylesheet, into
// ../zengine_jupyter/kernel/_widgets/ (shipped in the wheel; the kernel reads them as
// strings: no node at run time). `--dev` keeps them readable.
import { build } from 'esbuild';

const dev = process.argv.includes('--dev');
const outdir = '../zengine_jupyter/kernel/_widgets';

await build({
  entryPoints: {
    turn: 'src/widgets/turn.ts',
    status: 'src/widgets/status.ts',
    rewind: 'src/widgets/rewind.ts',
    setup: 'src/widgets/setup.ts',
    widgets: 'style/widgets.css'
  },
  outdir,
  bundle: true,
  format: 'esm',
  target: 'es2020',
  minify: !dev,
  legalComments: 'none',
  logLevel: 'warning'
});
