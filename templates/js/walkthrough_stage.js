// The round player's stage: one frame (walkthrough_frames.js's frameView) in every part of it, each part written by
// its own function; the player's render (walkthrough.js) calls renderStage when the frame changes.

const { acceptStrip, bar, fill, fracValue, headRow, node, overlapRows, row, tokenCell } = shared;

// A fraction in brackets, a whole number as it is (text.ratio_text's rule): "(3/8)", "0".
function bracketed(x) { return x.indexOf('/') < 0 ? x : `(${x})`; }

// The frame `v` of round `rnd` of profile `prof`, in every part of the stage.
function renderStage(fig, prof, rnd, v) {
  const T = fig.T, trace = fig.trace, ui = fig.ui, f = v.f;
  ui.head.textContent = fill(f.kind === 'verify' ? T.head_verify : T.head,
    { i: v.i, n: v.n, kind: trace.text.kind_names[f.kind], pos: f.pos });
  ui.caption.textContent = f.caption.map(key => fill(trace.text.captions[key], v.ctx)).join(' ');
  renderSlots(fig, v);
  ui.idle.hidden = f.kind === 'verify';  // a frame that checks nothing says so where the check would stand
  ui.idle.textContent = ui.idle.hidden ? '' : fill(f.kind === 'propose' ? T.idle_propose : f.kind === 'bonus' ? T.idle_bonus : T.idle_done, v.ctx);
  renderTest(fig, prof, v);
  renderDist(fig, prof, rnd, v);
  renderDropped(fig, prof, v.slots);
  renderCommitted(fig, v.committed);
}

function renderSlots(fig, v) {
  const T = fig.T, trace = fig.trace;
  fig.ui.strip.replaceChildren(...v.slots.map((s, i) => {
    const position = i + 1;
    const li = node('li', `slot is-${s.state}${v.f.pos === position ? ' is-current' : ''}`);
    const words = trace.text.state_names[s.state] + (s.state === 'rejected' ? fill(T.slot_instead, { rep: trace.labels[s.replacement] }) : '');
    li.append(node('small', '', position > trace.k ? fill(T.slot_bonus, { pos: position }) : String(position)), ' ',
      node('bdi', '', s.token === null ? T.no_token : trace.vocabulary[s.token]), ' ', node('span', '', words));
    return li;
  }));
}

function renderTest(fig, prof, v) {
  const ui = fig.ui, T = fig.T, f = v.f, ctx = v.ctx;
  ui.test.hidden = f.kind !== 'verify';
  if (ui.test.hidden) return ui.bars.replaceChildren();  // a hidden panel keeps no rows
  const pos = prof.positions[f.pos - 1], x = v.x, passed = f.slots[f.pos - 1] === 'accepted';
  ui.testTitle.textContent = fill(T.test_title, ctx);
  ui.p.textContent = ctx.p;
  ui.q.textContent = ctx.q;
  ui.ratio.textContent = fill(T.ratio, { p: bracketed(ctx.p), q: bracketed(ctx.q), ratio: pos.ratio[x] });
  ui.accept.textContent = fill(T.accept, { ratio: pos.ratio[x], accept: ctx.accept });
  ui.u.textContent = f.u;
  acceptStrip(ui.bar, { a: pos.accept_f[x], u: f.u, bound: ctx.accept, below: passed, kept: passed }, fig.A);
  ui.verdict.className = `walkthrough-verdict ${passed ? 'is-accepted' : 'is-rejected'}`;
  ui.verdict.replaceChildren(node('strong', '', passed ? T.accepted : T.rejected),
    fill(passed ? T.below : T.not_below, { u: f.u, accept: ctx.accept }));
  ui.chance.hidden = !f.chance;
  ui.chance.textContent = f.chance ? fill(T.chance, ctx) : '';
  ui.bars.replaceChildren(...overlapRows(pos, fig.trace.vocabulary, x, T.bar_numbers));
}

function renderDist(fig, prof, rnd, v) {
  const f = v.f, rejected = f.kind === 'verify' && f.slots[f.pos - 1] === 'rejected', bonus = f.kind === 'bonus';
  fig.ui.dist.hidden = !(rejected || bonus);
  fig.ui.dist.dataset.walkthroughKind = bonus ? 'bonus' : 'residual';
  if (rejected) renderResidual(fig, prof.positions[f.pos - 1], rnd, v);
  else if (bonus) renderBonus(fig, prof, rnd, v.ctx);
  else [fig.ui.distHead, fig.ui.distBody].forEach(e => { e.replaceChildren(); });
}

function renderResidual(fig, pos, rnd, v) {
  const ui = fig.ui, T = fig.T, x = v.x;
  ui.distTitle.textContent = fill(T.residual_title, v.ctx);
  ui.distHead.replaceChildren(headRow([T.col_token, T.col_p, T.col_q, T.col_raw, fill(T.col_norm, v.ctx)]));
  ui.distBody.replaceChildren(...fig.trace.vocabulary.map((tok, y) => {
    const note = y === rnd.replacement ? T.note_drawn : y === x ? T.note_rejected : '';
    const cls = y === rnd.replacement ? 'is-drawn' : y === x ? 'is-rejected-token' : '';
    const share = pos.residual[y];
    return row([tokenCell(tok, note), pos.target[y], pos.draft[y], pos.residual_raw[y],
      bar(share === null ? 0 : fracValue(share), share === null ? T.no_token : share)], cls);
  }));
  const F = rnd.fields;
  renderDraw(fig, { cuts: pos.cuts, shares: pos.residual, chosen: rnd.replacement, u: F.rep_u, lo: F.rep_lo, hi: F.rep_hi });
}

function renderBonus(fig, prof, rnd, ctx) {
  const ui = fig.ui, T = fig.T, targets = prof.bonus_target;
  ui.distTitle.textContent = fill(T.bonus_title, ctx);
  ui.distHead.replaceChildren(headRow([T.col_token, T.col_p]));
  ui.distBody.replaceChildren(...fig.trace.vocabulary.map((tok, y) => row([tokenCell(tok, y === rnd.bonus ? T.note_drawn : ''), bar(fracValue(targets[y]), targets[y])],
      y === rnd.bonus ? 'is-drawn' : '')));
  const F = rnd.fields;
  renderDraw(fig, { cuts: prof.bonus_cuts, shares: targets, chosen: rnd.bonus, u: F.bonus_u, lo: F.bonus_lo, hi: F.bonus_hi });
}

// The draw r on the accept strip, as the segments of the cut points it was drawn by: token y owns [cuts[y-1],
// cuts[y]), and r (d.u, in [d.lo, d.hi)) lands in the chosen token's segment (the caption says which, in numbers).
function renderDraw(fig, d) {
  acceptStrip(fig.ui.distDraw, Object.assign(d, { names: fig.trace.vocabulary, tok: fig.trace.labels[d.chosen] }), fig.A);
}

function renderDropped(fig, prof, slots) {
  const ui = fig.ui, vocab = fig.trace.vocabulary, positions = prof.positions;
  const dropped = slots.map((s, i) => s.state === 'dropped' ? i + 1 : 0).filter(Boolean);
  ui.dropped.hidden = dropped.length === 0;
  ui.droppedList.replaceChildren(...dropped.map(position => {
    const x = slots[position - 1].token, li = node('li', 'is-dropped');
    li.append(node('span', 'chip-pos', String(position)), ' ', node('bdi', 'chip-tok', vocab[x]),
      node('span', 'chip-note', fill(fig.T.chip_dropped, { accept: positions[position - 1].accept[x] })));
    return li;
  }));
}

function renderCommitted(fig, committed) {
  const T = fig.T, vocab = fig.trace.vocabulary;
  fig.ui.committed.replaceChildren(...committed.length ? committed.map(c => {
    const rep = c.state === 'rejected', bonus = c.state === 'bonus';
    const li = node('li', rep ? 'is-replacement' : bonus ? 'is-bonus' : '');
    li.append(node('bdi', 'chip-tok', vocab[c.token]), node('span', 'chip-note', rep ? T.chip_replacement : bonus ? T.chip_bonus : ''));
    return li;
  }) : [node('li', 'is-empty', T.nothing_yet)]);
}

Object.assign(shared, { renderStage });
