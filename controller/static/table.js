// Live page of one table: the score sheet, who is up, rulings with their laws, the game's
// history, devices, and the operator's panel (shown once signed in). Plain DOM and textContent only: player names are typed by
// people, so nothing from the server is ever parsed as HTML.
"use strict";

(() => {
  const BOOKS = {
    "000_d7ba09a064da292c.txt": "Hoyle's Games (1940)",
    "001_976a69a7504f98ef.txt": "Round Games with Cards (1897)",
  };
  // Pin spots as a bowler sees the deck from the foul line: head pin nearest, 7 back left.
  const PIN_SPOTS = {
    7: [0, 0], 8: [2, 0], 9: [4, 0], 10: [6, 0],
    4: [1, 1], 5: [3, 1], 6: [5, 1],
    2: [2, 2], 3: [4, 2],
    1: [3, 3],
  };
  const MARK_WORDS = { X: "strike", "/": "spare", F: "foul", "-": "no pins" };
  const MARK_CLASSES = { X: "mark-strike", "/": "mark-spare", F: "mark-foul", "-": "mark-miss" };
  const CSRF_HEADER = "X-CSRF-Token";
  const HISTORY_SHOWN = 200;
  const HISTORY_PAGE = 500;
  const CUE_FAMILIES = ["carom-billiards", "pocket-billiards"];
  const FIRST_RETRY_MS = 500;
  const LAST_RETRY_MS = 15000;
  const SVG = "http://www.w3.org/2000/svg";
  // A number as the operator types it in a list: 7, -2, 0.5, 1e3 (not "0x10" nor "").
  const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

  const state = {
    view: null,
    socket: null,
    retryTimer: 0,
    attempt: 0,
    rulings: [],
    flagForms: new Map(),
    playersShown: "",
    upShown: "",
    turnShown: "",
    gamesLoaded: false,
    kind: "",
    operator: false,
    csrf: "",
    historySeq: 0,
    history: [],
    historyBusy: false,
    historyAgain: false,
    historyEpoch: 0,
    lawSeq: 0,
    correctShown: "",
    correctFieldsFor: "",
    correctFields: [],
  };

  const $ = (id) => document.getElementById(id);

  function el(tag, props, ...kids) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = String(value);
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (key === "checked" || key === "value") node[key] = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const kid of kids.flat()) {
      if (kid !== null && kid !== undefined && kid !== false) node.append(kid);
    }
    return node;
  }

  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
    return node;
  }

  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const list = (v) => (Array.isArray(v) ? v : []);
  const str = (v) => (typeof v === "string" ? v : v === null || v === undefined ? "" : String(v));
  const count = (v, fallback) => (Number.isInteger(v) && v > 0 ? v : fallback);
  const words = (kind) => {
    const text = str(kind).replace(/[-_]+/g, " ").trim();
    return text ? text[0].toUpperCase() + text.slice(1) : "Ruling";
  };
  const joinNames = (names) =>
    names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  const currentGame = () => (state.view && isObject(state.view.game) ? state.view.game : null);

  // ---- rendering ---------------------------------------------------------------------

  // What the family views and words.js are given to build with: the one set of helpers of
  // the page.
  const helpers = () => ({ $, el, svg, list, str, isObject, words, joinNames, act, say });

  function render(view) {
    state.view = view;
    const game = isObject(view.game) ? view.game : null;
    const dice = game !== null && game.family === "dice";
    const cards = game !== null && game.family === "banking-cards";
    const cue = game !== null && CUE_FAMILIES.includes(game.family);
    renderHeader(view, game);
    renderBanner(view);
    renderUp(view, game);
    renderSheet(dice || cards || cue ? null : game);
    window.hoyleDice.render(helpers(), dice ? game : null);
    window.hoyleCards.render(helpers(), cards ? game : null, view.camera);
    window.hoyleBilliards.render(helpers(), cue ? game : null);
    window.hoyleDice.renderAudit(helpers(), view);
    renderRulings(game);
    followHistory(view, game);
    renderDevices(list(view.devices));
    renderOperator(view, game);
    renderKind(str(view.kind));
    renderBlocked(view);
  }

  // An entry the rules cannot rule stops the table: the page says so where it says "Live",
  // and the operator's panel offers to void it.
  function renderBlocked(view) {
    const blocked = isObject(view.blocked) ? view.blocked : null;
    if (state.socket) {
      setLink(blocked ? "blocked" : "live", blocked ? "Stopped: needs the operator" : "Live");
    }
    $("blocked").hidden = !blocked;
    if (!blocked) return;
    $("blocked-text").textContent = str(view.why);
    $("blocked").dataset.seq = str(blocked.seq);
    $("blocked-void").textContent = `Void entry #${str(blocked.seq)}`;
  }

  // The operator's panel holds the table's own acts: a dead ball is a lane's, and a lane
  // has bowlers where the other tables have players.
  function renderKind(kind) {
    state.kind = kind;
    $("dead-ball").hidden = kind !== "lane";
    $("players-label").textContent = `${kind === "lane" ? "Bowlers" : "Players"}, one per line`;
  }

  function renderHeader(view, game) {
    const table = str(view.name) || str(view.table) || "Table";
    $("table-name").textContent = table;
    $("game-name").textContent = game ? str(game.name) : "No game";
    document.title = game ? `${table} · ${str(game.name)}` : table;
  }

  function renderBanner(view) {
    const paused = view.status === "paused";
    const flags = list(view.flags);
    const pausedLine = $("banner-paused");
    pausedLine.hidden = !paused;
    pausedLine.textContent = paused ? `Paused: ${str(view.why) || "waiting for the operator"}` : "";
    $("banner-flags").replaceChildren(
      ...flags.map((flag) => el("li", { text: `Awaiting the operator: ${str(flag.what)}` })),
    );
    $("banner").hidden = !paused && flags.length === 0;
  }

  function rowOf(game, player) {
    return list(game.sheet).find((row) => isObject(row) && row.player === player) || null;
  }

  function renderUp(view, game) {
    const up = game && isObject(game.up) ? game.up : null;
    let label = "";
    let name = "";
    let where = "";
    let standingText = "";
    let pins = null;
    if (!game) {
      label = view.status === "paused" ? "Paused" : "No game";
      name = str(view.name) || str(view.table);
      where = "Waiting for the operator to start a game";
    } else if (game.over) {
      const winners = list(game.winners).map(str);
      const row = winners.length ? rowOf(game, winners[0]) : null;
      const total = row && row.total !== null && row.total !== undefined ? row.total : "";
      label = "Game over";
      name = winners.length === 0 ? "No winner"
        : winners.length === 1 ? `${winners[0]} wins` : `${joinNames(winners)} tie`;
      where = total === "" ? "" : `with ${total}`;
    } else if (game.family === "dice") {
      ({ label, name, where } = window.hoyleDice.up(helpers(), game));
    } else if (game.family === "banking-cards") {
      ({ label, name, where } = window.hoyleCards.up(helpers(), game));
    } else if (CUE_FAMILIES.includes(game.family)) {
      ({ label, name, where } = window.hoyleBilliards.up(helpers(), game));
    } else if (up) {
      const row = rowOf(game, up.player);
      label = "Up";
      name = str(up.player);
      where = `Frame ${str(up.frame)} of ${count(game.frames, 10)} · ball ${str(up.ball)}`;
      if (row && row.total !== null && row.total !== undefined) where += ` · total ${row.total}`;
      const standing = list(up.standing).slice().sort((a, b) => a - b);
      standingText = standing.length === 0 ? "All pins down"
        : `${standing.length} standing: ${standing.join(", ")}`;
      pins = pinDeck(list(game.pins), new Set(standing));
    } else {
      label = "Waiting";
      name = str(game.name);
    }
    $("up-label").textContent = label;
    $("up-name").textContent = name;
    $("up-where").textContent = where;
    $("up-standing").textContent = standingText;
    $("up-pins").replaceChildren(...(pins ? [pins] : []));
    $("up").classList.toggle("over", Boolean(game && game.over));
  }

  function pinDeck(pins, standing) {
    const deck = svg("svg", { viewBox: "0 0 150 94", class: "pin-deck", role: "img" });
    for (const pin of pins) {
      const spot = PIN_SPOTS[pin];
      if (!spot) continue;
      const up = standing.has(pin);
      const group = svg("g", { class: up ? "pin pin-up" : "pin pin-down" });
      const cx = 15 + spot[0] * 20;
      const cy = 14 + spot[1] * 22;
      group.append(svg("circle", { cx, cy, r: 9.5 }));
      const label = svg("text", { x: cx, y: cy + 0.5, "text-anchor": "middle",
        "dominant-baseline": "middle" });
      label.textContent = String(pin);
      group.append(label);
      deck.append(group);
    }
    return deck;
  }

  function sheetRows(game) {
    const rows = list(game.sheet).filter(isObject);
    const named = new Set(rows.map((row) => row.player));
    for (const player of list(game.players)) {
      if (!named.has(player)) rows.push({ player, frames: [], total: null });
    }
    return rows;
  }

  function ballsPerFrame(game, rows, frames) {
    if (Number.isInteger(game.balls) && game.balls > 0) return game.balls;
    let most = 2;
    for (const row of rows) {
      list(row.frames).slice(0, frames - 1).forEach((frame) => {
        if (isObject(frame)) most = Math.max(most, list(frame.balls).length);
      });
    }
    return most;
  }

  function renderSheet(game) {
    const panel = $("sheet-panel");
    const table = $("sheet");
    if (!game) {
      panel.hidden = true;
      table.replaceChildren();
      return;
    }
    panel.hidden = false;
    const frames = count(game.frames, 10);
    const rows = sheetRows(game);
    const perFrame = ballsPerFrame(game, rows, frames);
    const up = isObject(game.up) && !game.over ? game.up : null;
    const winners = new Set(game.over ? list(game.winners) : []);
    table.style.setProperty("--frames", String(frames));

    const head = el("tr", {},
      el("th", { scope: "col", class: "name-col", text: "Bowler" }),
      Array.from({ length: frames }, (_, i) => el("th", { scope: "col", text: String(i + 1) })),
      el("th", { scope: "col", class: "total-col", text: "Total" }));
    let upMarked = false;
    const body = rows.map((row) => {
      const isUp = Boolean(up) && !upMarked && row.player === up.player;
      upMarked = upMarked || isUp;
      const cells = Array.from({ length: frames }, (_, i) => frameCell(
        list(row.frames)[i], i + 1, i === frames - 1, perFrame, isUp && up.frame === i + 1));
      const total = row.total === null || row.total === undefined ? "" : String(row.total);
      return el("tr", { class: [isUp ? "is-up" : "", winners.has(row.player) ? "winner" : ""]
        .join(" ").trim() || null },
        el("th", { scope: "row", class: "name-col" },
          el("span", { class: "bowler", title: str(row.player), text: str(row.player) }),
          winners.has(row.player) ? el("span", { class: "badge", text: "Winner" }) : null),
        cells,
        el("td", { class: "total-col", "aria-label": `Total ${total || "none yet"}` },
          el("span", { class: "grand-total", text: total })));
    });
    table.replaceChildren(el("thead", {}, head), el("tbody", {}, body));
    const turn = up ? `${str(up.player)}|${str(up.frame)}` : "";
    if (turn !== state.turnShown) {
      state.turnShown = turn;
      revealCurrentFrame(table);
    }
  }

  // On a phone the frames scroll sideways between the names and the totals, which stay in
  // sight; bring the frame being bowled into view when the turn changes, and otherwise
  // leave the scroll where the reader put it.
  function revealCurrentFrame(table) {
    const cell = table.querySelector("td.current");
    const scroller = table.parentElement;
    if (!cell || !scroller) return;
    const name = table.querySelector("tbody .name-col");
    const total = table.querySelector("tbody .total-col");
    const covered = name ? name.offsetWidth : 0;
    const shown = scroller.clientWidth - (total ? total.offsetWidth : 0);
    const left = cell.offsetLeft - covered;
    const right = cell.offsetLeft + cell.offsetWidth;
    if (left < scroller.scrollLeft || right > scroller.scrollLeft + shown) {
      // Keep the frame before in sight too: its total often waits on this one.
      const before = cell.previousElementSibling;
      const from = before && before.matches("td.frame") ? before.offsetLeft - covered : left;
      scroller.scrollLeft = Math.max(0, Math.min(left, Math.max(from, right - shown)));
    }
  }

  function frameCell(frame, number, last, perFrame, current) {
    const balls = isObject(frame) ? list(frame.balls).map(str) : [];
    const boxes = Math.max(last ? Math.max(perFrame, 3) : perFrame, balls.length);
    const slots = Array(boxes).fill("");
    // A strike in an ordinary frame is written in the last small box, as on a paper sheet.
    if (!last && balls.length === 1 && balls[0] === "X") slots[boxes - 1] = "X";
    else balls.forEach((mark, i) => { slots[i] = mark; });
    const total = isObject(frame) && frame.total !== null && frame.total !== undefined
      ? String(frame.total) : "";
    const spoken = balls.map((mark) => MARK_WORDS[mark] || mark).join(", ");
    const label = `Frame ${number}${spoken ? `: ${spoken}` : ""}${total ? `, total ${total}` : ""}`;
    return el("td", { class: `frame${current ? " current" : ""}${last ? " last" : ""}`,
      "aria-label": label },
      el("div", { class: "marks" }, slots.map((mark) =>
        el("span", { class: `mark ${MARK_CLASSES[mark] || ""}`.trim(), text: mark }))),
      el("div", { class: "frame-total", text: total }));
  }

  function renderRulings(game) {
    state.rulings = game ? list(game.rulings).filter(isObject).slice().reverse() : [];
    $("rulings").replaceChildren(...state.rulings.map((ruling) => {
      const law = isObject(ruling.law) ? ruling.law : {};
      return el("li", {},
        el("button", { type: "button", class: "ruling", onclick: () => openLaw(ruling) },
          el("span", { class: "ruling-head" },
            el("span", { class: `ruling-kind kind-${str(ruling.kind).replace(/[^a-z0-9-]/gi, "")}`,
              text: words(ruling.kind) }),
            ruling.who ? el("span", { class: "ruling-who", text: str(ruling.who) }) : null),
          el("span", { class: "ruling-text", text: str(ruling.text) }),
          law.title ? el("span", { class: "ruling-law", text: str(law.title) }) : null));
    }));
    $("rulings-empty").hidden = state.rulings.length > 0;
    $("rulings-hint").hidden = state.rulings.length === 0;
  }

  function openLaw(ruling) {
    const law = isObject(ruling.law) ? ruling.law : {};
    const file = str(law.book);
    const book = BOOKS[file] || file || "the book";
    const lines = str(law.lines).replace("-", "–");
    const amount = Number(ruling.amount);
    const who = str(ruling.who);
    $("law-kind").textContent = [words(ruling.kind), who, amount ? `${amount > 0 ? "+" : ""}${amount}`
      : ""].filter(Boolean).join(" · ");
    $("law-title").textContent = str(law.title) || words(ruling.kind);
    $("law-ruling").textContent = str(ruling.text);
    $("law-source").textContent = lines
      ? `This ruling follows the law printed in ${book}, lines ${lines} of the book's text.`
      : `This ruling follows ${book}.`;
    $("law-book").textContent = book;
    $("law-lines").textContent = lines ? `lines ${lines}` : "not given";
    $("law-file").textContent = file || "not given";
    showLawDetail(null);
    if (Number.isInteger(ruling.seq)) loadLawDetail(ruling.seq, ruling);
    const dialog = $("law");
    if (typeof dialog.showModal === "function") {
      if (!dialog.open) dialog.showModal();
    } else {
      dialog.setAttribute("open", "");
    }
  }

  // The law's words from the book and the entries that led to the ruling, fetched on open.
  async function loadLawDetail(seq, ruling) {
    state.lawSeq = seq;
    let detail;
    try {
      detail = await api("GET", `/api/rulings/${encodeURIComponent(String(seq))}`);
    } catch (err) {
      console.warn("the ruling's detail could not be fetched", err);
      return;
    }
    if (state.lawSeq !== seq || !isObject(detail)) return;
    const rulings = list(detail.rulings).filter(isObject);
    const same = rulings.find((r) => r.kind === ruling.kind && r.text === ruling.text)
      || rulings[0] || {};
    showLawDetail({ ruling: same, events: list(detail.events).filter(isObject),
      earlier: Number(detail.earlier) || 0 });
  }

  function showLawDetail(detail) {
    const law = detail && isObject(detail.ruling.law) ? detail.ruling.law : {};
    const text = str(law.text);
    $("law-text").textContent = text;
    $("law-text").hidden = !text;
    const events = detail ? detail.events : [];
    const items = events.map((entry) =>
      el("li", { text: `#${str(entry.seq)} ${describeEntry(entry)}` }));
    if (detail && detail.earlier > 0) {
      items.unshift(el("li", { class: "empty",
        text: `${detail.earlier} earlier entries of this game not shown` }));
    }
    $("law-events").replaceChildren(...items);
    $("law-events-box").hidden = events.length === 0;
  }

  // ---- history -----------------------------------------------------------------------

  // The entry in words (words.js), read with the game on the page.
  function describeEntry(entry) {
    return window.hoyleWords.entry(helpers(), entry, currentGame());
  }

  // Each view newer than the history fetches the entries after the last one seen, so the
  // history also catches up after a dropped connection (the first view on reconnecting).
  function followHistory(view, game) {
    const seq = Number.isInteger(view.seq) ? view.seq : 0;
    if (!game || seq < state.historySeq) {
      state.history = [];
      state.historySeq = game ? 0 : seq;
      renderHistory();
      if (!game) return;
    }
    if (seq > state.historySeq) fetchHistory();
  }

  async function fetchHistory() {
    if (state.historyBusy) {
      state.historyAgain = true;
      return;
    }
    state.historyBusy = true;
    try {
      do {
        state.historyAgain = false;
        const after = encodeURIComponent(String(state.historySeq));
        const epoch = state.historyEpoch;
        const entries = list(await api("GET", `/api/history?after=${after}&limit=${HISTORY_PAGE}`))
          .filter(isObject);
        if (epoch !== state.historyEpoch) {
          // Fetched for whoever read before a sign-in or sign-out: fetch again from the start.
          state.historyAgain = true;
          continue;
        }
        for (const entry of entries) {
          if (entry.kind === "start") state.history = [];
          state.history.push(entry);
          if (Number.isInteger(entry.seq)) state.historySeq = Math.max(state.historySeq, entry.seq);
        }
        if (entries.length === HISTORY_PAGE) state.historyAgain = true;
        state.history = state.history.slice(-HISTORY_SHOWN);
        renderHistory();
      } while (state.historyAgain);
    } catch (err) {
      console.warn("the history could not be fetched", err);
    } finally {
      state.historyBusy = false;
    }
  }

  // Signing in or out changes what the history may show (the private numbers drawn, which
  // the table sends the operator only): it is fetched again from the game's start.
  function refetchHistory() {
    state.historyEpoch += 1;
    state.history = [];
    state.historySeq = 0;
    renderHistory();
    if (state.view && isObject(state.view.game)) fetchHistory();
  }

  function renderHistory() {
    const shown = state.history.slice().reverse();
    $("history").replaceChildren(...shown.map((entry) => {
      const rulings = list(entry.rulings).filter(isObject);
      return el("li", { class: `history-entry kind-${str(entry.kind).replace(/[^a-z]/g, "")}` },
        el("span", { class: "history-text", text: `#${str(entry.seq)} ${describeEntry(entry)}` }),
        rulings.map((ruling) => el("button", { type: "button", class: "history-ruling",
          onclick: () => openLaw({ ...ruling, seq: entry.seq }) },
        el("span", { class: "ruling-kind", text: words(ruling.kind) }),
        el("span", { class: "ruling-text", text: str(ruling.text) }))));
    }));
    $("history-empty").hidden = shown.length > 0;
    renderCorrections();
  }

  // The game's events as corrected so far, newest first: what the operator may correct.
  function correctable() {
    const events = new Map();
    for (const entry of state.history) {
      const body = isObject(entry.body) ? entry.body : {};
      if (entry.kind === "event" || (entry.kind === "resolve" && isObject(body.event))) {
        events.set(entry.seq, body.event);
      } else if (entry.kind === "correct" && events.has(body.target)) {
        if (isObject(body.event)) events.set(body.target, body.event);
        else events.delete(body.target);
      }
    }
    return [...events].reverse();
  }

  // The choice of entry stays while new entries arrive, so a correction in progress stays.
  function renderCorrections() {
    const events = correctable();
    const key = JSON.stringify(events);
    if (key === state.correctShown) return;
    state.correctShown = key;
    const select = $("correct-target");
    const keep = select.value;
    select.replaceChildren(...events.map(([seq, event]) =>
      el("option", { value: String(seq),
        text: `#${seq} ${window.hoyleWords.event(helpers(), event, [], currentGame())}` })));
    if (events.some(([seq]) => String(seq) === keep)) select.value = keep;
    fillCorrection();
  }

  // The fields are made again only when the chosen entry (or its event) changes, so what
  // the operator is typing stays while other entries arrive.
  function fillCorrection() {
    const chosen = correctable().find(([seq]) => String(seq) === $("correct-target").value);
    const key = chosen ? JSON.stringify(chosen) : "";
    if (key === state.correctFieldsFor) return;
    state.correctFieldsFor = key;
    const event = chosen && isObject(chosen[1]) ? chosen[1] : null;
    const ids = new Set();
    state.correctFields = event ? Object.entries(event).map(([name, value]) => {
      let id = `correct-field-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;
      while (ids.has(id)) id += "-";
      ids.add(id);
      return correctionField(name, value, id);
    }) : [];
    $("correct-fields").replaceChildren(el("legend", { text: "What really happened" }),
      ...(state.correctFields.length ? state.correctFields.map((field) => field.node)
        : [el("p", { id: "correct-fields-empty", class: "empty",
          text: chosen ? "This entry has nothing to edit." : "No entry to correct yet." })]));
  }

  // A string an operator can type in a comma-separated list and get back as it was.
  const listable = (item) => typeof item === "string" && item !== "" && item === item.trim()
    && !item.includes(",");
  const finite = (item) => typeof item === "number" && Number.isFinite(item);

  // How a field of an event is edited, from its value: a list of numbers or of words is
  // typed with commas; anything nested is edited as a little JSON.
  function fieldKind(name, value) {
    if (name === "type") return "fixed";
    if (value === null) return "null";
    if (typeof value === "number" || typeof value === "boolean" || typeof value === "string") {
      return typeof value;
    }
    if (Array.isArray(value)) {
      if (value.length && value.every(finite)) return "numbers";
      if (value.length && value.every(listable)) return "strings";
      // Empty or mixed: each item typed like a number is read back as one.
      if (value.every((item) => finite(item) || (listable(item) && !NUMBER.test(item)))) {
        return "list";
      }
    }
    return "json";
  }

  const HINTS = {
    null: "Empty: none",
    numbers: "Numbers, separated by commas",
    strings: "Separated by commas",
    list: "Separated by commas",
    json: "As JSON",
  };

  // One labelled input for the field `name` of the chosen event; readField reads it back.
  function correctionField(name, value, id) {
    const kind = fieldKind(name, value);
    const label = name.replace(/[_-]+/g, " ").trim() || name;
    const common = { id, name, autocomplete: "off" };
    const hint = HINTS[kind] ? `${id}-hint` : null;
    const described = { ...common, "aria-describedby": hint };
    let input;
    if (kind === "fixed") {
      input = el("input", { ...common, type: "text", readonly: true,
        value: typeof value === "string" ? value : JSON.stringify(value) });
    } else if (kind === "boolean") {
      input = el("input", { ...common, type: "checkbox", checked: value });
    } else if (kind === "number") {
      input = el("input", { ...common, type: "number", step: "any", value: String(value) });
    } else if (kind === "string") {
      input = el("input", { ...common, type: "text", spellcheck: "false", value });
    } else if (kind === "json") {
      input = el("textarea", { ...described, rows: 2, spellcheck: "false", class: "json",
        value: JSON.stringify(value) });
    } else {
      input = el("input", { ...described, type: "text", spellcheck: "false",
        value: kind === "null" ? "" : value.join(", ") });
    }
    const node = kind === "boolean"
      ? el("label", { class: "check", for: id }, input, ` ${label}`)
      : el("div", { class: `field${kind === "json" ? " wide" : ""}` },
        el("label", { for: id, text: label }),
        input,
        hint ? el("span", { id: hint, class: "field-hint", text: HINTS[kind] }) : null);
    return { name, kind, label, value, input, node };
  }

  // The field's value as the operator left it; throws an Error naming the field when it
  // cannot be read.
  function readField(field) {
    const { kind, label, input, value } = field;
    const text = input.value.trim();
    const items = () => text.split(",").map((item) => item.trim()).filter(Boolean);
    const guess = (item) => (NUMBER.test(item) ? Number(item) : item);
    switch (kind) {
      case "fixed":
        return value;
      case "boolean":
        return input.checked;
      case "string":
        return input.value;
      case "number":
        if (input.validity.badInput) throw new Error(`${label}: this is not a number`);
        if (!text) throw new Error(`${label}: a number is needed`);
        if (!NUMBER.test(text)) throw new Error(`${label}: '${text}' is not a number`);
        return Number(text);
      case "null":
        return text ? guess(text) : null;
      case "numbers":
        return items().map((item) => {
          if (!NUMBER.test(item)) throw new Error(`${label}: '${item}' is not a number`);
          return Number(item);
        });
      case "strings":
        return items();
      case "list":
        return items().map(guess);
      default:
        try {
          return JSON.parse(text);
        } catch (err) {
          throw new Error(`${label}: this is not JSON (${err.message})`);
        }
    }
  }

  // The event the fields say, or the first field's error (and that field, to focus).
  function readCorrection() {
    const event = {};
    for (const field of state.correctFields) field.input.removeAttribute("aria-invalid");
    for (const field of state.correctFields) {
      try {
        event[field.name] = readField(field);
      } catch (err) {
        field.input.setAttribute("aria-invalid", "true");
        return { error: err.message, input: field.input };
      }
    }
    return { event };
  }

  function renderDevices(devices) {
    const shown = devices.filter(isObject);
    $("devices").replaceChildren(...shown.map((device) => {
      const working = device.state === "working";
      return el("li", { class: `device ${working ? "device-working" : "device-unavailable"}` },
        el("span", { class: "device-dot", "aria-hidden": "true" }),
        el("span", { class: "device-name", text: str(device.name) }),
        el("span", { class: "device-state", text: working ? "working" : str(device.state) }),
        device.detail ? el("span", { class: "device-detail", text: str(device.detail) }) : null);
    }));
    $("devices-empty").hidden = shown.length > 0;
  }

  // ---- connection ------------------------------------------------------------------

  function setLink(mode, text) {
    const link = $("link");
    link.className = `link link-${mode}`;
    link.textContent = text;
    document.body.classList.toggle("stale", mode !== "live" && mode !== "blocked");
  }

  function connect() {
    clearTimeout(state.retryTimer);
    state.retryTimer = 0;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    let socket;
    try {
      socket = new WebSocket(`${scheme}//${location.host}/ws`);
    } catch (err) {
      console.error("cannot open the live connection", err);
      retryLater();
      return;
    }
    state.socket = socket;
    if (state.attempt === 0 && !state.view) setLink("connecting", "Connecting…");
    socket.addEventListener("message", (event) => {
      let view;
      try {
        view = JSON.parse(event.data);
      } catch (err) {
        console.error("ignored a message that is not JSON", err);
        return;
      }
      if (!isObject(view)) return;
      state.attempt = 0;
      try {
        render(view);
      } catch (err) {
        console.error("could not show this view", err, view);
      }
    });
    socket.addEventListener("close", () => {
      if (state.socket !== socket) return;
      state.socket = null;
      retryLater();
    });
  }

  function retryLater() {
    const ceiling = Math.min(LAST_RETRY_MS, FIRST_RETRY_MS * 2 ** state.attempt);
    // Jitter keeps a room full of phones from reconnecting in lockstep after a restart.
    const delay = Math.round(ceiling * (0.75 + Math.random() * 0.5));
    state.attempt = Math.min(state.attempt + 1, 16);
    setLink("reconnecting", "Reconnecting…");
    state.retryTimer = setTimeout(connect, delay);
  }

  function retryNow() {
    if (state.socket || !state.retryTimer) return;
    state.attempt = 0;
    connect();
  }

  // ---- operator --------------------------------------------------------------------

  function say(text, ok) {
    const message = $("op-message");
    message.textContent = text;
    message.className = `op-message ${ok ? "op-ok" : "op-error"}`;
  }

  function describeDetail(detail) {
    if (typeof detail === "string") return detail;
    if (Array.isArray(detail)) {
      return detail.map((item) => {
        if (!isObject(item)) return str(item);
        const where = list(item.loc).filter((part) => part !== "body").join(".");
        return where ? `${where}: ${str(item.msg)}` : str(item.msg);
      }).join("; ");
    }
    return detail === undefined || detail === null ? "" : JSON.stringify(detail);
  }

  async function failure(response) {
    let detail = "";
    try {
      detail = describeDetail((await response.json()).detail);
    } catch (err) {
      detail = "";
    }
    if (response.status === 401) setOperator(false, "", "");
    const what = {
      401: "Not signed in as the operator",
      403: "Refused",
      404: "Not found",
      409: "Not allowed now",
      413: "Too large",
      422: "Bad input",
      429: "Locked out",
    }[response.status] || `The table answered ${response.status}`;
    return detail ? `${what}: ${detail}` : what;
  }

  async function api(method, path, body) {
    const headers = { Accept: "application/json" };
    // The session cookie goes by itself; the CSRF token proves the page sent the request.
    if (method !== "GET" && state.csrf) headers[CSRF_HEADER] = state.csrf;
    const init = { method, headers, credentials: "same-origin" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (err) {
      throw new Error(`The table did not answer (${err.message})`);
    }
    if (!response.ok) throw new Error(await failure(response));
    const text = await response.text();
    return text ? JSON.parse(text) : null;
  }

  async function act(button, method, path, body, done) {
    button.disabled = true;
    say("Sending…", true);
    try {
      await api(method, path, body);
      say(done, true);
      return true;
    } catch (err) {
      say(err.message, false);
      return false;
    } finally {
      button.disabled = false;
    }
  }

  async function loadGames() {
    const picker = $("game-picker");
    try {
      const games = list(await api("GET", "/api/games")).filter(isObject);
      const current = state.view && isObject(state.view.game) ? state.view.game : null;
      const families = new Map();
      for (const game of games) {
        const family = str(game.family) || "other";
        if (!families.has(family)) families.set(family, []);
        families.get(family).push(game);
      }
      // The games come as the table serves them (its own kind's); the family being played
      // comes first (a cue table serves carom and pocket games).
      const order = [...families.keys()].sort((a, b) =>
        Number(current && b === current.family) - Number(current && a === current.family)
        || a.localeCompare(b));
      picker.replaceChildren(...order.map((family) => el("optgroup", { label: words(family) },
        families.get(family).map((game) => el("option", { value: str(game.id),
          text: str(game.name) || str(game.id) })))));
      if (current) picker.value = str(current.id);
      state.gamesLoaded = true;
    } catch (err) {
      say(`Could not load the games: ${err.message}`, false);
    }
  }

  function renderOperator(view, game) {
    const players = game ? list(game.players).map(str) : [];
    const key = JSON.stringify(players);
    if (key !== state.playersShown) {
      state.playersShown = key;
      const select = $("dead-ball-player");
      const keep = select.value;
      select.replaceChildren(...players.map((p) => el("option", { value: p, text: p })));
      if (players.includes(keep)) select.value = keep;
      if (!$("players").value.trim() && players.length) $("players").value = players.join("\n");
    }
    // Follow the bowler up, but only when the turn changes, so a choice in progress stays.
    const upPlayer = game && isObject(game.up) ? str(game.up.player) : "";
    if (upPlayer && upPlayer !== state.upShown) $("dead-ball-player").value = upPlayer;
    state.upShown = upPlayer;
    syncFlags(list(view.flags).filter(isObject), game);
  }

  function syncFlags(flags, game) {
    const forms = $("flag-forms");
    const live = new Set(flags.map((flag) => flag.seq));
    for (const [seq, form] of state.flagForms) {
      if (!live.has(seq)) {
        form.remove();
        state.flagForms.delete(seq);
      }
    }
    const pins = game && list(game.pins).length ? list(game.pins) : Object.keys(PIN_SPOTS).map(Number);
    for (const flag of flags) {
      if (!state.flagForms.has(flag.seq)) {
        const path = `/api/flags/${encodeURIComponent(String(flag.seq))}/resolve`;
        const kind = isObject(flag.reading) ? flag.reading.type : "";
        const form = kind === "throw" ? window.hoyleDice.flagForm(helpers(), flag, path)
          : kind === "card" ? window.hoyleCards.flagForm(helpers(), flag, path)
          : kind === "pocket" ? window.hoyleBilliards.flagForm(helpers(), flag, path, game)
            : flagForm(flag, pins);
        state.flagForms.set(flag.seq, form);
        forms.append(form);
      }
    }
    $("flags-empty").hidden = flags.length > 0;
  }

  function flagForm(flag, pins) {
    const reading = isObject(flag.reading) ? flag.reading : {};
    const standing = new Set(list(reading.standing));
    const shown = pins.filter((pin) => PIN_SPOTS[pin]);
    const boxes = shown.map((pin) =>
      el("input", { type: "checkbox", value: String(pin), checked: standing.has(pin) }));
    const toggles = shown.map((pin, i) => {
      const label = el("label", { class: "pin-toggle", title: `Pin ${pin} standing` }, boxes[i],
        el("span", { text: String(pin) }));
      label.style.gridColumn = String(PIN_SPOTS[pin][0] + 1);
      label.style.gridRow = String(PIN_SPOTS[pin][1] + 1);
      return label;
    });
    const foul = el("input", { type: "checkbox", checked: reading.foul === true });
    const reason = el("input", { type: "text", placeholder: "Why (kept in the log)",
      autocomplete: "off" });
    const confirm = el("button", { type: "submit", text: "Confirm these pins" });
    const voidButton = el("button", { type: "button", class: "secondary", text: "Void this read" });
    const form = el("form", { class: "flag-form" },
      el("p", { class: "flag-what", text: str(flag.what) }),
      el("fieldset", { class: "pin-picker" },
        el("legend", { text: "Pins standing" }),
        toggles),
      el("label", { class: "check" }, foul, " Foul"),
      el("label", { class: "field" }, "Reason", reason),
      el("div", { class: "buttons" }, confirm, voidButton));
    const path = `/api/flags/${encodeURIComponent(String(flag.seq))}/resolve`;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const chosen = boxes.filter((box) => box.checked).map((box) => Number(box.value));
      act(confirm, "POST", path, {
        standing: chosen,
        foul: foul.checked,
        reason: reason.value.trim() || "confirmed by the operator",
      }, "Read confirmed.");
    });
    voidButton.addEventListener("click", () => {
      if (!reason.value.trim()) {
        say("Say why the read is void; the reason is kept in the log.", false);
        reason.focus();
        return;
      }
      act(voidButton, "POST", path, { void: true, reason: reason.value.trim() }, "Read voided.");
    });
    return form;
  }

  // Signed in, the operator's controls show; signed out, only the PIN form does.
  function setOperator(on, csrf, name) {
    const changed = on !== state.operator;
    state.operator = on;
    state.csrf = on ? csrf : "";
    $("pin-form").hidden = on;
    $("signed-in").hidden = !on;
    $("signed-in-text").textContent = name ? `Signed in as ${name}, operator.`
      : "Signed in as the operator.";
    $("operator-controls").hidden = !on;
    if (on && $("operator").open && !state.gamesLoaded) loadGames();
    if (changed) refetchHistory();
  }

  async function checkSession() {
    try {
      const session = await api("GET", "/api/session");
      const on = isObject(session) && session.operator === true;
      setOperator(on, on ? str(session.csrf) : "", on ? str(session.name) : "");
    } catch (err) {
      console.warn("could not ask whether this page is signed in", err);
    }
  }

  function wireOperator() {
    setOperator(false, "", "");
    $("pin-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const pin = $("pin");
      const button = $("sign-in");
      button.disabled = true;
      say("Signing in…", true);
      try {
        const name = $("operator-name").value.trim();
        const session = await api("POST", "/api/session",
          name ? { pin: pin.value.trim(), name } : { pin: pin.value.trim() });
        pin.value = "";
        const signedIn = isObject(session) ? str(session.name) : "";
        setOperator(true, isObject(session) ? str(session.csrf) : "", signedIn);
        say(signedIn ? `Signed in as ${signedIn}.` : "Signed in as the operator.", true);
      } catch (err) {
        say(err.message, false);
      } finally {
        button.disabled = false;
      }
    });
    $("sign-out").addEventListener("click", async () => {
      if (await act($("sign-out"), "POST", "/api/session/end", undefined, "Signed out.")) {
        setOperator(false, "", "");
      }
    });
    $("operator").addEventListener("toggle", () => {
      if ($("operator").open && state.operator && !state.gamesLoaded) loadGames();
    });
    $("new-game").addEventListener("submit", async (event) => {
      event.preventDefault();
      const game = $("game-picker").value;
      const players = $("players").value.split("\n").map((p) => p.trim()).filter(Boolean);
      if (!game) {
        say("Pick a game first.", false);
        return;
      }
      if (!players.length) {
        say(`Name at least one ${state.kind === "lane" ? "bowler" : "player"}.`, false);
        return;
      }
      await act(event.submitter || $("new-game").querySelector("button"), "POST", "/api/game",
        { game, players, options: {} }, "Game started.");
    });
    $("correct-target").addEventListener("change", fillCorrection);
    // "Correct entry" (also Enter in a field) sends the fields' event; only the "Void
    // entry" button voids the entry.
    $("correct").addEventListener("submit", async (event) => {
      event.preventDefault();
      const voiding = event.submitter === $("correct-void");
      const chosen = $("correct-target").value;
      const target = Number(chosen);
      const reason = $("correct-reason").value.trim();
      if (!chosen) {
        say("There is no entry to correct yet.", false);
        return;
      }
      let replacement = null;
      if (!voiding) {
        const read = readCorrection();
        if (read.error) {
          say(read.error, false);
          read.input.focus();
          return;
        }
        replacement = read.event;
      }
      if (!reason) {
        say(`Say why the entry is ${voiding ? "void" : "corrected"}; the reason is kept in the log.`,
          false);
        $("correct-reason").focus();
        return;
      }
      const button = voiding ? $("correct-void") : $("correct-send");
      const done = voiding ? `Entry #${target} voided.` : `Entry #${target} corrected.`;
      if (await act(button, "POST", "/api/corrections",
        { target, event: replacement, reason }, done)) {
        $("correct-reason").value = "";
      }
    });
    $("blocked").addEventListener("submit", async (event) => {
      event.preventDefault();
      const reason = $("blocked-reason").value.trim();
      if (!reason) {
        say("Give a reason: it is kept in the log with the void.", false);
        $("blocked-reason").focus();
        return;
      }
      const target = Number($("blocked").dataset.seq);
      if (await act($("blocked-void"), "POST", "/api/corrections",
        { target, event: null, reason }, `Entry #${target} voided.`)) {
        $("blocked-reason").value = "";
      }
    });

    $("dead-ball").addEventListener("submit", async (event) => {
      event.preventDefault();
      const player = $("dead-ball-player").value;
      if (!player) {
        say("There is no bowler to call a dead ball for.", false);
        return;
      }
      await act(event.submitter || $("dead-ball").querySelector("button"), "POST",
        "/api/dead-ball", { player }, `Dead ball called for ${player}.`);
    });
  }

  function start() {
    wireOperator();
    $("law").addEventListener("click", (event) => {
      // A tap on the backdrop (outside the dialog box) closes it, as people expect on phones.
      if (event.target === $("law")) $("law").close();
    });
    window.addEventListener("online", retryNow);
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") retryNow();
    });
    checkSession();
    connect();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
