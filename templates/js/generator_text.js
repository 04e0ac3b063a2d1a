// How Watch it generate writes numbers, tokens and its two computed sentences, as figures/generator.py writes the
// same for the page without scripting. Pure: each reads only its arguments (a figure's words, settings and race).

const { fill } = shared;

const GENERATOR_TIE = 1e-9;  // clock times this close are the same (figures/generator.TIE)
const GENERATOR_PLACES = 15;  // the most decimals a probability below 1 gets to show it is not 1 (figures/generator.PLACES)

// A probability as the check shows it (figures/generator.probability): 0 and 1 only when exactly so; 4 decimals from
// 0.01 up, with as many more as it takes for a number below 1 not to print as 1 (past 15, "> 0.999…"); and 3
// significant digits below 0.01, so a rare token's ratio can be worked from the numbers shown. toFixed rounds the
// float's exact value half up, as Python's decimal_str does.
function probText(x) {
  if (x === 0 || x === 1) return String(x);
  if (x < 1e-6) return x.toExponential(2);  // figures/generator.py's probability: far too small for decimals
  if (x < 0.01) return x.toFixed(2 - Math.floor(Math.log10(x)));
  let places = 4;
  while (x < 1 && x.toFixed(places) === (1).toFixed(places) && places < GENERATOR_PLACES) places++;
  return x < 1 && x.toFixed(places) === (1).toFixed(places) ? `> 0.${'9'.repeat(places)}` : x.toFixed(places);
}

function fixed(x, places) { return (Math.round(x * 10**places) / 10**places).toFixed(places); }

// n with its noun: `one` for 1, else the pattern `many` with n grouped by thousands.
function countText(n, one, many) { return n === 1 ? one : fill(many, { n: String(n).replace(/\B(?=(\d{3})+$)/g, ',') }); }

// Tokens joined as the build joins them (figures/generator.joined): a space unless punctuation holds them together.
// `join` is trace.generator.join; `previous` the token before, or null at the start.
function spaceBefore(join, token, previous) {
  return previous === null || join.before.indexOf(token.charAt(0)) >= 0 || join.after.indexOf(previous.charAt(previous.length - 1)) >= 0 ? '' : ' ';
}

// Token ids as text, each after its space, from the vocabulary `vocab`.
function spacedText(vocab, join, ids, previous) {
  let out = '';
  ids.forEach(y => { const t = vocab[y]; out += spaceBefore(join, t, previous) + t; previous = t; });
  return out;
}

// Who reached the goal first, and by how much (figures/generator.verdict): plain decoding needs one target pass a token.
function verdictText(G, goal, run) {
  const rounds = run.rounds.length, t = run.specAt;
  const pattern = Math.abs(t - goal) < GENERATOR_TIE ? G.verdict_tie : t < goal ? G.verdict_spec : G.verdict_plain;
  return fill(pattern, { goal, passes: countText(rounds, G.passes_one, G.passes), steps: countText(run.steps, G.steps_one, G.steps),
                        time: fixed(t, 1), goal_passes: countText(goal, G.passes_one, G.passes), fewer: fixed(goal / rounds, 2),
                        ratio: fixed(Math.max(goal / t, t / goal), 2) });
}

// The expected tokens per round and speedup at the settings s, with the 95% half-width of the build's estimate
// (language.half_width), or exact for the target as its own draft (figures/generator.expected).
function expectedText(G, g, s) {
  const passes = g.passes[s.draft][s.temp], spread = g.spreads[s.draft][s.temp];
  const cost = s.k * g.cost.c + g.cost.v;
  let e = 1;
  for (let i = 0; i < s.k; i++) e += passes[i];  // language.tokens_per_round
  if (spread === null) return fill(G.expected_exact, { per: fixed(e, 2), speedup: fixed(e / cost, 2) });
  const pm = spread[s.k - 1];
  return fill(G.expected, { rounds: g.profile_rounds, per: fixed(e, 2), pm: fixed(pm, 2), speedup: fixed(e / cost, 2),
                            speedup_pm: fixed(pm / cost, 2) });
}

// A round's cost on the clock at the settings s (k, m): k draft steps and a target pass for the chain (m = 1), and for
// a tree the build's stats.round_cost with its node count (trace.generator.tree_costs[m - 2][k - 1]).
function roundCost(g, s) { return s.m > 1 ? g.tree_costs[s.m - 2][s.k - 1] : s.k * g.cost.c + g.cost.v; }

// The passes the race's next tick covers: a round's, and once the speculative lane has finished, at least one whole
// pass, so the plain lane writes a token a tick however cheap a round is (at 1/1000 of a pass it took 60,000 ticks).
function tickPasses(g, s, run) { return run.specAt === null ? roundCost(g, s) : Math.max(roundCost(g, s), 1); }

// A tree race against the chain run alongside it from the same seed (figures/generator.tree_tally): each one's tokens
// per round and per target pass of the clock, and which did better per target pass of the clock; '' before a round.
function tallyText(T, way, s, run) {
  const c = run.chain, n = run.tokens.length, rounds = run.rounds.length, time = run.specAt === null ? run.time : run.specAt;
  if (!c || !rounds || !c.rounds) return '';
  const pass = n / time, chainPass = c.tokens / c.time;
  const verdict = fixed(pass, 2) === fixed(chainPass, 2) ? T.same : pass > chainPass ? T.better : T.worse;
  return `${fill(T.tally, { m: s.m, way, per: fixed(n / rounds, 2), pass: fixed(pass, 2), chain_per: fixed(c.tokens / c.rounds, 2),
                             chain_pass: fixed(chainPass, 2) })} ${verdict}`;
}

Object.assign(shared, { countText, expectedText, fixed, probText, roundCost, spaceBefore, spacedText, tallyText, tickPasses,
  verdictText });
