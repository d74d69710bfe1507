// The dice table's part of the live page: the last throw drawn as faces, the caster and
// his point, the bets standing, each player's winnings, the fairness audit, and the
// operator's form to confirm faces the camera could not read surely (each die's picture
// beside its face, a die removed or added until there are as many as the game throws).
// table.js calls it with its DOM helpers (`h`), so there is one way to build nodes on the
// page.
"use strict";

window.hoyleDice = (() => {
  // Pip centres on a 0-100 face, by value, as a real die shows them.
  const PIPS = {
    1: [[50, 50]],
    2: [[25, 25], [75, 75]],
    3: [[25, 25], [50, 50], [75, 75]],
    4: [[25, 25], [75, 25], [25, 75], [75, 75]],
    5: [[25, 25], [75, 25], [50, 50], [25, 75], [75, 75]],
    6: [[25, 22], [75, 22], [25, 50], [75, 50], [25, 78], [75, 78]],
  };
  const AUDIT_EVERY_MS = 5000;
  let auditShownAt = 0;
  let auditSeq = -1;

  function face(h, value) {
    const die = h.svg("svg", { viewBox: "0 0 100 100", class: "die", role: "img",
      "aria-label": PIPS[value] ? `a ${value}` : "an unread die" });
    die.append(h.svg("rect", { x: 3, y: 3, width: 94, height: 94, rx: 16, class: "die-body" }));
    for (const [cx, cy] of PIPS[value] || []) {
      die.append(h.svg("circle", { cx, cy, r: 9, class: "die-pip" }));
    }
    if (!PIPS[value]) {
      const mark = h.svg("text", { x: 50, y: 54, "text-anchor": "middle",
        "dominant-baseline": "middle", class: "die-unknown" });
      mark.textContent = "?";
      die.append(mark);
    }
    return die;
  }

  function up(h, game) {
    const caster = h.str(game.caster);
    let where = "";
    if (Number.isInteger(game.point) && game.point > 0) where = `Point ${game.point}`;
    else if ("point" in game) where = "Coming out";
    return { label: caster ? "Caster" : "Up", name: caster || h.str(game.name), where };
  }

  function render(h, game) {
    const panel = h.$("dice-panel");
    panel.hidden = !game;
    if (!game) return;
    const last = h.list(game.last_throw);
    const total = last.every(Number.isInteger) ? last.reduce((a, b) => a + b, 0) : null;
    h.$("dice-throw").replaceChildren(
      ...(last.length ? last.map((v) => face(h, v)) : [h.el("p", { class: "empty",
        text: "No throw yet." })]),
      ...(last.length && total !== null ? [h.el("p", { class: "dice-total",
        text: `${total}` })] : []));
    h.$("dice-throw").setAttribute("aria-label", last.length
      ? `Last throw: ${last.join(" and ")}` : "No throw yet");
    const rows = h.list(game.sheet).filter(h.isObject);
    h.$("dice-scores").replaceChildren(
      h.el("thead", {}, h.el("tr", {}, h.el("th", { scope: "col", text: "Player" }),
        h.el("th", { scope: "col", text: "Score" }))),
      h.el("tbody", {}, rows.map((row) => h.el("tr", {
        class: h.list(game.winners).includes(row.player) ? "winner" : "" },
      h.el("th", { scope: "row", text: h.str(row.player) }),
      h.el("td", { text: h.str(row.total) })))));
    const bets = h.list(game.bets).filter(h.isObject);
    h.$("dice-bets").replaceChildren(...bets.map((bet) => h.el("li", {
      text: `${h.str(bet.player)}: ${h.str(bet.amount)} on ${h.str(bet.on)}` })));
    h.$("dice-bets-empty").hidden = bets.length > 0;
  }

  async function renderAudit(h, view) {
    const panel = h.$("audit-panel");
    const dice = h.isObject(view.game) && view.game.family === "dice";
    if (!dice) {
      panel.hidden = true;
      return;
    }
    const now = Date.now();
    if (view.seq === auditSeq || now - auditShownAt < AUDIT_EVERY_MS) return;
    auditShownAt = now;
    auditSeq = view.seq;
    let report;
    try {
      const response = await fetch("/api/dice/audit");
      if (!response.ok) return;
      report = await response.json();
    } catch (err) {
      console.warn("the dice audit could not be fetched", err);
      return;
    }
    const sessions = h.list(report.sessions);
    const current = sessions.length ? sessions[sessions.length - 1] : null;
    const parts = [["This game", current], ["All games", report.all]].filter(([, p]) => p);
    const rows = [];
    // A throw of two dice is one throw and two faces: the row says how many of each.
    const many = (n, noun) => `${h.str(n)} ${noun}${n === 1 ? "" : "s"}`;
    for (const [title, part] of parts) {
      for (const [name, faces] of [["all dice", part.faces],
        ...Object.entries(h.isObject(part.dice) ? part.dice : {})]) {
        if (!h.isObject(faces)) continue;
        const counts = h.isObject(faces.counts) ? faces.counts : {};
        const seen = faces.faces_seen === faces.throws ? many(faces.throws, "throw")
          : `${many(faces.throws, "throw")}, ${many(faces.faces_seen, "face")}`;
        rows.push(h.el("tr", {},
          h.el("th", { scope: "row", text: `${title}, ${name} (${seen})` }),
          ...[1, 2, 3, 4, 5, 6].map((f) => h.el("td", { text: h.str(counts[f]) })),
          h.el("td", { text: h.str(faces.verdict) })));
      }
    }
    h.$("audit").replaceChildren(
      h.el("thead", {}, h.el("tr", {}, h.el("th", { scope: "col", text: "Dice" }),
        ...[1, 2, 3, 4, 5, 6].map((f) => h.el("th", { scope: "col", text: String(f) })),
        h.el("th", { scope: "col", text: "Against a fair die" }))),
      h.el("tbody", {}, rows));
    panel.hidden = rows.length === 0;
  }

  // The flag's own log entry: the camera's picture of each die (`crops`, base64 JPEGs in
  // the reading's order) and how many dice the game throws (`game_dice`); null if it
  // cannot be had (an older flag keeps neither, and the form works without them).
  async function flagEntry(h, flag) {
    const seq = Number(flag.seq);
    if (!Number.isInteger(seq) || seq < 1) return null;
    try {
      const response = await fetch(`/api/history?after=${seq - 1}&limit=1`);
      if (!response.ok) return null;
      const [entry] = h.list(await response.json());
      return h.isObject(entry) && entry.seq === seq && h.isObject(entry.body) ? entry.body
        : null;
    } catch (err) {
      console.warn("the flagged throw's pictures could not be fetched", err);
      return null;
    }
  }

  // The operator's form for a throw the camera could not read surely: a row per die the
  // camera saw, its picture beside its face, a die it imagined removed and one it missed
  // added, until the dice are as many as the game throws.
  function flagForm(h, flag, path) {
    const reading = h.isObject(flag.reading) ? flag.reading : {};
    const rows = [];
    const list = h.el("div", { class: "dice-rows" });
    const count = h.el("p", { class: "hint" });
    let wanted = null;
    const say = () => {
      const seen = `The camera saw ${h.list(reading.dice).length}; the table has ${rows.length}.`;
      count.textContent = wanted === null ? seen : `The game throws ${wanted} `
        + `${wanted === 1 ? "die" : "dice"}. ${seen}`;
    };
    const relabel = () => {
      rows.forEach((row, i) => {
        const name = `Die ${i + 1}`;
        row.name.textContent = name;
        row.input.setAttribute("aria-label", name);
        row.remove.setAttribute("aria-label", `Remove die ${i + 1}`);
        if (row.image) row.image.alt = `${name} as the camera saw it`;
      });
      say();
    };
    const addRow = (value, seen) => {
      const input = h.el("input", { type: "number", min: 1, max: 6, step: 1, required: true,
        value: Number.isInteger(value) ? String(value) : "" });
      const remove = h.el("button", { type: "button", class: "secondary", text: "Remove" });
      const name = h.el("span");
      const row = { seen, input, remove, name, image: null,
        node: h.el("div", { class: "die-row" }, h.el("label", { class: "field" }, name, input),
          remove) };
      remove.addEventListener("click", () => {
        rows.splice(rows.indexOf(row), 1);
        row.node.remove();
        relabel();
      });
      rows.push(row);
      list.append(row.node);
      relabel();
      return row;
    };
    h.list(reading.dice).forEach((value, i) => addRow(value, i));
    const add = h.el("button", { type: "button", class: "secondary", text: "Add a die" });
    add.addEventListener("click", () => addRow(null, null).input.focus());
    const reason = h.el("input", { type: "text", placeholder: "Why (kept in the log)",
      autocomplete: "off" });
    const confirm = h.el("button", { type: "submit", text: "Confirm these faces" });
    const voidButton = h.el("button", { type: "button", class: "secondary",
      text: "No throw (void)" });
    const form = h.el("form", { class: "flag-form" },
      h.el("p", { class: "flag-what", text: h.str(flag.what) }), count,
      h.el("fieldset", { class: "dice-picker" }, h.el("legend", { text: "Faces uppermost" }),
        list, h.el("div", { class: "buttons" }, add)),
      h.el("label", { class: "field" }, "Reason", reason),
      h.el("div", { class: "buttons" }, confirm, voidButton));
    flagEntry(h, flag).then((body) => {
      if (!body) return;
      if (Number.isInteger(body.game_dice)) wanted = body.game_dice;
      const crops = h.list(body.crops);
      for (const row of rows) {
        const crop = row.seen === null ? "" : h.str(crops[row.seen]);
        if (!/^[A-Za-z0-9+/=]+$/.test(crop)) continue;
        row.image = h.el("img", { class: "die-crop", alt: "",
          src: `data:image/jpeg;base64,${crop}` });
        row.node.prepend(row.image);
      }
      relabel();
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (!rows.length) {
        h.say("Add the dice on the table, or void the throw.", false);
        return;
      }
      if (wanted !== null && rows.length !== wanted) {
        h.say(`The game throws ${wanted} ${wanted === 1 ? "die" : "dice"}: remove a die the `
          + "camera saw that is not there, or add one it missed, or void the throw.", false);
        return;
      }
      h.act(confirm, "POST", path, {
        dice: rows.map((row) => Number(row.input.value)),
        reason: reason.value.trim() || "faces confirmed by the operator",
      }, "Throw confirmed.");
    });
    voidButton.addEventListener("click", () => {
      if (!reason.value.trim()) {
        h.say("Say why the throw is void; the reason is kept in the log.", false);
        reason.focus();
        return;
      }
      h.act(voidButton, "POST", path, { void: true, reason: reason.value.trim() },
        "Throw voided.");
    });
    return form;
  }

  return { face, up, render, renderAudit, flagForm };
})();
