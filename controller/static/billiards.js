// The cue table's part of the live page: the table drawn with the balls still on it and
// those down (beside their pocket in this stroke, in the tray before), the score sheet,
// the last ruling with its law, what the table waits for, and the referee's controls
// (the stroke with the game's facts, a ball pocketed, a foul, a call, a count, a ball off,
// and the game's own: a private number drawn, a ball spotted, a star, pool proclaimed)
// and his form to name a ball the pockets could not. table.js calls it with its DOM
// helpers (`h`).
"use strict";

window.hoyleBilliards = (() => {
  // Pool ball colours by number (9-15 are the striped balls of 1-7); colours by name.
  const COLOURS = ["#f2c230", "#1f4fbf", "#d22b2b", "#5a2b8f", "#f07f1f", "#1f8a4c",
    "#7a1f1f", "#111111"];
  const NAMED = { cue: "#fbfaf5", white: "#fbfaf5", "spot-white": "#f1ecd9", red: "#d22b2b",
    yellow: "#f2c230", green: "#1f8a4c", brown: "#7a4a1f", blue: "#1f4fbf", pink: "#f08cb4",
    black: "#111111" };
  // Pocket centres on a 0-200 by 0-110 drawing: the head is on the left.
  const POCKETS = { "head-left": [10, 100], "head-right": [10, 10], "side-left": [100, 104],
    "side-right": [100, 6], "foot-left": [190, 100], "foot-right": [190, 10] };
  const BALL = 4.2;
  let controlsKey = "";
  // The events of a game's own that name the player who acts (each game's `kinds()`).
  const PLAYER_ACTS = ["private", "spot", "star", "proclaim"];
  // Bottle pool: what moved the bottle (the stroke's `bottle_by`), in the referee's words.
  const BOTTLE_BY = [["carom", "The cue ball, off an object ball (a carom)"],
    ["cue", "The cue ball, before it struck a ball"], ["ball", "An object ball alone"],
    ["both", "An object ball touched it and the cue ball moved it"]];
  // What the bottle did that asks what moved it.
  const BOTTLE_MOVED = ["upset", "stood"];
  // When a fact of the game's `sometimes` (those a stroke needs only now and then) can
  // matter, read from the Stroke form's fields: [the field it hangs on, whether it matters
  // now]. Its field is shown, enabled and required only then, and the fact is sent only
  // then. Three-cushion's `driven` decides only a deliberate safety (rule 9: one whose cue
  // ball met no cushion after the ball is legal only if it drove a ball to one); bottle
  // pool's `bottle_by`, only a bottle upset or stood. `direct` and the crotch's `balk` are
  // asked on every stroke, each sent by its own rule below: either can matter on any
  // stroke (pins that fell first; a stroke that leaves the balls crotched starts the
  // count), which the form cannot tell before the referee says so. A fact the game needs
  // on every stroke (not in `sometimes`) is asked and sent on every stroke.
  const ASKED_WHEN = {
    driven: (fields) => [fields.safety, () => fields.safety.checked],
    bottle_by: (fields) => [fields.bottle, () => BOTTLE_MOVED.includes(fields.bottle.value)],
  };
  // The stroke's `balk`, in the referee's words for the space the game limits (the game's
  // `balk_space`): balk-line's balk spaces and anchors, or the crotch of the three-ball
  // laws (French caroms and its variants, the Little Corporal).
  const BALK_WORDS = {
    "balk space": "Both object balls in one balk space (or anchor), and left there",
    crotch: "Both object balls in the crotch (a 4\u00bd-inch square at a corner), and left "
      + "there",
  };

  function ballColour(name) {
    const n = Number(name);
    if (Number.isInteger(n) && n >= 1 && n <= 15) return COLOURS[(n - 1) % 8];
    return NAMED[name] || "#c0c0c0";
  }

  function ball(h, name, x, y) {
    const text = h.str(name);
    const n = Number(text);
    const group = h.svg("g", { class: "ball", transform: `translate(${x} ${y})` });
    const striped = Number.isInteger(n) && n >= 9 && n <= 15;
    group.append(h.svg("circle", { r: BALL, class: "ball-body",
      fill: striped ? "#fbfaf5" : ballColour(text) }));
    if (striped) {
      // The band across a striped ball: the circle between two chords.
      const b = BALL * 0.55;
      const a = Math.sqrt(BALL * BALL - b * b);
      group.append(h.svg("path", { fill: ballColour(text), d: `M ${-a} ${-b} A ${BALL} ${BALL} `
        + `0 0 0 ${-a} ${b} L ${a} ${b} A ${BALL} ${BALL} 0 0 0 ${a} ${-b} Z` }));
    }
    if (Number.isInteger(n)) {
      group.append(h.svg("circle", { r: BALL * 0.5, class: "ball-spot" }));
      const label = h.svg("text", { "text-anchor": "middle", "dominant-baseline": "central",
        class: "ball-number" });
      label.textContent = text;
      group.append(label);
    }
    const title = h.svg("title", {});
    title.textContent = Number.isInteger(n) ? `${text}-ball` : `${text} ball`;
    group.append(title);
    return group;
  }

  // The table from above: balls on it racked in rows at the foot, those down this stroke
  // beside the pocket they fell in, the rest down in the tray under the table.
  function table(h, game) {
    const on = h.list(game.table && game.table.on).map(h.str);
    const down = h.list(game.table && game.table.down).map(h.str);
    const stroke = h.isObject(game.stroke) ? game.stroke : {};
    const fresh = h.list(stroke.pockets).filter(h.isObject);
    const picture = h.svg("svg", { viewBox: "0 0 200 140", class: "pool-table", role: "img",
      "aria-label": `${on.length} balls on the table; down: ${down.join(", ") || "none"}` });
    picture.append(h.svg("rect", { x: 0, y: 0, width: 200, height: 110, rx: 8, class: "rail" }),
      h.svg("rect", { x: 8, y: 8, width: 184, height: 94, rx: 2, class: "cloth" }),
      h.svg("line", { x1: 50, y1: 8, x2: 50, y2: 102, class: "head-string" }));
    for (const [name, [x, y]] of Object.entries(POCKETS)) {
      picture.append(h.svg("circle", { cx: x, cy: y, r: 7, class: "pocket" }));
      const label = h.svg("title", {});
      label.textContent = name;
      picture.lastChild.append(label);
    }
    const perRow = 6;
    on.forEach((name, i) => {
      const x = 120 + (i % perRow) * (BALL * 2 + 1.5);
      const y = 30 + Math.floor(i / perRow) * (BALL * 2 + 1.5);
      picture.append(ball(h, name, name === "cue" ? 35 : x, name === "cue" ? 55 : y));
    });
    const beside = new Map();
    for (const item of fresh) {
      const at = POCKETS[h.str(item.pocket)];
      if (!at) continue;
      const n = beside.get(item.pocket) || 0;
      beside.set(item.pocket, n + 1);
      const inward = at[1] > 55 ? -1 : 1;
      picture.append(ball(h, h.str(item.ball), at[0] + (at[0] > 100 ? -1 : 1) * (12 + n * 9),
        at[1] + inward * 8));
    }
    const tray = down.filter((name) => !fresh.some((item) => h.str(item.ball) === name));
    picture.append(h.svg("rect", { x: 0, y: 116, width: 200, height: 22, rx: 4, class: "tray" }));
    tray.forEach((name, i) => picture.append(ball(h, name, 8 + i * (BALL * 2 + 1.5), 127)));
    return picture;
  }

  function up(h, game) {
    const striker = h.str(game.striker);
    const row = h.list(game.sheet).find((r) => h.isObject(r) && r.player === striker);
    const where = row ? `Inning ${h.str(row.innings)} · run ${h.str(row.run)}` : "";
    return { label: striker ? "Striker" : "Table", name: striker || h.str(game.name), where };
  }

  function render(h, game) {
    const panel = h.$("billiards-panel");
    panel.hidden = !game;
    if (!game) {
      controlsKey = "";
      h.$("billiards-referee").hidden = true;
      return;
    }
    h.$("billiards-table").replaceChildren(table(h, game));
    const rows = h.list(game.sheet).filter(h.isObject);
    const head = ["Player", "Score", "Innings", "Run", "High run"];
    h.$("billiards-sheet").replaceChildren(
      h.el("thead", {}, h.el("tr", {}, head.map((text) => h.el("th", { scope: "col", text })))),
      h.el("tbody", {}, rows.map((row) => h.el("tr", {
        class: h.list(game.winners).includes(row.player) ? "winner"
          : row.player === game.striker ? "striker" : "" },
      h.el("th", { scope: "row", text: h.str(row.player) }),
      ["total", "innings", "run", "high_run"].map((key) => h.el("td", { text: h.str(row[key]) }))))));
    const rulings = h.list(game.rulings).filter(h.isObject);
    const last = rulings.length ? rulings[rulings.length - 1] : null;
    const law = last && h.isObject(last.law) ? last.law : null;
    h.$("billiards-ruling").replaceChildren(...(last ? [
      h.el("p", { class: "ruling-text", text: h.str(last.text) }),
      h.el("p", { class: "law-source", text: law
        ? `${h.str(law.title)} (lines ${h.str(law.lines)})` : "" })]
      : [h.el("p", { class: "empty", text: "No ruling yet." })]));
    const waits = h.list(game.awaiting).filter(h.isObject);
    h.$("billiards-awaiting").replaceChildren(...waits.map((w) => h.el("li", {
      text: `${h.str(w.source)}: ${h.str(w.detail) || h.str(w.fact)}` })));
    h.$("billiards-awaiting-empty").hidden = waits.length > 0;
    renderControls(h, game);
  }

  function post(h, button, event, done) {
    return h.act(button, "POST", "/api/events", { event }, done);
  }

  // A labelled select of `values`; with `prompt`, it starts on that empty choice instead
  // (and, `required`, is not sent until a value is chosen): a ball picked for the referee
  // (the cue ball, first on the table) would be a scratch he never declared.
  function picker(h, label, values, props, prompt, words) {
    const said = words || h.str;
    return h.el("label", { class: "field" }, label, h.el("select", props || {},
      prompt ? h.el("option", { value: "", text: prompt }) : null,
      values.map((value) => h.el("option", { value: h.str(value), text: said(value) }))));
  }

  // What the game waits on a player for, of the acts that name one: [fact, player, detail].
  function playerWaits(h, game) {
    return h.list(game.awaiting).filter((w) => h.isObject(w) && PLAYER_ACTS.includes(w.fact))
      .map((w) => [h.str(w.fact), h.str(w.player), h.str(w.detail)]);
  }

  // A picker of the game's players for an act of `fact`: the player the game waits on for
  // it is chosen; with none, the referee must choose (the picker starts empty).
  function playerPicker(h, game, fact, label) {
    const players = h.list(game.players).map(h.str);
    const wait = playerWaits(h, game).find(([f, player]) => f === fact && players.includes(player));
    const select = h.el("select", { required: true },
      h.el("option", { value: "", text: "Choose the player" }),
      players.map((name) => h.el("option", { value: name, text: name })));
    select.value = wait ? wait[1] : "";
    return { field: h.el("label", { class: "field" }, label, select), select };
  }

  // "Waiting for Bob: whether he stars, buying back in", when the game waits for `fact`.
  function waitingHint(h, game, fact) {
    const waits = playerWaits(h, game).filter(([f]) => f === fact);
    if (!waits.length) return null;
    const who = waits.map(([, player]) => player).filter(Boolean).join(", ");
    return h.el("p", { class: "hint", text: `Waiting for ${who || "a player"}: ${waits[0][2]}.` });
  }

  // The referee's controls, rebuilt only when the game or its facts change, so what the
  // referee is typing stays.
  function renderControls(h, game) {
    const referee = h.isObject(game.referee) ? game.referee : null;
    const box = h.$("billiards-referee");
    box.hidden = !referee || game.over;
    if (!referee) return;
    const on = h.list(game.table && game.table.on).map(h.str);
    const key = JSON.stringify([game.id, referee, on, h.list(game.players),
      playerWaits(h, game), h.isObject(game.racks) ? game.racks : null]);
    if (key === controlsKey) return;
    controlsKey = key;
    const needs = h.list(referee.needs).map(h.str);
    const sometimes = h.list(referee.sometimes).map(h.str);
    const kinds = h.list(referee.kinds).map(h.str);
    const forms = [];
    // The forms of acts the game waits on before play goes on (a draw, a star, a ball to
    // spot) come first, above the stroke.
    const first = [];
    const waited = new Set(playerWaits(h, game).map(([fact]) => fact));

    const facts = {};
    // The field (its label) of each fact, for those asked only when they can matter.
    const fieldOf = {};
    const strokeFields = [];
    const safety = h.el("input", { type: "checkbox" });
    const safetyField = h.el("label", { class: "check" }, safety, " Safety declared");
    // The fields asked only on a declared safety come after it.
    const afterSafety = [];
    if (needs.includes("path")) {
      facts.path = h.el("input", { type: "text", autocomplete: "off", spellcheck: "false",
        placeholder: "e.g. 9, cushion (empty: a miss)" });
      strokeFields.push(h.el("label", { class: "field" }, "Cue ball's contacts", facts.path));
    }
    if (needs.includes("driven")) {
      facts.driven = h.el("input", { type: "number", min: 0, max: 15, value: "0" });
      fieldOf.driven = h.el("label", { class: "field" }, "Balls driven to a cushion",
        facts.driven);
      (sometimes.includes("driven") ? afterSafety : strokeFields).push(fieldOf.driven);
    }
    if (needs.includes("pins")) {
      facts.pins = h.el("input", { type: "text", autocomplete: "off",
        placeholder: "pins down, e.g. 1, 3" });
      strokeFields.push(h.el("label", { class: "field" }, "Pins knocked down", facts.pins));
    }
    if (needs.includes("bottle")) {
      strokeFields.push(picker(h, "The bottle", ["none", "upset", "stood", "off"]));
      facts.bottle = strokeFields[strokeFields.length - 1].querySelector("select");
    }
    if (needs.includes("direct")) {
      // Pin pool, the Spanish game, the Little Corporal: of the pins down, those the cue ball
      // knocked down before it struck a ball (the game treats them apart from the pins that
      // fell after; at the Little Corporal the pin played at direct is a foul).
      const pins = h.list(referee.pins).map(h.str);
      facts.direct = pins.map((pin) => h.el("input", { type: "checkbox", value: pin }));
      const group = h.el("fieldset", { class: "stroke-direct" },
        h.el("legend", { text: "Pins the cue ball knocked down before it struck a ball" }),
        facts.direct.map((box, i) => h.el("label", { class: "check" }, box, ` ${pins[i]}`)));
      Object.assign(group.style, { display: "flex", flexWrap: "wrap", columnGap: "1rem",
        margin: "0", minWidth: "0", padding: "0 0.75rem", color: "var(--muted)",
        border: "1px solid var(--panel-edge)", borderRadius: "var(--radius)" });
      strokeFields.push(group);
    }
    if (needs.includes("bottle_by")) {
      // Bottle pool: asked (and then required) only when the bottle was upset or stood
      // (`ASKED_WHEN`).
      facts.bottle_by = h.el("select", {}, h.el("option", { value: "", text: "Choose" }),
        BOTTLE_BY.map(([value, text]) => h.el("option", { value, text })));
      fieldOf.bottle_by = h.el("label", { class: "field" }, "What upset or stood the bottle",
        facts.bottle_by);
      strokeFields.push(fieldOf.bottle_by);
    }
    if (needs.includes("balk")) {
      // Balk-line, the crotch: the stroke was played with both object balls in the space
      // the game limits and left both there; the game's limit of such strokes counts it.
      facts.balk = h.el("input", { type: "checkbox" });
      const space = h.str(game.balk_space);
      const words = Object.hasOwn(BALK_WORDS, space) ? BALK_WORDS[space]
        : "Both object balls in the space the game limits, and left there";
      strokeFields.push(h.el("label", { class: "check" }, facts.balk, ` ${words}`));
    }
    // Each sometimes-fact the form can tell the moment of (the field it hangs on is
    // there): shown, enabled and required only while it can matter, the rest of the time
    // hidden and disabled (and not sent).
    for (const fact of sometimes) {
      if (!Object.hasOwn(ASKED_WHEN, fact) || !fieldOf[fact]) continue;
      const [trigger, matters] = ASKED_WHEN[fact]({ ...facts, safety });
      if (!trigger) continue;
      const control = facts[fact];
      const ask = () => {
        const asked = matters();
        fieldOf[fact].hidden = !asked;
        control.disabled = !asked;
        control.required = asked;
      };
      trigger.addEventListener("change", ask);
      ask();
    }
    const strokeButton = h.el("button", { type: "submit", text: "Close the stroke" });
    const strokeForm = h.el("form", { class: "op-section" }, h.el("h3", { text: "Stroke" }),
      strokeFields, safetyField, afterSafety, h.el("div", { class: "buttons" }, strokeButton));
    strokeForm.addEventListener("submit", (e) => {
      e.preventDefault();
      const event = { type: "stroke" };
      const split = (text) => text.split(",").map((s) => s.trim()).filter(Boolean);
      if (facts.path) event.path = split(facts.path.value);
      // (a fact asked only when it can matter is disabled, and not sent, the rest of the time)
      if (facts.driven && !facts.driven.disabled) event.driven = Number(facts.driven.value);
      if (facts.pins) event.pins = split(facts.pins.value);
      if (facts.bottle) event.bottle = facts.bottle.value;
      if (facts.direct) {
        // Sent when pins fell on a stroke that struck a ball ([] for none knocked down
        // first), or when the referee ticked any (the table refuses a pin not down).
        const ticked = facts.direct.filter((box) => box.checked).map((box) => box.value);
        const struck = h.list(event.path).some((contact) => contact !== "cushion");
        if (ticked.length || (struck && h.list(event.pins).length)) event.direct = ticked;
      }
      if (facts.bottle_by && !facts.bottle_by.disabled && facts.bottle_by.value) {
        event.bottle_by = facts.bottle_by.value;
      }
      if (facts.balk) event.balk = facts.balk.checked;
      if (safety.checked) event.safety = true;
      post(h, strokeButton, event, "Stroke closed.");
    });
    forms.push(strokeForm);

    if (referee.counts || kinds.includes("count")) {
      const points = h.el("input", { type: "number", min: 0, max: 99, value: "1" });
      const button = h.el("button", { type: "submit", text: "Count" });
      const form = h.el("form", { class: "op-section" }, h.el("h3", { text: "Count" }),
        h.el("label", { class: "field" }, "Points", points), button);
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        post(h, button, { type: "count", points: Number(points.value) }, "Counted.");
      });
      forms.push(form);
    }
    if (referee.calls) {
      const callBall = picker(h, "Ball", on.filter((b) => b !== "cue"));
      const callPocket = picker(h, "Pocket", ["", ...h.list(referee.pockets)]);
      const button = h.el("button", { type: "submit", text: "Call" });
      const form = h.el("form", { class: "op-section" }, h.el("h3", { text: "Call" }),
        callBall, callPocket, button);
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        const event = { type: "call", ball: callBall.querySelector("select").value };
        const pocket = callPocket.querySelector("select").value;
        if (pocket) event.pocket = pocket;
        post(h, button, event, "Call made.");
      });
      forms.push(form);
    }
    const fouls = h.list(referee.fouls).map(h.str);
    if (fouls.length) {
      const kind = picker(h, "Foul", fouls);
      const button = h.el("button", { type: "submit", text: "Call foul" });
      const form = h.el("form", { class: "op-section" }, h.el("h3", { text: "Foul" }), kind,
        button);
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        post(h, button, { type: "foul", kind: kind.querySelector("select").value },
          "Foul called.");
      });
      forms.push(form);
    }
    if (kinds.includes("pocket") && on.length) {
      // A ball the pockets did not report (two in one throat, a table without sensors).
      const fellBall = picker(h, "Ball", on, { required: true }, "Which ball?");
      const fellPocket = picker(h, "Pocket", h.list(referee.pockets), { required: true });
      const button = h.el("button", { type: "submit", text: "Ball pocketed" });
      const form = h.el("form", { class: "op-section" }, h.el("h3", { text: "Pocketed" }),
        h.el("p", { class: "hint", text: "A ball the pockets did not report; before the "
          + "stroke is closed." }),
        fellBall, fellPocket, h.el("div", { class: "buttons" }, button));
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        post(h, button, { type: "pocket", ball: fellBall.querySelector("select").value,
          pocket: fellPocket.querySelector("select").value }, "Pocketed ball recorded.");
      });
      forms.push(form);
    }
    if (on.length) {
      const offBall = picker(h, "Ball forced off the table", on, { required: true },
        "Which ball?");
      const button = h.el("button", { type: "submit", text: "Ball off" });
      const form = h.el("form", { class: "op-section" }, h.el("h3", { text: "Off the table" }),
        offBall, button);
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        post(h, button, { type: "off", ball: offBall.querySelector("select").value },
          "Ball off recorded.");
      });
      forms.push(form);
    }

    if (kinds.includes("private")) {
      // The small numbered ball a player drew from the bottle (forty-one, pin pool, Kelly).
      const bounds = h.list(referee.private);
      const [low, high] = bounds.length === 2 && bounds.every(Number.isInteger) ? bounds
        : [null, null];
      const who = playerPicker(h, game, "private", "Player who drew");
      const number = h.el("input", { type: "number", min: low, max: high, step: 1,
        required: true, inputmode: "numeric", autocomplete: "off" });
      const button = h.el("button", { type: "submit", text: "Draw private number" });
      const form = h.el("form", { class: "op-section" }, h.el("h3", { text: "Private number" }),
        waitingHint(h, game, "private") || h.el("p", { class: "hint",
          text: "The small numbered ball a player draws from the bottle." }),
        who.field,
        h.el("label", { class: "field" },
          low === null ? "Number drawn" : `Number drawn (${low}\u2013${high})`, number),
        h.el("div", { class: "buttons" }, button));
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        post(h, button, { type: "private", player: who.select.value,
          number: Number(number.value) }, "Private number recorded.").then((ok) => {
          // Not left on the screen once it is recorded.
          if (ok) number.value = "";
        });
      });
      (waited.has("private") ? first : forms).push(form);
    }
    if (kinds.includes("spot")) {
      // Forty-one pool: a player who owes a ball names the one from his rack he spots.
      const who = playerPicker(h, game, "spot", "Player who owes a ball");
      const racks = h.isObject(game.racks) ? game.racks : null;
      const down = h.list(game.table && game.table.down).map(h.str).filter((b) => b !== "cue");
      const ball = h.el("select", { required: true });
      const fill = () => {
        const balls = !who.select.value ? [] : racks ? h.list(racks[who.select.value]).map(h.str)
          : down;
        ball.replaceChildren(...balls.map((b) => h.el("option", { value: b, text: b })));
      };
      who.select.addEventListener("change", fill);
      fill();
      const button = h.el("button", { type: "submit", text: "Spot the ball" });
      const form = h.el("form", { class: "op-section" }, h.el("h3", { text: "Spot a ball" }),
        waitingHint(h, game, "spot"), who.field,
        h.el("label", { class: "field" }, "Ball from his rack", ball),
        h.el("div", { class: "buttons" }, button));
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        post(h, button, { type: "spot", player: who.select.value, ball: ball.value },
          "Ball spotted.");
      });
      (waited.has("spot") ? first : forms).push(form);
    }
    if (kinds.includes("star")) {
      // Colour-ball pool: a player out says whether he stars (buys back in) or not.
      const who = playerPicker(h, game, "star", "Player out");
      const buy = h.el("button", { type: "button", text: "Star (buy back in)" });
      const decline = h.el("button", { type: "button", class: "secondary",
        text: "Does not star" });
      const form = h.el("form", { class: "op-section" }, h.el("h3", { text: "Star" }),
        waitingHint(h, game, "star"), who.field, h.el("div", { class: "buttons" }, buy, decline));
      const send = (button, yes, done) => {
        if (!form.reportValidity()) return;
        post(h, button, { type: "star", player: who.select.value, buy: yes }, done);
      };
      form.addEventListener("submit", (e) => e.preventDefault());
      buy.addEventListener("click", () => send(buy, true, "Star taken."));
      decline.addEventListener("click", () => send(decline, false, "Star declined."));
      (waited.has("star") ? first : forms).push(form);
    }
    if (kinds.includes("proclaim")) {
      // Pin pool: pool must be proclaimed before the next stroke; the table rules the claim.
      const who = playerPicker(h, game, "proclaim", "Player who proclaims");
      const button = h.el("button", { type: "submit", text: "Proclaim pool" });
      const form = h.el("form", { class: "op-section" }, h.el("h3", { text: "Proclaim pool" }),
        h.el("p", { class: "hint", text: "Before the next stroke; a claim with no pool is "
          + "void." }),
        who.field, h.el("div", { class: "buttons" }, button));
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        post(h, button, { type: "proclaim", player: who.select.value },
          "Proclamation recorded.");
      });
      forms.push(form);
    }
    box.replaceChildren(h.el("h3", { text: "Referee" }), ...first, ...forms);
  }

  // The referee's form for a ball the pockets reported without a name: the ball is his to
  // choose (the picker starts on none); a ball the reader named comes first, said so.
  function flagForm(h, flag, path, game) {
    const reading = h.isObject(flag.reading) ? flag.reading : {};
    const on = game && game.table ? h.list(game.table.on).map(h.str) : [];
    const read = reading.ball !== null && reading.ball !== undefined ? h.str(reading.ball) : "";
    const choices = read ? [read, ...on.filter((b) => b !== read)] : on;
    const which = picker(h, "Ball", choices, { required: true }, "Which ball?",
      (b) => (b === read ? `${b} (as read)` : b));
    const reason = h.el("input", { type: "text", placeholder: "Why (kept in the log)",
      autocomplete: "off" });
    const confirm = h.el("button", { type: "submit", text: "This ball fell" });
    const voidButton = h.el("button", { type: "button", class: "secondary",
      text: "No ball fell (void)" });
    const form = h.el("form", { class: "flag-form" },
      h.el("p", { class: "flag-what", text: h.str(flag.what) }), which,
      h.el("label", { class: "field" }, "Reason", reason),
      h.el("div", { class: "buttons" }, confirm, voidButton));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      h.act(confirm, "POST", path, { ball: which.querySelector("select").value,
        reason: reason.value.trim() || "named by the referee" }, "Ball named.");
    });
    voidButton.addEventListener("click", () => {
      if (!reason.value.trim()) {
        h.say("Say why the reading is void; the reason is kept in the log.", false);
        reason.focus();
        return;
      }
      h.act(voidButton, "POST", path, { void: true, reason: reason.value.trim() },
        "Reading voided.");
    });
    return form;
  }

  return { up, render, flagForm };
})();
