// fevga board: plain JavaScript (no build step), served by `fevga serve` beside its API.
//
// Every board on the page is fevga.svg's drawing, fetched from GET api/v1/svg; its points
// carry data-point (the printed, White's, numbering), its checkers data-point and data-index,
// its borne-off tray the class "tray-frame". The page never computes a rule: the server gives
// the legal moves of each decision with their resulting boards, and a click is accepted only
// where some legal move can still be reached from the board the clicks have made.

const API = "api/v1/";
const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------------ the server

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// body[data-state] is "busy" from a user's action (or a request) until all its work is done,
// boards drawn and the engine's moves replayed, then "ready": the cursor shows it, and a
// browser test waits on it.
let busyCount = 0;
function busy(delta) {
  busyCount += delta;
  document.body.dataset.state = busyCount > 0 ? "busy" : "ready";
}

// Listen for `type` on `target`: the page is busy while the handler (and its promise) runs.
function on(target, type, handler) {
  target.addEventListener(type, (event) => {
    busy(+1);
    let result;
    try {
      result = handler(event);
    } catch (error) {
      busy(-1);
      throw error;
    }
    Promise.resolve(result).finally(() => busy(-1));
  });
}

async function call(path, { method = "GET", json, text, params } = {}) {
  let url = API + path;
  if (params) {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
      if (value !== null && value !== undefined && value !== "") query.set(key, value);
    }
    url += "?" + query.toString();
  }
  const init = { method, headers: {} };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    init.headers["Content-Type"] = "application/json";
  } else if (text !== undefined) {
    init.body = text;
    init.headers["Content-Type"] = "text/plain; charset=utf-8";
  }
  let response;
  busy(+1);
  try {
    try {
      response = await fetch(url, init);
    } catch (error) {
      throw new ApiError(0, "network", "the server does not answer: is fevga serve still running?");
    }
    const type = response.headers.get("content-type") || "";
    if (!response.ok) {
      let body = null;
      try { body = await response.json(); } catch (error) { body = null; }
      const e = body && body.error;
      throw new ApiError(response.status, e ? e.code : "http_error", e ? e.message : `HTTP ${response.status}`);
    }
    return type.includes("json") ? await response.json() : await response.text();
  } finally {
    busy(-1);
  }
}

const svgCache = new Map();
function boardSvg(position, { dice = null, perspective = "white", game = null } = {}) {
  const params = { position, perspective, game, dice: dice && dice.length ? dice.join(" ") : null };
  const key = JSON.stringify(params);
  if (!svgCache.has(key)) {
    const request = call("svg", { params });
    request.catch(() => svgCache.delete(key));
    svgCache.set(key, request);
    if (svgCache.size > 400) svgCache.delete(svgCache.keys().next().value);
  }
  return svgCache.get(key);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const otherPoint = (point) => ((point + 11) % 24) + 1;  // fevga.position.other_point
const colorName = (color) => color.charAt(0).toUpperCase() + color.slice(1);
const signed = (value) => (value >= 0 ? "+" : "\u2212") + Math.abs(value).toFixed(3);
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) on(node, key.slice(2), value);
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) node.append(child);
  return node;
}

function say(target, message, error = false) {
  target.textContent = message;
  target.classList.toggle("error", error);
}

const rollText = (dice) => `${dice[0]}-${dice[1]}`;  // a roll, as the records write it
// an analysed ply's dice: a Fevga roll, or a Gioul decision's own dice (it has a kind)
const plyDice = (p) => (p.kind ? diceText(p.dice) : rollText(p.dice));

function diceText(dice) {
  if (!dice || !dice.length) return "";
  return dice.length === 2 && dice[0] !== dice[1] ? `${dice[0]}-${dice[1]}` : dice.join(" ");
}

// ", plays 6" when a roll's decision plays other dice than the roll gives (a Gioul chain, dice
// handed over), else "": not for the same two dice in another order, nor a double's four.
function playsText(roll, decisionDice) {
  const all = roll[0] === roll[1] ? Array(4).fill(roll[0]) : roll;
  const same = all.length === decisionDice.length && [...all].sort().join() === [...decisionDice].sort().join();
  return same ? "" : `, plays ${diceText(decisionDice)}`;
}

// ------------------------------------------------------------------ a board on the page

class BoardView {
  // A fevga.svg board in `container`; onPoint(printed point) and onOff() are called on clicks
  // and on Enter/Space over a focused point or the tray.
  constructor(container, { onPoint = null, onOff = null, label = "board" } = {}) {
    this.container = container;
    this.onPoint = onPoint;
    this.onOff = onOff;
    this.label = label;
    this.perspective = "white";
    this.shown = null;
    on(container, "click", (event) => this.click(event));
    on(container, "keydown", (event) => {
      if ((event.key === "Enter" || event.key === " ") && event.target.closest) {
        const hit = event.target.closest("[data-point], .tray-frame");
        if (hit) {
          event.preventDefault();
          return this.activate(hit);
        }
      }
      return null;
    });
  }

  click(event) {
    const hit = event.target.closest && event.target.closest("[data-point], .tray-frame, .tray");
    return hit ? this.activate(hit) : null;
  }

  // The click's work (a promise, or null).
  activate(hit) {
    if (hit.classList.contains("tray-frame") || hit.classList.contains("tray")) return this.onOff ? this.onOff() : null;
    return this.onPoint ? this.onPoint(Number(hit.dataset.point)) : null;
  }

  own(printed) {
    return this.perspective === "black" ? otherPoint(printed) : printed;
  }

  // Draw `position` (an ID, "start" or JSON) with `dice`; resolves once it is on the page.
  async show(position, { dice = null, perspective = "white", game = null, counts = null } = {}) {
    const key = JSON.stringify([position, dice, perspective, game]);
    this.wanted = key;
    const text = await boardSvg(position, { dice, perspective, game });
    if (this.wanted !== key) return;  // a later board was asked for meanwhile
    const focused = document.activeElement && this.container.contains(document.activeElement)
      ? document.activeElement.dataset.point || (document.activeElement.classList.contains("tray-frame") ? "off" : null)
      : null;
    this.container.innerHTML = text;
    this.perspective = perspective;
    this.shown = key;
    this.decorate(counts);
    if (focused) {
      const again = focused === "off" ? this.container.querySelector(".tray-frame")
        : this.container.querySelector(`polygon.point[data-point="${focused}"]`);
      if (again) again.focus();
    }
  }

  decorate(counts) {
    const svg = this.container.querySelector("svg");
    if (!svg) return;
    const caption = svg.querySelector(".caption");
    svg.setAttribute("role", "group");
    svg.setAttribute("aria-label", `${this.label}: ${caption ? caption.textContent : ""}`);
    const clickable = Boolean(this.onPoint);
    for (const point of svg.querySelectorAll("polygon.point")) {
      const printed = Number(point.dataset.point);
      let text = `point ${this.own(printed)}`;
      if (counts) {
        const white = counts.white[printed];
        const black = counts.black[otherPoint(printed)];
        if (white) text += `, ${plural(white, "white checker")}`;
        if (black) text += `, ${plural(black, "black checker")}`;
      }
      point.setAttribute("aria-label", text);
      if (clickable) {
        point.setAttribute("tabindex", "0");
        point.setAttribute("role", "button");
      }
    }
    const tray = svg.querySelector(".tray-frame");
    if (tray && this.onOff) {
      tray.setAttribute("tabindex", "0");
      tray.setAttribute("role", "button");
      tray.setAttribute("aria-label", "the borne-off tray: bear off here");
    }
  }

  // Mark points (own numbering of the perspective) with a class; "off" marks the tray.
  mark(className, points) {
    const svg = this.container.querySelector("svg");
    if (!svg) return;
    for (const node of svg.querySelectorAll("." + className)) node.classList.remove(className);
    for (const point of points) {
      if (point === 0) {
        const tray = svg.querySelector(".tray-frame");
        if (tray) tray.classList.add(className);
        continue;
      }
      const printed = this.perspective === "black" ? otherPoint(point) : point;
      const polygon = svg.querySelector(`polygon.point[data-point="${printed}"]`);
      if (polygon) polygon.classList.add(className);
      if (className === "selected") {
        const checkers = svg.querySelectorAll(`.checker[data-point="${printed}"]`);
        if (checkers.length) checkers[checkers.length - 1].classList.add(className);
      }
    }
  }
}

function positionJson(white, black, turn) {
  return JSON.stringify({ white, black, turn });
}

// ------------------------------------------------------------------ building a move by clicks

class MoveBuilder {
  // The human's decision: the board (mover's own numbering), the dice left, the legal moves
  // with their resulting boards. A hop (from, die) is allowed when some legal move can still
  // be reached from the board it gives with the dice left; a board equal to a legal move's
  // result completes the move.
  constructor(turn) {
    this.turn = turn;
    this.start = turn.counts.slice();
    this.reset();
  }

  reset() {
    this.counts = this.start.slice();
    this.dice = this.turn.decision_dice.slice();
    this.hops = [];
    this.history = [];
  }

  blocked(point) {
    return point > 0 && this.turn.opponent[otherPoint(point)] > 0;
  }

  hop(counts, from, die) {
    if (counts[from] <= 0) return null;
    const to = Math.max(from - die, 0);
    if (this.blocked(to)) return null;
    const next = counts.slice();
    next[from] -= 1;
    next[to] += 1;
    return { counts: next, to };
  }

  static same(a, b) {
    for (let i = 0; i < 25; i += 1) if (a[i] !== b[i]) return false;
    return true;
  }

  reaches(counts, dice, result, memo) {
    if (MoveBuilder.same(counts, result)) return true;
    if (!dice.length) return false;
    const key = counts.join(",") + "|" + dice.join(",");
    if (memo.has(key)) return memo.get(key);
    let found = false;
    const tried = new Set();
    for (let k = 0; k < dice.length && !found; k += 1) {
      const die = dice[k];
      if (tried.has(die)) continue;
      tried.add(die);
      const rest = dice.slice(0, k).concat(dice.slice(k + 1));
      for (let from = 1; from <= 24 && !found; from += 1) {
        if (counts[from] <= result[from]) continue;  // a checker leaves only a point the result has fewer on
        const next = this.hop(counts, from, die);
        if (next && this.reaches(next.counts, rest, result, memo)) found = true;
      }
    }
    memo.set(key, found);
    return found;
  }

  open(counts, dice) {
    return this.turn.moves.some((m) => this.reaches(counts, dice, m.result, new Map()));
  }

  // The points one checker from `from` can reach now: to -> [[from, to, die], ...].
  targets(from) {
    const out = new Map();
    const walk = (counts, at, dice, path) => {
      const tried = new Set();
      for (let k = 0; k < dice.length; k += 1) {
        const die = dice[k];
        if (tried.has(die)) continue;
        tried.add(die);
        const next = this.hop(counts, at, die);
        if (!next) continue;
        const rest = dice.slice(0, k).concat(dice.slice(k + 1));
        if (!this.open(next.counts, rest)) continue;
        const longer = path.concat([[at, next.to, die]]);
        if (!out.has(next.to) || out.get(next.to).length > longer.length) out.set(next.to, longer);
        if (next.to > 0) walk(next.counts, next.to, rest, longer);
      }
    };
    if (!this.complete()) walk(this.counts, from, this.dice, []);
    return out;
  }

  // The hop of the highest die that `from` can play now, or null.
  highest(from) {
    if (this.complete()) return null;
    const dice = [...new Set(this.dice)].sort((a, b) => b - a);
    for (const die of dice) {
      const next = this.hop(this.counts, from, die);
      if (!next) continue;
      const k = this.dice.indexOf(die);
      const rest = this.dice.slice(0, k).concat(this.dice.slice(k + 1));
      if (this.open(next.counts, rest)) return [[from, next.to, die]];
    }
    return null;
  }

  play(path) {
    for (const [from, , die] of path) {
      const next = this.hop(this.counts, from, die);
      this.history.push({ counts: this.counts, dice: this.dice });
      this.counts = next.counts;
      const k = this.dice.indexOf(die);
      this.dice = this.dice.slice(0, k).concat(this.dice.slice(k + 1));
      this.hops.push([from, next.to]);
    }
  }

  // The legal move the clicks have made, or null.
  complete() {
    return this.turn.moves.find((m) => MoveBuilder.same(this.counts, m.result)) || null;
  }

  board() {
    const mover = this.turn.mover;
    const white = mover === "white" ? this.counts : this.turn.opponent;
    const black = mover === "white" ? this.turn.opponent : this.counts;
    return { json: positionJson(white, black, mover), white, black };
  }
}

// ------------------------------------------------------------------ tabs

function showTab(name) {
  for (const tab of document.querySelectorAll("[role=tab]")) {
    const selected = tab.getAttribute("aria-controls") === name;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    $(tab.getAttribute("aria-controls")).hidden = !selected;
  }
  document.body.dataset.tab = name;
}

function initTabs() {
  const tabs = [...document.querySelectorAll("[role=tab]")];
  for (const tab of tabs) {
    on(tab, "click", () => showTab(tab.getAttribute("aria-controls")));
    on(tab, "keydown", (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      const next = tabs[(tabs.indexOf(tab) + step + tabs.length) % tabs.length];
      next.focus();
      showTab(next.getAttribute("aria-controls"));
    });
  }
}

// ------------------------------------------------------------------ play against the engine

const ENGINES = { fevga: [["net2", "net, 2 plies (strongest)"], ["net", "net, 1 ply"], ["heuristic", "heuristic"]],
                  gioul: [["net2", "Gioul net, 2 plies (strongest)"], ["net", "Gioul net, 1 ply"], ["heuristic", "heuristic"]] };

const game = { request: null, history: [], draws: 0, state: null, builder: null, selected: null, targets: new Map(),
               generation: 0 };
let playBoard;

function fillEngines() {
  const select = $("play-engine");
  select.replaceChildren(...ENGINES[$("play-game").value].map(([value, text]) => element("option", { value, text })));
}

function playStatus(message, error = false) {
  say($("play-status"), message, error);
}

function describe(entry, state) {
  const you = entry.human;
  const who = you ? "You" : "fevga";
  const side = colorName(entry.mover);
  let why = "";
  if (entry.kind === "roll") why = `rolled ${entry.dice[0]}-${entry.dice[1]}`;
  else if (entry.kind === "block") why = "next block of the chain";
  else why = "handed-over dice";
  const dice = diceText(entry.decision_dice);
  const forced = entry.choices === 1 ? (entry.move === "pass" ? " (no legal move)" : " (the only legal move)") : "";
  const plays = entry.kind === "roll" ? playsText(entry.dice, entry.decision_dice) : "";
  return `${who} (${side}) ${why}${dice && entry.kind !== "roll" ? " " + dice : ""}${plays}: ${entry.move}${forced}`;
}

function renderLog(state) {
  const log = $("play-log");
  log.replaceChildren(...state.history.map((entry, i) => element("li", {
    class: (entry.human ? "human" : "engine") + (i === state.history.length - 1 ? " latest" : ""),
    text: describe(entry, state),
  })));
  log.scrollTop = log.scrollHeight;
}

function usedDie(remaining, from, to) {
  const exact = remaining.indexOf(from - to);
  if (exact >= 0) return exact;
  const larger = remaining.map((d, k) => [d, k]).filter(([d]) => d >= from).sort((a, b) => a[0] - b[0]);
  return larger.length ? larger[0][1] : 0;
}

async function animate(entries, state) {
  const delay = Number($("play-speed").value);
  const perspective = state.perspective;
  for (const entry of entries) {
    if (entry.human && entry.choices > 1) continue;
    playStatus(describe(entry, state));
    if (!delay) continue;
    let dice = entry.decision_dice.slice();
    await playBoard.show(entry.before.board, { dice, perspective });
    await sleep(delay);
    for (let i = 0; i < entry.frames.length; i += 1) {
      const [from, to] = entry.steps[i];
      const k = usedDie(dice, from, to);
      dice = dice.slice(0, k).concat(dice.slice(k + 1));
      await playBoard.show(entry.frames[i], { dice, perspective });
      playBoard.mark("last", [entry.mover === perspective ? to : otherPoint(to)].filter((p) => p > 0));
      await sleep(delay);
    }
  }
}

function setPlayButtons() {
  const turn = game.state && game.state.status === "your_turn";
  const builder = game.builder;
  $("play-submit").disabled = !(turn && builder && builder.complete());
  $("play-reset").disabled = !(turn && builder && (builder.hops.length || game.selected !== null));
  $("play-undo").disabled = !(game.state && game.state.history.some((h) => h.human && h.choices > 1));
  $("play-hint").disabled = !turn;
  for (const id of ["play-typed-go", "play-pick-go", "play-moves"]) $(id).disabled = !turn;
}

async function drawTurn() {
  const builder = game.builder;
  const board = builder.board();
  await playBoard.show(board.json, { dice: builder.dice, perspective: game.state.perspective,
                                     counts: { white: board.white, black: board.black } });
  if (game.selected !== null) {
    playBoard.mark("selected", [game.selected]);
    playBoard.mark("target", [...game.targets.keys()]);
  }
  const done = builder.complete();
  const turn = game.state.turn;
  const pending = turn.pending.length > turn.decision_dice.length
    ? ` (then ${diceText(turn.pending.slice(turn.decision_dice.length))})` : "";
  $("play-dice").textContent = `Your dice: ${diceText(turn.decision_dice)}${pending}` +
    (builder.hops.length ? `; left to play: ${builder.dice.join(" ") || "none"}` : "");
  if (done) playStatus(`Your move: ${done.move}. Press "Play move" (or reset it).`);
  setPlayButtons();
}

function startTurn(state) {
  const turn = state.turn;
  game.builder = new MoveBuilder(turn);
  game.selected = null;
  game.targets = new Map();
  const why = turn.kind === "roll" ? `You rolled ${turn.dice[0]}-${turn.dice[1]}`
    : turn.kind === "block" ? "The next block of your chain" : `${colorName(turn.mover === "white" ? "black" : "white")} could not play these dice: they are handed to you`;
  playStatus(`${why}: your move (${plural(turn.moves.length, "legal move")}).`);
  $("play-moves").replaceChildren(...turn.moves.map((m) => element("option", { value: m.move, text: m.move })));
  $("play-hints").replaceChildren(element("p", { class: "muted", text: "Ask for a hint on your turn." }));
}

function resultText(state) {
  const result = state.result;
  if (result.dead) return "Dead position: the game is a draw.";
  const you = result.winner === state.human;
  const who = you ? "You win" : "fevga wins";
  return `${who} ${plural(result.points, "point")}${result.points === 2 ? " (mars)" : ""}.`;
}

function showResult(state) {
  const box = $("play-result");
  const after = $("play-after");
  const record = JSON.stringify(state.record, null, 1);
  const link = $("play-download");
  if (link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([record], { type: "application/json" }));
  after.hidden = state.history.length === 0;
  if (state.status !== "over") {
    box.hidden = true;
    $("play-analyse").textContent = "Analyse the game so far";
    return;
  }
  box.hidden = false;
  box.textContent = resultText(state);
  $("play-analyse").textContent = "Analyse this game";
}

async function accept(state) {
  const fresh = state.history.slice(state.known);
  game.state = state;
  game.history = state.history.map((h) => ({ move: h.move, roll: h.roll }));
  game.draws = state.draws;
  game.builder = null;
  setPlayButtons();
  renderLog(state);
  await animate(fresh, state);
  showResult(state);
  if (state.status === "over") {
    $("play-dice").textContent = "";
    await playBoard.show(state.position.board, { perspective: state.perspective });
    playStatus(`Game over. ${resultText(state)}`);
  } else {
    startTurn(state);
    await drawTurn();
  }
  setPlayButtons();
}

async function sendGame(extra = {}) {
  // busy until the engine's moves have been replayed on the board, not only until the answer
  const generation = game.generation;
  const body = { ...game.request, history: game.history, draws: game.draws, ...extra };
  busy(+1);
  try {
    const state = await call("play", { method: "POST", json: body });
    if (generation === game.generation) await accept(state);  // else a new game began meanwhile
  } finally {
    busy(-1);
  }
}

async function newGame(event) {
  if (event) event.preventDefault();
  let seed = $("play-seed").value.trim();
  if (!/^\d+$/.test(seed)) {
    seed = String(Math.floor(Math.random() * 1e9));
    $("play-seed").value = seed;
  }
  game.request = { game: $("play-game").value, seed: Number(seed), human: $("play-side").value,
                   engine: $("play-engine").value };
  game.history = [];
  game.draws = 0;
  game.state = null;
  game.generation += 1;
  $("play-log").replaceChildren();
  $("play-result").hidden = true;
  playStatus(`New ${game.request.game === "gioul" ? "Gioul" : "Fevga"} game, dice seed ${seed}.`);
  try {
    await sendGame();
  } catch (error) {
    playStatus(error.message, true);
  }
}

async function submitMove(notation) {
  if (!game.state || game.state.status !== "your_turn") return;
  const turn = game.state.turn;
  game.history.push({ move: notation, roll: turn.roll });
  game.builder = null;
  setPlayButtons();
  try {
    await sendGame();
    $("play-text").value = "";
  } catch (error) {
    game.history.pop();
    game.builder = new MoveBuilder(turn);
    await drawTurn();
    playStatus(error.message, true);
  }
}

async function clickPoint(printed) {
  const builder = game.builder;
  if (!builder) return;
  const own = playBoard.own(printed);
  if (game.selected !== null) {
    if (own === game.selected) return playPath(builder.highest(own), own);
    if (game.targets.has(own)) return playPath(game.targets.get(own), own);
  }
  if (builder.counts[own] > 0) {
    if ($("play-quick").checked) return playPath(builder.highest(own), own);
    const targets = builder.targets(own);
    if (!targets.size) {
      deselect();
      playStatus(builder.complete() ? "The move is complete: press \"Play move\" or reset it."
        : `No legal move from point ${own}.`);
      return;
    }
    game.selected = own;
    game.targets = targets;
    playBoard.mark("selected", [own]);
    playBoard.mark("target", [...targets.keys()]);
    setPlayButtons();
    const where = [...targets.keys()].sort((a, b) => b - a).map((p) => (p === 0 ? "off" : String(p)));
    playStatus(`Point ${own} chosen: it can go to ${where.join(", ")}.`);
    return;
  }
  deselect();
}

function deselect() {
  game.selected = null;
  game.targets = new Map();
  playBoard.mark("selected", []);
  playBoard.mark("target", []);
  setPlayButtons();
}

async function clickOff() {
  if (game.builder && game.selected !== null && game.targets.has(0)) await playPath(game.targets.get(0), game.selected);
}

async function playPath(path, from) {
  if (!path) {
    playStatus(`No legal move from point ${from}.`);
    return;
  }
  game.builder.play(path);
  game.selected = null;
  game.targets = new Map();
  const last = path[path.length - 1];
  playStatus(`${path[0][0]}/${last[1] === 0 ? "off" : last[1]} played.`);
  await drawTurn();
}

async function showHint() {
  const state = game.state;
  if (!state || state.status !== "your_turn") return;
  const turn = state.turn;
  const box = $("play-hints");
  box.replaceChildren(element("p", { class: "muted", text: "Thinking..." }));
  try {
    const params = { position: state.position.id, plies: 1, dice: turn.dice ? `${turn.dice[0]}-${turn.dice[1]}` : null };
    if (state.game === "gioul" && state.position.pending && state.position.pending.length) params.dice = null;
    const hint = await call("hint", { params });
    box.replaceChildren(hintTable(hint, (move) => submitMove(move)));
  } catch (error) {
    box.replaceChildren(element("p", { class: error.code === "unsupported" ? "unsupported" : "error", text: error.message }));
  }
}

function hintTable(hint, onPlay, onShow = null) {
  const rows = hint.moves.map((m, i) => {
    const cells = [element("td", { class: "num", text: String(i + 1) }), element("td", { text: m.move })];
    if (m.equity !== undefined) {
      cells.push(element("td", { class: "num", text: signed(m.equity) }));
      cells.push(element("td", { class: "num", text: i === 0 ? "" : signed(-m.loss) }));
    }
    const actions = element("td");
    if (onShow) actions.append(element("button", { type: "button", text: "show", "aria-label": `show ${m.move}`, onclick: () => onShow(m) }));
    if (onPlay) actions.append(element("button", { type: "button", text: "play", "aria-label": `play ${m.move}`, onclick: () => onPlay(m.move) }));
    cells.push(actions);
    return element("tr", { class: i === 0 ? "best" : "" }, ...cells);
  });
  const head = ["#", "Move"];
  if (hint.moves.length && hint.moves[0].equity !== undefined) head.push("Equity", "Difference");
  head.push("");
  const table = element("table", { class: "hint-table" },
    element("tr", {}, ...head.map((h) => element("th", { text: h }))), ...rows);
  const wrapper = element("div", {}, element("p", { class: "muted", text: `By ${hint.method}, for the side to play.` }));
  if (hint.note) wrapper.append(element("p", { class: "note", text: hint.note }));
  wrapper.append(table);
  return wrapper;
}

function initPlay() {
  playBoard = new BoardView($("play-board"), { onPoint: clickPoint, onOff: clickOff, label: "game board" });
  fillEngines();
  on($("play-game"), "change", fillEngines);
  on($("play-setup"), "submit", newGame);
  on($("play-submit"), "click", () => {
    const done = game.builder && game.builder.complete();
    return done ? submitMove(done.move) : null;
  });
  on($("play-reset"), "click", async () => {
    if (!game.builder) return;
    game.builder.reset();
    game.selected = null;
    game.targets = new Map();
    playStatus("Move reset: play your dice again.");
    await drawTurn();
  });
  on($("play-board"), "keydown", (event) => {
    if (event.key === "Escape" && game.selected !== null) {
      deselect();
      playStatus("No checker chosen.");
    }
  });
  on($("play-undo"), "click", async () => {
    try {
      await sendGame({ undo: true });
      playStatus("Undone: the same dice again. " + $("play-status").textContent);
    } catch (error) {
      playStatus(error.message, true);
    }
  });
  on($("play-hint"), "click", showHint);
  on($("play-typed"), "submit", (event) => {
    event.preventDefault();
    const text = $("play-text").value.trim();
    return text ? submitMove(text) : null;
  });
  on($("play-pick"), "submit", (event) => {
    event.preventDefault();
    return $("play-moves").value ? submitMove($("play-moves").value) : null;
  });
  on($("play-analyse"), "click", () => {
    if (!game.state) return null;
    $("rec-text").value = JSON.stringify(game.state.record, null, 1);
    showTab("record");
    return openRecord();
  });
}

// ------------------------------------------------------------------ a position: set up, evaluate, rank

const pos = { data: null, view: null, board: null };

function fillDice() {
  for (const [id, value] of [["pos-d1", 6], ["pos-d2", 5]]) {
    $(id).replaceChildren(...[1, 2, 3, 4, 5, 6].map((d) => element("option", { value: d, text: String(d), selected: d === value })));
  }
}

function posStatus(message, error = false) {
  say($("pos-status"), message, error);
}

async function showPosition(event) {
  if (event) event.preventDefault();
  const text = $("pos-text").value.trim() || "start";
  const gameName = $("pos-game").value || null;
  $("pos-eval").replaceChildren();
  $("pos-moves").replaceChildren();
  try {
    const data = await call("position", { params: { position: text, game: gameName } });
    pos.data = data;
    $("pos-turn").value = data.turn;
    const dice = data.decision_dice && data.decision_dice.length ? data.decision_dice : null;
    await pos.board.show(data.id, { game: data.game, dice, perspective: $("pos-view").value, counts: data });
    const pending = data.pending && data.pending.length ? `; ${colorName(data.turn)} has ${diceText(data.pending)} to play` : "";
    posStatus(`${data.game === "gioul" ? "Gioul" : "Fevga"} position ${data.id}: ${data.caption}${pending}.`);
    $("pos-d1").disabled = $("pos-d2").disabled = Boolean(dice);
    await evaluatePosition();
  } catch (error) {
    pos.data = null;
    posStatus(error.message, true);
  }
}

async function evaluatePosition() {
  const data = pos.data;
  const box = $("pos-eval");
  if (!data) return;
  if (data.winner) {
    box.replaceChildren(element("p", { text: `${colorName(data.winner)} has won.` }));
    return;
  }
  try {
    const plies = Math.min(Number($("pos-eval-plies").value), data.max_plies.evaluate);  // Gioul: as deep as its net goes
    const e = await call("evaluate", { params: { position: data.id, game: data.game, plies } });
    const rows = [["Win", e.win], ["Win a mars", e.win_mars], ["Lose a mars", e.lose_mars], ["Lose", e.lose]]
      .map(([name, value]) => element("tr", {}, element("th", { text: name }), element("td", { class: "num", text: (100 * value).toFixed(1) + "%" })));
    box.replaceChildren(element("p", {}, `For ${data.turn} to play, ${e.plies}-ply: equity `,
                                element("strong", { text: signed(e.equity) })),
                        element("table", { class: "eval-table" }, ...rows));
  } catch (error) {
    box.replaceChildren(element("p", { class: error.code === "unsupported" ? "unsupported" : "error",
                                       text: (error.code === "unsupported" ? "Not available: " : "") + error.message }));
  }
}

// A plies menu's choice as the API's parameters, at most `deepest` plies: "1", "2" (the game's
// own search: every move in Gioul, the move filter in Fevga), "2e" (2 plies over every move) or
// "2f" (over the 1-ply best few, the move filter's).
function searchOf(choice, deepest) {
  const plies = Math.min(parseInt(choice, 10), deepest);
  const every = { e: true, f: false }[choice.slice(-1)];
  return { plies, every_move: plies >= 2 && every !== undefined ? every : null };
}

async function rankMoves(event) {
  if (event) event.preventDefault();
  const data = pos.data;
  const box = $("pos-moves");
  if (!data) return;
  const pending = data.pending && data.pending.length;
  const search = searchOf($("pos-hint-plies").value, data.max_plies.hint);
  const params = { position: data.id, game: data.game, ...search, after: true,
                   dice: pending ? null : `${$("pos-d1").value}-${$("pos-d2").value}` };
  box.replaceChildren(element("p", { class: "muted", text: "Ranking..." }));
  try {
    const hint = await call("hint", { params });
    const dice = pending ? data.decision_dice : [Number($("pos-d1").value), Number($("pos-d2").value)];
    box.replaceChildren(hintTable(hint, null, async (m) => {
      await pos.board.show(m.after, { game: data.game, perspective: $("pos-view").value });
      posStatus(`After ${m.move} (position ${m.after}). Press "Show" to go back to ${data.id}.`);
    }));
    await pos.board.show(data.id, { game: data.game, dice, perspective: $("pos-view").value, counts: data });
  } catch (error) {
    box.replaceChildren(element("p", { class: error.code === "unsupported" ? "unsupported" : "error", text: error.message }));
  }
}

function editedJson(white, black, turn) {
  const base = pos.data.game === "gioul"
    ? { game: "gioul", next_roll: pos.data.json.next_roll, roller: null, dice: [] } : {};
  return JSON.stringify({ ...base, white, black, turn });
}

async function editPoint(printed) {
  const tool = document.querySelector("input[name=pos-tool]:checked").value;
  if (!tool || !pos.data) return;
  const white = pos.data.white.slice();
  const black = pos.data.black.slice();
  const whitePoint = printed;
  const blackPoint = otherPoint(printed);
  if (tool === "remove") {
    if (white[whitePoint]) { white[whitePoint] -= 1; white[0] += 1; }
    else if (black[blackPoint]) { black[blackPoint] -= 1; black[0] += 1; }
    else return posStatus("No checker to remove there.", true);
  } else {
    const mine = tool === "white" ? white : black;
    const theirs = tool === "white" ? black : white;
    const at = tool === "white" ? whitePoint : blackPoint;
    const theirPoint = tool === "white" ? blackPoint : whitePoint;
    if (theirs[theirPoint]) return posStatus("That point is held by the other side (one side per point).", true);
    if (!mine[0]) return posStatus(`${colorName(tool)} has no borne-off checker left to place: remove one first.`, true);
    mine[0] -= 1;
    mine[at] += 1;
  }
  $("pos-text").value = editedJson(white, black, $("pos-turn").value);
  await showPosition();
}

function initPosition() {
  pos.board = new BoardView($("pos-board"), { onPoint: editPoint, label: "position" });
  fillDice();
  on($("pos-form"), "submit", showPosition);
  on($("pos-rank"), "submit", rankMoves);
  on($("pos-view"), "change", () => showPosition());
  on($("pos-eval-plies"), "change", evaluatePosition);
  on($("pos-turn"), "change", () => {
    if (!pos.data) return null;
    $("pos-text").value = editedJson(pos.data.white, pos.data.black, $("pos-turn").value);
    return showPosition();
  });
  on($("pos-empty"), "click", () => {
    const off = [15].concat(Array(24).fill(0));
    if (!pos.data) return null;
    $("pos-text").value = editedJson(off, off.slice(), $("pos-turn").value);
    return showPosition();
  });
  on($("pos-start"), "click", () => {
    $("pos-text").value = "start";
    return showPosition();
  });
}

// ------------------------------------------------------------------ a record and its analysis

const rec = { analysis: null, replay: null, game: 0, ply: 0, board: "before", view: null };

function recStatus(message, error = false) {
  say($("rec-status"), message, error);
}

async function openRecord(event) {
  if (event) event.preventDefault();
  const text = $("rec-text").value;
  if (!text.trim()) return recStatus("Choose a record file or paste a record first.", true);
  rec.analysis = null;
  rec.replay = null;
  $("rec-view").hidden = true;
  recStatus("Analysing...");
  try {
    rec.analysis = await call("analyse", { method: "POST", text, params: { ...searchOf($("rec-plies").value, 2), graphs: true } });
    const plies = rec.analysis.games.reduce((n, g) => n + g.plies.length, 0);
    recStatus(`Analysed ${plural(rec.analysis.games.length, "game")}, ${plural(plies, "move")} (${rec.analysis.evaluator}).`);
  } catch (error) {
    if (error.code !== "unsupported") return recStatus(error.message, true);
    try {
      rec.replay = await call("record", { method: "POST", text });
    } catch (again) {
      return recStatus(again.message, true);
    }
    recStatus(`Not analysed: ${error.message}. Its decisions can still be stepped through below.`);
  }
  rec.game = 0;
  rec.ply = 0;
  fillGames();
  $("rec-view").hidden = false;
  await showGame();
}

function games() {
  return rec.analysis ? rec.analysis.games : rec.replay.games;
}

function movesOf(g) {
  return rec.analysis ? g.plies : g.decisions;
}

function fillGames() {
  $("rec-game").replaceChildren(...games().map((g, i) => element("option", {
    value: String(i), text: `Game ${g.game}: ${g.result}${g.points ? ", " + plural(g.points, "point") : ""}` })));
  const summary = $("rec-summary");
  if (!rec.analysis) {
    summary.replaceChildren(element("p", { class: "unsupported",
      text: "This record was not analysed (see above). Each decision is shown with its dice; hand-overs and chain blocks are named." }));
    return;
  }
  const a = rec.analysis;
  const head = element("tr", {}, element("th"), ...a.players.map((p) => element("th", { text: `${p.name} (${p.color})` })));
  const row = (name, f) => element("tr", {}, element("th", { text: name }), ...a.players.map((p) => element("td", { class: "num", text: f(p) })));
  summary.replaceChildren(element("table", { class: "summary" }, head,
    row("Unforced decisions", (p) => String(p.decisions)),
    row("Total equity loss", (p) => p.total_loss.toFixed(3)),
    row("Performance rating", (p) => p.rating.toFixed(1) + (p.band ? ` (${p.band})` : "")),
    row("Doubtful / bad / very bad", (p) => `${p.marks.doubtful} / ${p.marks.bad} / ${p.marks["very bad"]}`),
    row("Luck", (p) => signed(p.luck))));
}

async function showGame() {
  const g = games()[rec.game];
  $("rec-game").value = String(rec.game);
  const box = $("rec-graph");
  box.replaceChildren();
  if (g.graph) {
    box.innerHTML = g.graph;
    const svg = box.querySelector("svg");
    svg.setAttribute("tabindex", "-1");
    on(svg, "click", (event) => graphClick(event, svg));
  }
  renderPlies();
  await showPly();
}

function graphXs(svg) {
  const line = svg.querySelector("polyline");
  if (!line) return [];
  return line.getAttribute("points").trim().split(/\s+/).map((xy) => Number(xy.split(",")[0]));
}

function graphClick(event, svg) {
  const matrix = svg.getScreenCTM();
  if (!matrix) return null;
  const point = svg.createSVGPoint();
  point.x = event.clientX;
  point.y = event.clientY;
  const x = point.matrixTransform(matrix.inverse()).x;
  const xs = graphXs(svg);
  if (!xs.length) return null;
  let best = 0;
  xs.forEach((value, i) => { if (Math.abs(value - x) < Math.abs(xs[best] - x)) best = i; });
  return goPly(best);
}

function markGraph() {
  const svg = $("rec-graph").querySelector("svg");
  if (!svg) return;
  const xs = graphXs(svg);
  let cursor = svg.querySelector(".cursor");
  if (!cursor) {
    cursor = document.createElementNS("http://www.w3.org/2000/svg", "line");
    cursor.setAttribute("class", "cursor");
    const frame = svg.querySelector("rect");
    cursor.setAttribute("y1", frame.getAttribute("y"));
    cursor.setAttribute("y2", String(Number(frame.getAttribute("y")) + Number(frame.getAttribute("height"))));
    svg.append(cursor);
  }
  const x = xs[rec.ply];
  cursor.setAttribute("x1", String(x));
  cursor.setAttribute("x2", String(x));
}

function plyLabel(p) {
  return rec.analysis ? `${p.move}` : `${p.number}`;
}

function renderPlies() {
  const g = games()[rec.game];
  const list = movesOf(g);
  const head = rec.analysis
    ? ["Move", "Player", "Dice", "Played", "Best", "Loss", "Mark", "Luck"]
    : ["#", "Player", "Why", "Dice", "Move"];
  const names = rec.analysis ? rec.analysis.player_names : rec.replay.players;
  const rows = list.map((p, i) => {
    const go = element("button", { type: "button", text: plyLabel(p), "aria-label": `go to move ${plyLabel(p)}`, onclick: () => goPly(i) });
    const player = names[p.turn === "black" || p.mover === "black" ? 1 : 0];
    let cells;
    if (rec.analysis) {
      cells = [element("td", {}, go), element("td", { text: player }), element("td", { text: plyDice(p) }),
               element("td", { text: p.played.move }), element("td", { text: p.forced || p.loss === 0 ? "" : p.best.move }),
               element("td", { class: "num", text: p.forced ? "forced" : p.loss.toFixed(3) }),
               element("td", { class: "mark", text: p.mark }), element("td", { class: "num", text: signed(p.luck) })];
    } else {
      cells = [element("td", {}, go), element("td", { text: player }), element("td", { text: p.kind }),
               element("td", { text: diceText(p.decision_dice) }), element("td", { text: p.move })];
    }
    return element("tr", { class: (p.mark || "").replace(" ", "-"), "data-index": String(i) }, ...cells);
  });
  $("rec-plies-table").replaceChildren(element("table", {}, element("tr", {}, ...head.map((h) => element("th", { text: h }))), ...rows));
}

function goPly(index) {
  const list = movesOf(games()[rec.game]);
  if (!list.length) return null;
  rec.ply = Math.max(0, Math.min(list.length - 1, index));
  rec.board = "before";
  return showPly();
}

async function showPly() {
  const g = games()[rec.game];
  const list = movesOf(g);
  const detail = $("rec-detail");
  for (const row of $("rec-plies-table").querySelectorAll("tr.current")) row.classList.remove("current");
  if (!list.length) {
    $("rec-where").textContent = "no moves";
    detail.replaceChildren(element("p", { text: "This game has no moves." }));
    await rec.view.show(g.final || "start", {});
    return;
  }
  const p = list[rec.ply];
  const row = $("rec-plies-table").querySelector(`tr[data-index="${rec.ply}"]`);
  if (row) {
    row.classList.add("current");
    const box = $("rec-plies-table");  // scroll the table, not the page
    if (row.offsetTop < box.scrollTop || row.offsetTop + row.offsetHeight > box.scrollTop + box.clientHeight) {
      box.scrollTop = row.offsetTop - box.clientHeight / 2;
    }
  }
  $("rec-where").textContent = rec.analysis ? `ply ${rec.ply + 1} of ${list.length} (move ${p.move})`
    : `decision ${rec.ply + 1} of ${list.length}`;
  $("rec-first").disabled = $("rec-prev").disabled = rec.ply === 0;
  $("rec-next").disabled = $("rec-last").disabled = rec.ply === list.length - 1;
  const mover = p.turn || p.mover;
  const names = rec.analysis ? rec.analysis.player_names : rec.replay.players;
  const player = names[mover === "black" ? 1 : 0];
  const name = player.toLowerCase() === mover ? player : `${player} (${mover})`;
  for (const which of ["before", "played", "best"]) $(`rec-show-${which}`).setAttribute("aria-pressed", String(rec.board === which));
  $("rec-show-best").disabled = $("rec-show-played").disabled = false;
  if (rec.analysis) {
    markGraph();
    const why = !p.kind ? `rolled ${rollText(p.dice)}` : p.kind === "roll" ? `plays ${plyDice(p)} of a new roll`
      : p.kind === "block" ? `plays the next block of the chain, ${plyDice(p)}` : `plays ${plyDice(p)} handed over`;
    const lines = [element("p", {}, element("strong", { text: `${name} ${why}` }),
                   `: played ${p.played.move} (${signed(p.played.equity)})`)];
    if (p.forced) lines.push(element("p", { text: "Forced: the only legal move." }));
    else if (p.loss === 0) lines.push(element("p", { class: "good", text: `The best move (rank 1 of ${p.legal_moves}).` }));
    else {
      lines.push(element("p", {}, `Best: ${p.best.move} (${signed(p.best.equity)}); error `,
                         element("strong", { text: p.loss.toFixed(3) }), p.mark ? ` \u2014 ${p.mark}` : "",
                         `; ranked ${p.rank} of ${p.legal_moves}.`));
    }
    lines.push(element("p", { text: `Luck of the roll: ${signed(p.luck)}${p.luck_mark ? " (" + p.luck_mark + ")" : ""}.` }));
    detail.replaceChildren(...lines);
    const listed = p.ranking.map((m, i) => [i + 1, m]);
    if (!p.ranking.some((m) => m.position === p.played.position)) listed.push([p.rank, p.played]);  // as the report does
    const ranking = listed.map(([rank, m]) => element("tr", { class: (m.position === p.played.position ? "played " : "") + (rank === 1 ? "best" : "") },
      element("td", { class: "num", text: String(rank) }), element("td", { text: m.move + (m.position === p.played.position ? " (played)" : "") }),
      element("td", { class: "num", text: signed(m.equity) }), element("td", { class: "num", text: rank > 1 ? signed(m.equity - p.best.equity) : "" })));
    $("rec-ranking").replaceChildren(element("table", {}, element("tr", {}, ...["#", "Move", "Equity", "Difference"].map((h) => element("th", { text: h }))), ...ranking));
    const shown = { before: [p.position, p.dice], played: [p.played.position, null], best: [p.best.position, null] }[rec.board];
    await rec.view.show(shown[0], { dice: shown[1], perspective: "white" });
  } else {
    $("rec-show-best").disabled = true;
    if (rec.board === "best") rec.board = "before";
    const why = p.kind === "roll" ? `rolled ${rollText(p.dice)}${playsText(p.dice, p.decision_dice)}`
      : p.kind === "block" ? `plays the next block of the chain, ${diceText(p.decision_dice)}`
        : `plays ${diceText(p.decision_dice)} handed over from ${p.roller}'s roll`;
    detail.replaceChildren(element("p", {}, element("strong", { text: `${name} ${why}` }), `: ${p.move} (one of ${plural(p.choices, "legal move")}).`));
    $("rec-ranking").replaceChildren();
    const shown = rec.board === "played" ? [p.after, null] : [p.before, null];
    await rec.view.show(shown[0], { game: "gioul", dice: rec.board === "played" ? null : p.decision_dice, perspective: "white" });
  }
}

function initRecord() {
  rec.view = new BoardView($("rec-board"), { label: "record" });
  on($("rec-form"), "submit", openRecord);
  on($("rec-file"), "change", async () => {
    const file = $("rec-file").files[0];
    if (!file) return;
    if (file.size > 1 << 20) return recStatus(`${file.name} is ${file.size} bytes: the server takes records up to 1 MiB.`, true);
    $("rec-text").value = await file.text();
    await openRecord();
  });
  on($("rec-game"), "change", () => { rec.game = Number($("rec-game").value); rec.ply = 0; return showGame(); });
  on($("rec-first"), "click", () => goPly(0));
  on($("rec-prev"), "click", () => goPly(rec.ply - 1));
  on($("rec-next"), "click", () => goPly(rec.ply + 1));
  on($("rec-last"), "click", () => goPly(Infinity));
  for (const which of ["before", "played", "best"]) {
    on($(`rec-show-${which}`), "click", () => { rec.board = which; return showPly(); });
  }
  on($("record"), "keydown", (event) => {
    if ($("rec-view").hidden || ["TEXTAREA", "INPUT", "SELECT"].includes(event.target.tagName)) return null;
    const step = { ArrowRight: 1, ArrowLeft: -1, Home: -Infinity, End: Infinity }[event.key];
    if (step === undefined) return null;
    event.preventDefault();
    return goPly(Math.abs(step) === Infinity ? step : rec.ply + step);
  });
}

// ------------------------------------------------------------------ start

// The game's settings from the address, so that a link opens the same game:
// /?game=gioul&side=black&engine=heuristic&seed=7&speed=0 (unknown values are ignored).
function settingsFromAddress() {
  const query = new URLSearchParams(location.search);
  const choose = (id, value) => {
    if (value !== null && [...$(id).options].some((option) => option.value === value)) $(id).value = value;
  };
  choose("play-game", query.get("game"));
  fillEngines();
  choose("play-engine", query.get("engine"));
  choose("play-side", query.get("side"));
  choose("play-speed", query.get("speed"));
  const seed = query.get("seed");
  if (seed !== null && /^\d+$/.test(seed)) $("play-seed").value = seed;
}

async function start() {
  initTabs();
  initPlay();
  initPosition();
  initRecord();
  settingsFromAddress();
  const hash = location.hash.replace("#", "");
  showTab(["play", "position", "record"].includes(hash) ? hash : "play");
  busy(+1);
  try {
    await Promise.all([newGame(), showPosition()]);
  } finally {
    busy(-1);
  }
}

start();
