"""The page-side JavaScript of :mod:`zengine_jupyter.testing.ui_checks` (Playwright ``evaluate``
bodies), kept apart so the checks read as Python."""

from __future__ import annotations

__all__ = ["AXE_RUN", "FOCUS_STOPS", "NAMES", "NAME_OF", "OVERFLOWS"]

_HELPERS = r"""
const shown = (node) => {
  const box = node.getBoundingClientRect();
  const style = getComputedStyle(node);
  return box.width > 1 && box.height > 1 && style.visibility !== 'hidden'
    && style.display !== 'none' && !node.closest('[inert]')
    && (!node.checkVisibility || node.checkVisibility({visibilityProperty: true}));
};
const path = (node) => {
  const parts = [];
  for (let n = node; n && n !== document.body && parts.length < 4; n = n.parentElement) {
    let part = n.tagName.toLowerCase();
    if (n.id) { part += '#' + n.id; parts.unshift(part); break; }
    const classes = [...n.classList].filter(c => c.startsWith('jp-zengine')).slice(0, 2);
    const other = [...n.classList].filter(c => !c.startsWith('jp-zengine')).slice(0, 1);
    part += [...classes, ...(classes.length ? [] : other)].map(c => '.' + c).join('');
    parts.unshift(part);
  }
  return parts.join(' > ');
};
const text = (node) => {
  const words = (node.innerText || node.value || node.getAttribute('aria-label') || '')
    .replace(/\s+/g, ' ').trim();
  return words.length > 40 ? words.slice(0, 39) + '…' : words;
};
const describe = (node) => `${path(node)} "${text(node)}"`;
"""

OVERFLOWS = (
    "([selector, tol]) => {"
    + _HELPERS
    + r"""
  const out = [];
  const vw = document.documentElement.clientWidth;
  const scrolls = (style) => /(auto|scroll)/.test(style.overflowX);
  const clips = (style) => style.overflowX !== 'visible';
  const reported = new Set();
  const measure = document.createElement('canvas').getContext('2d');
  for (const root of document.querySelectorAll(selector)) {
    if (!shown(root)) { continue; }
    const rootBox = root.getBoundingClientRect();
    for (const node of [root, ...root.querySelectorAll('*')]) {
      if (node instanceof SVGElement && !(node instanceof SVGSVGElement)) { continue; }
      if (!shown(node)) { continue; }
      const style = getComputedStyle(node);
      const box = node.getBoundingClientRect();
      const up = [];  // ancestors up to the root
      for (let n = node.parentElement; n && root.contains(n); n = n.parentElement) { up.push(n); }
      if (up.some(n => reported.has(n))) { continue; }  // name the outermost offender only
      const scrolled = up.some(n => scrolls(getComputedStyle(n)));
      const where = [];
      const fixed = style.position === 'fixed';
      const container = fixed ? null
        : (style.position === 'absolute' ? node.offsetParent : node.parentElement);
      if (node !== root && container && root.contains(container)
          && !scrolls(getComputedStyle(container))) {
        const c = container.getBoundingClientRect();
        const by = Math.max(box.right - c.right, c.left - box.left);
        if (by > tol) { where.push(`sticks out of ${path(container)} by ${Math.round(by)}px`); }
      }
      if (!scrolled && node !== root) {
        const by = Math.max(box.right - rootBox.right, rootBox.left - box.left);
        if (by > tol) { where.push(`sticks out of the root by ${Math.round(by)}px`); }
      }
      if (!scrolled) {
        const by = Math.max(box.right - vw, -box.left);
        if (by > tol) { where.push(`past the viewport by ${Math.round(by)}px`); }
      }
      const ownText = [...node.childNodes].some(c => c.nodeType === 3 && c.textContent.trim());
      if (ownText && clips(style) && !scrolls(style) && style.textOverflow !== 'ellipsis'
          && node.scrollWidth > node.clientWidth + tol) {
        where.push(`text cut: ${node.scrollWidth}px in ${node.clientWidth}px`);
      }
      if (ownText && style.textOverflow === 'ellipsis' && node.scrollWidth > node.clientWidth + tol
          && node.clientWidth < 3 * parseFloat(style.fontSize)) {
        where.push(`text cut to a stub: ${node.clientWidth}px of ${node.scrollWidth}px`);
      }
      const field = node.tagName === 'INPUT' || node.tagName === 'TEXTAREA';
      if (field && node.placeholder && !node.value) {
        const pad = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
        measure.font = `${style.fontSize} ${style.fontFamily}`;
        const room = node.clientWidth - pad;
        if (node.tagName === 'INPUT' && measure.measureText(node.placeholder).width > room + tol) {
          where.push(`placeholder cut: "${node.placeholder}" in ${Math.round(room)}px`);
        }
        if (node.tagName === 'TEXTAREA' && node.scrollHeight > node.clientHeight + tol) {
          where.push(`placeholder cut: "${node.placeholder}" needs ${node.scrollHeight}px`
                     + ` of height, has ${node.clientHeight}px`);
        }
      }
      if (where.length) {
        reported.add(node);
        out.push(`${describe(node)}: ${where.join('; ')}`);
      }
    }
  }
  return out;
}"""
)

_TABBABLE = (
    "a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), "
    "select:not([disabled]), textarea:not([disabled]), details > summary:first-of-type, "
    "[tabindex]:not([tabindex='-1']), [contenteditable='true']"
)

FOCUS_STOPS = (
    "([selector, focusFirst]) => {"
    + _HELPERS
    + f"const tabbable = {_TABBABLE!r};"
    + r"""
  const controls = [];
  for (const root of document.querySelectorAll(selector)) {
    if (!shown(root)) { continue; }
    for (const node of root.querySelectorAll(tabbable)) {
      if (node.tabIndex < 0 || !shown(node)) { continue; }
      if (node.type === 'radio' && node.name && !node.checked
          && document.querySelector(`input[type=radio][name="${node.name}"]:checked`)) {
        continue;  // one stop per radio group
      }
      node.dataset.zfocus = String(controls.length);
      controls.push(path(node) + ` [${controls.length}]`);
    }
  }
  if (focusFirst && controls.length) {
    document.querySelector(`[data-zfocus="0"]`).focus();
  }
  return controls;
}"""
)

NAME_OF = (
    "([selector, i]) => {"
    + _HELPERS
    + r"""
  const node = document.activeElement;
  if (!node || ![...document.querySelectorAll(selector)].some(r => r.contains(node))) {
    return null;
  }
  if (node.dataset.zstop !== undefined) { return null; }  // back where it began: a focus trap
  node.dataset.zstop = String(i);
  const key = node.dataset.zfocus;
  return {path: path(node) + (key === undefined ? '' : ` [${key}]`),
          index: [...document.querySelectorAll('*')].indexOf(node)};
}"""
)

NAMES = r"""() => {
  const stops = [...document.querySelectorAll('[data-zstop]')];
  stops.sort((a, b) => Number(a.dataset.zstop) - Number(b.dataset.zstop));
  window.axe.setup(document);
  try {
    return stops.map(node => window.axe.commons.text.accessibleText(node));
  } finally {
    window.axe.teardown();
    for (const node of document.querySelectorAll('[data-zstop], [data-zfocus]')) {
      delete node.dataset.zstop;
      delete node.dataset.zfocus;
    }
  }
}"""

AXE_RUN = (
    "async ([selector, options]) => {"
    + _HELPERS
    + r"""
  const result = await window.axe.run({include: [[selector]]}, {...options, elementRef: true});
  const html = (node) => node.html.replace(/\s(data-[\w-]+|id)="[^"]*"/g, '').slice(0, 120);
  return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.element ? describe(n.element) : n.target.join(' '),
                              html: html(n), summary: (n.failureSummary || '').slice(0, 300)}))}));
}"""
)
