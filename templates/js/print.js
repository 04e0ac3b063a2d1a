// Print shows every frame of the authored walkthrough: the no-script list, parsed from its <noscript> on demand,
// so a reader on screen does not carry hundreds of hidden elements. It writes only inside its own holder,
// the element that holds the <noscript>.

const { NEAR_EVENT, starts, whenNear } = shared;

function startPrint(noscript) {
  const holder = noscript.parentElement;
  function printable() {
    if (holder.querySelector(':scope > [data-printed]')) return;
    const t = document.createElement('template'), d = document.createElement('div');
    t.innerHTML = noscript.textContent;
    d.setAttribute('data-printed', '');
    d.append(t.content);
    noscript.after(d);
  }
  window.addEventListener('beforeprint', printable);
  const media = window.matchMedia('print');
  media.addEventListener('change', e => { if (e.matches) printable(); });
  if (media.matches) printable();  // printing began before this figure's turn to start came
  return { root: holder };
}

starts('print', 'noscript[data-static]', startPrint, true);

// A chart far below the fold waits in a <noscript data-near> (which readers without scripting see as it is) and
// joins the page in a task of its own after the first paint, or at once for print (core.js's whenNear).
function startNear(noscript) {
  whenNear(noscript.parentElement, () => {
    const t = document.createElement('template');
    t.innerHTML = noscript.textContent;
    noscript.replaceWith(t.content);
    document.dispatchEvent(new Event(NEAR_EVENT));
  });
  return { root: noscript.parentElement };
}

starts('noscript', 'noscript[data-near]', startNear, true);
