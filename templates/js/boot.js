// Finds each figure's root and starts it. Nothing is exposed to the page's scripts, unless a benchmark opts in
// by setting window.__playerDebug before the page loads: it then gets window.__player.

function boot() {
  var started = performance.now(), trace = loadTrace(document);
  if (!trace) return;
  document.documentElement.classList.add('js');  // sentences about controls show only where the controls run
  var figures = {
    player: startEach('[data-player]', startPlayer, trace)[0],
    lab: startEach('[data-lab]', startLab, trace)[0],
    conv: startEach('[data-conv]', startConvergence, trace),
    explore: startEach('[data-explore]', startExplorer, trace)[0],
    print: startEach('noscript[data-static]', startPrint, trace)
  };
  if (window.__playerDebug === true) {
    var p = figures.player || {};
    window.__player = { update: p.update, state: p.state, figures: figures, initMs: performance.now() - started };
  }
}

function startEach(selector, start, trace) {
  return [].map.call(document.querySelectorAll(selector), function (root) { return start(root, trace); });
}

boot();
