// Finds each figure's root and starts it. Nothing is exposed to the page's scripts, unless a benchmark opts in
// by setting window.__playerDebug before the page loads: it then gets window.__player.

function boot() {
  var started = performance.now(), trace = loadTrace(document);
  if (!trace) return;
  document.documentElement.classList.add('js');  // sentences about controls show only where the controls run
  var figures = {};
  STARTERS.forEach(function (s) {
    var started = startEach(s[1], s[2], trace);
    figures[s[0]] = s[3] ? started : started[0];
  });
  if (window.__playerDebug === true) {
    var p = figures.player || {};
    window.__player = { update: p.update, state: p.state, figures: figures, initMs: performance.now() - started };
  }
}

function startEach(selector, start, trace) {
  return [].map.call(document.querySelectorAll(selector), function (root) { return start(root, trace); });
}

boot();
