// The round player's frames as the trace holds them: a frame's address, its token, its slots and its caption's
// fields, all pure functions of the trace (figures/walkthrough.py makes the same for the no-script list).

const { decoded, fill } = shared;

const FRAMES = 'walkthrough';  // the prefix of a frame's address (figures/walkthrough.py's FRAMES)

// "#walkthrough/divergent/4" -> {profile: 1, round: 0, frame: 4}; "#walkthrough/divergent/r7/3" -> drawn round 7,
// frame 3; an older link without the prefix ("#divergent/4") as well; null when the hash is not a frame of a known
// profile.
function parseHash(hash, profiles) {
  const m = /^#(?:walkthrough\/)?([^/]+)\/(?:r(\d+)\/)?(\d+)$/.exec(decoded(hash));
  if (!m) return null;
  const index = profiles.findIndex(p => p.id === m[1]);
  return index < 0 ? null : { profile: index, round: m[2] ? Number(m[2]) : 0, frame: Number(m[3]) };
}

function hashOf(prof, round, frame) { return `#${FRAMES}/${prof.id}/${round ? 'r' + round + '/' : ''}${frame}`; }

// Round i of a profile: 0 the authored walkthrough, 1..R its drawn rounds.
function roundOf(prof, i) { return i ? prof.drawn[i - 1] : prof.walk; }

// The token a frame is about: the proposal it checks, or the bonus token (tests/tracekit.py's frame_token).
function frameToken(rnd, f) {
  return f.kind === 'verify' ? rnd.proposals[f.pos - 1] : f.kind === 'bonus' ? rnd.bonus : null;
}

// The fields a frame's caption is filled from: its position's facts, the round's fields, its draw
// (figures/walkthrough.caption does the same in Python).
function captionFields(trace, prof, rnd, f) {
  const x = frameToken(rnd, f);
  let c = {};
  if (f.kind === 'verify') {
    const pos = prof.positions[f.pos - 1];
    c = { p: pos.target[x], q: pos.draft[x], accept: pos.accept[x], worked: pos.worked[x],
      res_raw: pos.res_raw, res_total: pos.res_total, res_norm: pos.res_norm };
  }
  if (f.pos) c.pos = f.pos;
  if (x !== null) c.tok = trace.labels[x];
  Object.assign(c, trace.fields, roundTokens(trace, rnd), rnd.fields);
  if (f.u) c.u = f.u;
  return c;
}

// Slot i of a frame, as {state, token, replacement}: tokens live once in the round, a frame holds each slot's
// state (figures/walkthrough.slot_views makes the same slots for the no-script list).
function slotsOf(trace, rnd, f) {
  return f.slots.map((state, i) => {
    const token = i < trace.k ? rnd.proposals[i] : state === 'bonus' ? rnd.bonus : null;
    return { state, token, replacement: state === 'rejected' ? rnd.replacement : null };
  });
}

// What the round has committed once this frame is done: accepted proposals, the replacement, the bonus.
function committedOf(slots) {
  return slots.filter(s => s.state === 'accepted' || s.state === 'rejected' || s.state === 'bonus')
    .map(s => ({ token: s.state === 'rejected' ? s.replacement : s.token, state: s.state }));
}

// The round's token lists as its captions quote them (text.quoted): its proposals, and from its closing frame's
// strip the tokens it committed (and how many) and the proposals it dropped; and its replacement's label.
function roundTokens(trace, rnd) {
  const P = trace.text.walkthrough, last = slotsOf(trace, rnd, rnd.frames[rnd.frames.length - 1]);
  const committed = committedOf(last).map(c => c.token);
  function quoted(tokens) {
    return tokens.map(t => fill(P.quoted, { tok: trace.labels[t] })).join(' ');
  }
  const c = { proposals: quoted(rnd.proposals), committed: quoted(committed),
    committed_count: fill(committed.length === 1 ? P.token_one : P.tokens, { n: committed.length }),
    lost: quoted(last.filter(s => s.state === 'dropped').map(s => s.token)) };
  if (rnd.replacement !== null) c.rep = trace.labels[rnd.replacement];
  return c;
}

// Frame i (1-based) of a round, with everything its stage shows: the frame, its token, its caption's fields, its
// slots and what the round has committed by then.
function frameView(trace, prof, rnd, i) {
  const f = rnd.frames[i - 1], slots = slotsOf(trace, rnd, f);
  return { f, i, n: rnd.frames.length, x: frameToken(rnd, f), ctx: captionFields(trace, prof, rnd, f), slots,
    committed: committedOf(slots) };
}

Object.assign(shared, { frameView, hashOf, parseHash, roundOf });
