import { $ } from './page-helpers.js';

/**
 * The script of `raymond diagram --html`'s page, bundled by esbuild into
 * it (scripts/bundle.mjs): shows the clicked state's file. The texts are
 * in the page, so it works offline. The address keeps the shown state
 * (#ID), so a link can point at one state.
 */

const title = $('file-name');
const kind = $('file-kind');
const body = $('file-text');

function show(id: string | undefined): void {
  const source = document.querySelector<HTMLElement>('pre[data-for="' + id + '"]');
  if (!source) return;
  document.querySelectorAll('.node.selected').forEach((n) => n.classList.remove('selected'));
  document.querySelector('.node[data-id="' + id + '"]')!.classList.add('selected');
  title.textContent = source.dataset.file ?? '';
  kind.textContent = source.dataset.kind ?? '';
  body.textContent = source.textContent;
}

document.querySelectorAll<SVGGElement>('.node[data-file]').forEach((node) => {
  const pick = () => {
    show(node.dataset.id);
    history.replaceState(null, '', '#' + node.dataset.id);
  };
  node.addEventListener('click', pick);
  node.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      pick();
    }
  });
});
const wanted = location.hash.slice(1);
show(
  document.querySelector('pre[data-for="' + wanted + '"]') ? wanted : document.body.dataset.entry,
);
