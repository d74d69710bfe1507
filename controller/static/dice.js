// The dice table's part of the live page: the last throw drawn as faces, the caster and
// his point, the bets standing, each player's winnings, the fairness audit, and the
// operator's form to confirm faces the camera could not read surely. table.js calls it
// with its DOM helpers (`h`), so there is one way to build nodes on the page.
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
    for (const [title, part] of parts) {
      for (const [name, faces] of [["all dice", part.faces],
        ...Object.entries(h.isObject(part.dice) ? part.dice : {})]) {
        if (!h.isObject(faces)) continue;
        const counts = h.isObject(faces.counts) ? faces.counts : {};
        rows.push(h.el("tr", {},
          h.el("th", { scope: "row", text: `${title}, ${name}` }),
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

  // The operator's form for a throw the camera could not read surely.
  function flagForm(h, flag, path) {
    const reading = h.isObject(flag.reading) ? flag.reading : {};
    const read = h.list(reading.dice);
    const inputs = read.map((value, i) => h.el("input", { type: "number", min: 1, max: 6,
      step: 1, required: true, value: Number.isInteger(value) ? String(value) : "",
      "aria-label": `Die ${i + 1}` }));
    const reason = h.el("input", { type: "text", placeholder: "Why (kept in the log)",
      autocomplete: "off" });
    const confirm = h.el("button", { type: "submit", text: "Confirm these faces" });
    const voidButton = h.el("button", { type: "button", class: "secondary",
      text: "No throw (void)" });
    const form = h.el("form", { class: "flag-form" },
      h.el("p", { class: "flag-what", text: h.str(flag.what) }),
      h.el("fieldset", { class: "dice-picker" }, h.el("legend", { text: "Faces uppermost" }),
        inputs.map((input, i) => h.el("label", { class: "field" }, `Die ${i + 1}`, input))),
      h.el("label", { class: "field" }, "Reason", reason),
      h.el("div", { class: "buttons" }, confirm, voidButton));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      h.act(confirm, "POST", path, {
        dice: inputs.map((input) => Number(input.value)),
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
