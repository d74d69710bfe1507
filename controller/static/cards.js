// The card table's part of the live page: each hand drawn as cards (those the overhead
// camera confirmed marked, and what it last said), the bank, the bets standing, each
// player's winnings, the shoe's count, and the operator's form for a card the shoe read
// that the table could not place. table.js calls it with its DOM helpers.
"use strict";

window.hoyleCards = (() => {
  const SUITS = { S: ["\u2660", "black"], H: ["\u2665", "red"], D: ["\u2666", "red"],
    C: ["\u2663", "black"] };

  function card(h, code) {
    const text = h.str(code);
    const suit = SUITS[text.slice(-1)];
    const rank = text.slice(0, -1);
    const face = h.svg("svg", { viewBox: "0 0 60 84", class: "card", role: "img",
      "aria-label": suit ? text : "a card" });
    face.append(h.svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, class: "card-body" }));
    if (suit) {
      const corner = h.svg("text", { x: 6, y: 20, class: `card-index ${suit[1]}` });
      corner.textContent = rank;
      const pip = h.svg("text", { x: 30, y: 58, "text-anchor": "middle",
        class: `card-pip ${suit[1]}` });
      pip.textContent = suit[0];
      face.append(corner, pip);
    }
    return face;
  }

  function up(h, game) {
    const banker = h.str(game.banker);
    const shoe = h.isObject(game.shoe) ? game.shoe : null;
    const where = shoe ? `Shoe: ${h.str(shoe.dealt)} dealt, ${h.str(shoe.left)} left` : "";
    return { label: banker ? "Bank" : "Table", name: banker || h.str(game.name), where };
  }

  // A card the camera confirmed is marked: each confirmation marks one copy of its code.
  function seen(h, face, code, confirmed) {
    const at = confirmed.indexOf(h.str(code));
    if (at < 0) return face;
    confirmed.splice(at, 1);
    face.classList.add("seen");
    face.setAttribute("aria-label", `${face.getAttribute("aria-label")}, seen by the camera`);
    return face;
  }

  function render(h, game, camera) {
    const panel = h.$("cards-panel");
    panel.hidden = !game;
    if (!game) return;
    const check = h.isObject(camera) ? camera : null;
    const confirmed = check ? h.list(check.confirmed).map(h.str) : [];
    const hands = h.isObject(game.hands) ? Object.entries(game.hands) : [];
    h.$("cards-hands").replaceChildren(...hands.map(([name, cards]) => h.el("div",
      { class: "hand" }, h.el("p", { class: "hand-name", text: name }),
      h.el("div", { class: "hand-cards" },
        h.list(cards).map((c) => seen(h, card(h, c), c, confirmed))))));
    const said = h.$("cards-camera");
    said.hidden = !check;
    said.textContent = check ? h.str(check.text) : "";
    said.classList.toggle("warn", Boolean(check && h.list(check.unexpected).length));
    const rows = h.list(game.sheet).filter(h.isObject);
    h.$("cards-scores").replaceChildren(
      h.el("thead", {}, h.el("tr", {}, h.el("th", { scope: "col", text: "Player" }),
        h.el("th", { scope: "col", text: "Winnings" }))),
      h.el("tbody", {}, rows.map((row) => h.el("tr", {
        class: h.list(game.winners).includes(row.player) ? "winner" : "" },
      h.el("th", { scope: "row", text: h.str(row.player) }),
      h.el("td", { text: h.str(row.total) })))));
    const bets = h.list(game.bets).filter(h.isObject);
    h.$("cards-bets").replaceChildren(...bets.map((bet) => h.el("li", {
      text: `${h.str(bet.player)}: ${h.str(bet.amount)} on ${h.str(bet.on)}` })));
    h.$("cards-bets-empty").hidden = bets.length > 0;
  }

  // The operator's form for a card the table could not place: which hand, and the card
  // itself if the shoe misread it.
  function flagForm(h, flag, path) {
    const reading = h.isObject(flag.reading) ? flag.reading : {};
    const hands = h.list(reading.hands).map(h.str);
    const hand = hands.length
      ? h.el("select", { required: true }, hands.map((name) => h.el("option",
        { value: name, text: name })))
      : h.el("input", { type: "text", required: true, placeholder: "banker, a player...",
        autocomplete: "off" });
    const code = h.el("input", { type: "text", value: h.str(reading.card), maxlength: 3,
      required: !reading.card,
      autocomplete: "off", spellcheck: "false", "aria-label": "The card" });
    const reason = h.el("input", { type: "text", placeholder: "Why (kept in the log)",
      autocomplete: "off" });
    const confirm = h.el("button", { type: "submit", text: "Deal it to this hand" });
    const voidButton = h.el("button", { type: "button", class: "secondary",
      text: "Not dealt (void)" });
    const form = h.el("form", { class: "flag-form" },
      h.el("p", { class: "flag-what", text: h.str(flag.what) }),
      h.el("div", { class: "card-picker" }, card(h, reading.card),
        h.el("label", { class: "field" }, "Card", code),
        h.el("label", { class: "field" }, "Hand", hand)),
      h.el("label", { class: "field" }, "Reason", reason),
      h.el("div", { class: "buttons" }, confirm, voidButton));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      h.act(confirm, "POST", path, {
        to: hand.value.trim(), card: code.value.trim().toUpperCase(),
        reason: reason.value.trim() || "placed by the operator",
      }, "Card placed.");
    });
    voidButton.addEventListener("click", () => {
      if (!reason.value.trim()) {
        h.say("Say why the card is void; the reason is kept in the log.", false);
        reason.focus();
        return;
      }
      h.act(voidButton, "POST", path, { void: true, reason: reason.value.trim() },
        "Card voided.");
    });
    return form;
  }

  return { card, up, render, flagForm };
})();
