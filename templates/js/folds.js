// Folds: the proofs and the finer print wait in <details class="fold">, one click away. A fold opens when a link or
// the address points inside it, and every fold opens for print and closes again after; find-in-page opens one by
// itself (Chromium expands a closed <details> that holds a match), since the folded text is in the page all along.

const { starts } = shared;

function openAround(target) {
  for (let d = target.closest('details'); d; d = d.parentElement && d.parentElement.closest('details')) d.open = true;
}

function targetOf(hash) {
  let id = '';
  try { id = decodeURIComponent(hash.slice(1)); } catch { return null; }
  return id ? document.getElementById(id) : null;
}

function startFolds(root) {
  const opened = [];
  function toHash() {
    const target = targetOf(location.hash);
    if (target && target.closest('details:not([open])')) {
      openAround(target);
      target.scrollIntoView();
    }
  }
  function forPrint() {
    root.querySelectorAll('details:not([open])').forEach(d => { d.open = true; opened.push(d); });
  }
  function afterPrint() { opened.splice(0).forEach(d => { d.open = false; }); }
  document.addEventListener('click', e => {  // also a link to the hash already in the address
    const a = e.target.closest && e.target.closest('a[href^="#"]'), target = a && targetOf(a.getAttribute('href'));
    if (target) openAround(target);
  });
  window.addEventListener('hashchange', toHash);
  window.addEventListener('beforeprint', forPrint);
  window.addEventListener('afterprint', afterPrint);
  window.matchMedia('print').addEventListener('change', e => { if (e.matches) forPrint(); else afterPrint(); });
  toHash();
  return { root };
}

starts('folds', 'main', startFolds);
