// The card table's part of the live page: each hand drawn as cards with its count and
// who holds it (those the overhead camera confirmed marked, and what it last said, while
// it vouches for a card on the table), the last coup's cards kept, marked settled, until
// the next deal, the bank, the bets standing, each player's winnings, the shoe's count,
// and the operator's form for a card the shoe read that the table could not place.
// table.js calls it with its DOM helpers.
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

  // What each card counts at vingt-et-un before the best count is taken: an ace 1, a court
  // card 10. An ace counted 11 makes the engine's count (`totals`) 10 more than this.
  function lowCount(cards) {
    return cards.reduce((sum, code) => {
      const rank = code.slice(0, -1);
      return sum + (rank === "A" ? 1 : ["10", "J", "Q", "K"].includes(rank) ? 10 : Number(rank));
    }, 0);
  }

  // A hand's count in the game's words: baccara's point ("baccara" is a point of nothing,
  // Hoyle 1940, lines 1496-1499), a count with its ace soft (counted 11) or hard (counted 1)
  // at vingt-et-un and its kin, or the count the game keeps (Farmer, Rouge et Noir).
  function countWords(h, game, name, cards) {
    if (!cards.length) return "";
    if (h.isObject(game.holders) && h.isObject(game.points)) {
      const point = game.points[name];
      if (!Number.isInteger(point)) return "";
      return point === 0 ? "Point 0, baccara" : `Point ${point}`;
    }
    const counts = h.isObject(game.totals) ? game.totals : h.isObject(game.points) ? game.points
      : {};
    const count = counts[name];
    if (!Number.isInteger(count)) return "";
    if (!h.isObject(game.status) || !cards.some((code) => code.startsWith("A"))) {
      return `Count ${count}`;
    }
    return `Count ${count}, ${count === lowCount(cards) + 10 ? "soft" : "hard"}`;
  }

  // Who holds a hand: at baccara the player dealt Right or Left this coup (the hands go to
  // the players on the banker's right and left, and pass on from a player who loses a
  // coup, Hoyle 1940, lines 1434-1446 and 1500-1508), the banker his own.
  function holderOf(h, game, name) {
    if (h.isObject(game.holders) && game.holders[name]) return h.str(game.holders[name]);
    return name === "banker" ? h.str(game.banker) : "";
  }

  // The hands on the table as the page draws them: name, holder, cards and count.
  function handsOf(h, game) {
    const hands = h.isObject(game.hands) ? Object.entries(game.hands) : [];
    return hands.map(([name, cards]) => {
      const codes = h.list(cards).map(h.str);
      return { name, holder: holderOf(h, game, name), cards: codes,
        count: countWords(h, game, name, codes) };
    });
  }

  // How far the game has gone, by its own count of coups (deals, coups or hands).
  function progress(game) {
    return [game.deals, game.coups, game.hand].find(Number.isInteger) ?? null;
  }

  // A coup's cards stay on the page once it is settled (the engine clears its hands at
  // once), marked settled, until the next deal starts. Remembered from the coup the page
  // saw; a page opened between coups has only the engine's `last_hand` (vingt-et-un), or
  // shows the table empty.
  let onTable = null;
  let settled = null;

  function shown(h, game, hands) {
    const key = JSON.stringify([game.id, h.list(game.players)]);
    const at = progress(game);
    const over = game.over === true;
    if (hands.some((hand) => hand.cards.length)) {
      onTable = { key, hands, at };
      settled = null;
      return { hands, settled: false };
    }
    if (onTable && onTable.key === key && (over || (at !== null && at > onTable.at))) {
      settled = { key, hands: onTable.hands, at, over };
    }
    onTable = null;
    if (settled && (settled.key !== key || settled.at !== at || settled.over !== over)) {
      settled = null;
    }
    if (settled) return { hands: settled.hands, settled: true };
    const last = h.isObject(game.last_hand) ? Object.entries(game.last_hand) : [];
    const lastHands = last.map(([name, cards]) => ({ name, holder: "", count: "",
      cards: h.list(cards).map(h.str) })).filter((hand) => hand.cards.length);
    return lastHands.length ? { hands: lastHands, settled: true } : { hands, settled: false };
  }

  function handNode(h, hand, confirmed, isSettled) {
    const faces = hand.cards.map((code) => {
      const face = seen(h, card(h, code), code, confirmed);
      if (isSettled) face.setAttribute("aria-label", `${face.getAttribute("aria-label")}, settled`);
      return face;
    });
    const title = hand.holder ? `${hand.name} \u00b7 ${hand.holder}` : hand.name;
    const node = h.el("div", { class: isSettled ? "hand settled" : "hand" },
      h.el("p", { class: "hand-name", text: title }),
      h.el("div", { class: "hand-cards" }, faces),
      hand.count ? h.el("p", { class: "hand-count", text: hand.count }) : null);
    return node;
  }

  function render(h, game, camera) {
    const panel = h.$("cards-panel");
    panel.hidden = !game;
    if (!game) {
      onTable = null;
      settled = null;
      return;
    }
    const check = h.isObject(camera) ? camera : null;
    const confirmed = check ? h.list(check.confirmed).map(h.str) : [];
    const unexpected = check ? h.list(check.unexpected) : [];
    // A check that vouches for no card (its cards have left the table) is not shown.
    const vouches = confirmed.length > 0 || unexpected.length > 0;
    const table = shown(h, game, handsOf(h, game));
    const note = h.el("p", { class: "hands-settled hint",
      text: "The last coup, settled: its cards stay until the next deal." });
    h.$("cards-hands").replaceChildren(...(table.settled ? [note] : []),
      ...table.hands.map((hand) => handNode(h, hand, confirmed, table.settled)));
    const said = h.$("cards-camera");
    said.hidden = !vouches;
    said.textContent = vouches ? h.str(check.text) : "";
    said.classList.toggle("warn", unexpected.length > 0);
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
