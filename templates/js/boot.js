// Finds each figure's root and starts it, one figure per task, so that no start-up task blocks the page for long
// on a slow phone. Each root starts on its own: a start that throws is logged with console.error under its figure's
// name, and every other figure and root still starts (the one that threw stays as far as it got). Nothing is exposed
// to the page's scripts (the root element only gains data-started, once every figure has started and every held part
// has joined), unless a benchmark opts in by setting window.__playerDebug before the page loads: once every figure
// has started it gets window.__player.

const { loadTrace, nextTask, settle, STARTERS } = shared;

function boot() {
  const clock = performance.now(), trace = loadTrace(document);
  if (!trace) return;
  document.documentElement.classList.add('js');  // sentences about controls show only where the controls run
  const figures = {}, queue = STARTERS.slice().sort(pageOrder);
  let spent = performance.now() - clock;
  (function next() {
    const s = queue.shift(), began = performance.now();
    if (!s) {
      settle(true);  // every figure has started: data-started follows once the held parts have joined (core.js)
      return expose(figures, spent);
    }
    const started = startEach(s[0], s[1], s[2], trace);
    figures[s[0]] = s[3] ? started : started[0];
    spent += performance.now() - began;
    nextTask(next);
  })();
}

// The figures start in the order a reader meets their roots on the page; the page's own parts (folds, print, the
// charts' no-script holders: a selector other than a figure's [data-<name>]) start after them, in the order they join.
function pageOrder(a, b) {
  const x = figureRoot(a), y = figureRoot(b);
  if (!x || !y) return !x - !y;
  return x === y ? 0 : x.compareDocumentPosition(y) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
}

function figureRoot(starter) {
  return starter[1] === `[data-${starter[0]}]` ? document.querySelector(starter[1]) : null;
}

// A root whose start threw gives null in its place.
function startEach(name, selector, start, trace) {
  return Array.from(document.querySelectorAll(selector), root => {
    try {
      return start(root, trace);
    } catch (error) {
      console.error(`${name}:`, error);
      return null;
    }
  });
}

// initMs: the script's own start-up time, every figure's start summed, without the gaps between them.
function expose(figures, spent) {
  if (window.__playerDebug !== true) return;
  const p = figures.walkthrough || {};
  window.__player = { update: p.update, state: p.state, figures, initMs: spent };
}

boot();
