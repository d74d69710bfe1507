// How the page says what a table's log holds: each history entry, and each event of every
// family, in the words a person at the table would use ("Ann: strike", "Throw 3 and 4",
// "Card 10H to Bob", "Bet: Bob stakes 5 on pass"), never as raw data. An event the words
// do not know reads as its type and its fields, spelled out (no braces, `[]` nor `false`).
// table.js calls it with its DOM helpers (`h`).
"use strict";

window.hoyleWords = (() => {
  // A player's act at a card or dice table, the verb after the player's name.
  const ACTS = {
    stand: "stands",
    draw: "draws",
    offer: "offers a card",
    pass: "passes the bank",
    refuse: "refuses",
    double: "calls on all to double",
    prison: "puts the stakes in prison",
    claim: "claims the numbers the caster overlooked",
    proclaim: "proclaims pool",
  };
  // What moved the bottle at bottle pool (a stroke's `bottle_by`).
  const BOTTLE_BY = { carom: "by a carom", cue: "by the cue ball", ball: "by an object ball",
    both: "by an object ball and the cue ball" };
  const CUSHION = "cushion";

  const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  const capital = (text) => (text ? text[0].toUpperCase() + text.slice(1) : text);
  const spaced = (h, name) => h.str(name).replace(/[-_]+/g, " ").trim();
  // A die's face as read; a die the camera could not read shows as "?".
  const face = (value) => (Number.isInteger(value) ? String(value) : "?");

  // A ball as players name it: "8-ball", "cue ball", "spot white"; null: not read.
  function ballName(h, name) {
    const text = h.str(name);
    if (!text) return "a ball not read";
    if (/^\d+$/.test(text)) return `${text}-ball`;
    return text === "cue" ? "cue ball" : spaced(h, text);
  }

  const pocketWords = (h, pocket) => (pocket ? `the ${spaced(h, pocket)} pocket` : "a pocket");

  // The striker of a stroke: the event's player, else the one its rulings name.
  function striker(h, event, rulings, game) {
    if (event.player) return h.str(event.player);
    const players = game ? h.list(game.players).map(h.str) : [];
    const named = rulings.map((ruling) => h.str(ruling.who)).find((who) => players.includes(who));
    return named || "";
  }

  // ---- bowling ---------------------------------------------------------------------

  // "Ann: strike", "Ann: 7 down, 3 standing (pins 4, 7, 10)", "Ann: foul, all down": a
  // strike or spare, and the pins counted, as the ball's rulings say; a read or a
  // correction, which has no rulings of its own, says the pins left standing.
  function ball(h, event, rulings) {
    const player = h.str(event.player);
    const own = rulings.filter((ruling) => h.str(ruling.who) === player);
    const kinds = new Set(own.map((ruling) => ruling.kind));
    if (kinds.has("strike")) return `${player}: strike`;
    if (kinds.has("spare")) return `${player}: spare`;
    const parts = [];
    if (event.foul === true) parts.push("foul");
    const counted = own.find((ruling) => ruling.kind === "count");
    if (counted && Number.isInteger(counted.amount)) {
      parts.push(counted.amount === 0 ? "no pin down" : `${counted.amount} down`);
    }
    const standing = h.list(event.standing).slice().sort((a, b) => a - b);
    parts.push(standing.length === 0 ? "all down"
      : `${standing.length} standing (${standing.length === 1 ? "pin" : "pins"} `
        + `${standing.join(", ")})`);
    return `${player}: ${parts.join(", ")}`;
  }

  // ---- dice and cards --------------------------------------------------------------

  // "Throw 3 and 4", "Throw by Ann: 6", "Throw 2 and 5, holding 6, 6 and 6".
  function diceThrow(h, event) {
    const dice = h.list(event.dice).map(face);
    const by = event.player ? ` by ${h.str(event.player)}:` : "";
    const hold = Array.isArray(event.hold) ? h.joinNames(event.hold.map(face))
      : Number.isInteger(event.hold) ? plural(event.hold, "die", "dice") : "";
    return `Throw${by} ${h.joinNames(dice) || "not read"}${hold ? `, holding ${hold}` : ""}`;
  }

  // "Bet: Bob stakes 5 on pass", "... on number 4", "... on 7, coppered to lose"; a
  // spectator's bet at baccara: "Bet: Dora, a spectator, stakes 10 on right".
  function bet(h, event) {
    const who = event.spectator ? `${h.str(event.spectator)}, a spectator,` : h.str(event.player);
    const on = `${h.str(event.on)}${event.number === undefined || event.number === null ? ""
      : ` ${h.str(event.number)}`}`;
    const how = event.copper === true ? ", coppered to lose"
      : Array.isArray(event.order) ? `, calling the turn ${event.order.map(h.str).join(" then ")}`
        : "";
    return `Bet: ${who} stakes ${h.str(event.amount)} on ${on}${how}`;
  }

  // A hand as the dealer says it: a player by name, the others' ("banker", "right") as
  // "the banker", "the right".
  function hand(h, name, game) {
    const players = game ? h.list(game.players).map(h.str) : [];
    return players.includes(name) ? name : `the ${name}`;
  }

  // "Card 10H to Bob", "Card QD to the banker, face down"; a read the shoe could not place
  // names the hands it may go to.
  function card(h, event, rulings, game) {
    const what = event.card ? `Card ${h.str(event.card)}` : "A card not read";
    const hands = h.list(event.hands).map((name) => hand(h, h.str(name), game));
    const to = event.to ? hand(h, h.str(event.to), game)
      : hands.length ? hands.join(" or ") : "a hand not known";
    return `${what} to ${to}${event.up === false ? ", face down" : ""}`;
  }

  // ---- cue games -------------------------------------------------------------------

  // "Stroke by Ann: struck the 3-ball, then a cushion; 1 ball driven to a cushion".
  function stroke(h, event, rulings, game) {
    const facts = [];
    if (Array.isArray(event.path)) {
      facts.push(event.path.length === 0 ? "a clean miss" : `struck ${event.path.map((contact) =>
        (contact === CUSHION ? "a cushion" : `the ${ballName(h, contact)}`)).join(", then ")}`);
    }
    if (event.safety === true) facts.push("a safety");
    if (Number.isInteger(event.driven)) {
      facts.push(event.driven === 0 ? "no ball driven to a cushion"
        : `${plural(event.driven, "ball", "balls")} driven to a cushion`);
    }
    if (Array.isArray(event.pins)) {
      facts.push(event.pins.length === 0 ? "no pin down"
        : `pins down: ${h.joinNames(event.pins.map((pin) => spaced(h, pin)))}`);
    }
    if (Array.isArray(event.direct) && event.direct.length) {
      facts.push(`played at direct: ${h.joinNames(event.direct.map((pin) => spaced(h, pin)))}`);
    }
    if (event.bottle) {
      const by = BOTTLE_BY[h.str(event.bottle_by)] || "";
      facts.push(event.bottle === "none" ? "the bottle not moved"
        : `the bottle ${spaced(h, event.bottle)}${by ? ` ${by}` : ""}`);
    }
    if (event.balk === true) facts.push("the object balls left in balk");
    const who = striker(h, event, rulings, game);
    return `Stroke${who ? ` by ${who}` : ""}${facts.length ? `: ${facts.join("; ")}` : ""}`;
  }

  // "Count by Ann: 2 points": a referee's count that closes a stroke.
  function count(h, event, rulings, game) {
    const who = striker(h, event, rulings, game);
    const points = Number.isInteger(event.points) ? plural(event.points, "point", "points")
      : "not given";
    return `Count${who ? ` by ${who}` : ""}: ${points}`;
  }

  // A private number drawn: the table sends the number only to the operator until the
  // game is over; everyone else is told who drew ("hidden": true), not what.
  function privateDraw(h, event) {
    return event.hidden === true || event.number === undefined
      ? `${h.str(event.player)} drew a private number`
      : `${h.str(event.player)} drew private number ${h.str(event.number)}`;
  }

  const act = (h, e) => `${h.str(e.player)} ${ACTS[e.type]}`;

  const EVENTS = {
    ball,
    dead_ball: (h, e) => `Dead ball called for ${h.str(e.player)}: the ball does not count`,
    throw: diceThrow,
    rethrow: (h, e) => `Thrown again${e.reason ? `: ${h.str(e.reason)}` : ""}`,
    bet,
    withdraw: (h, e) => `${h.str(e.player)} takes back the bet on ${h.str(e.on)}`,
    card,
    split: (h, e) => `${h.str(e.player)} splits a pair${Number.isInteger(e.amount)
      ? `, staking ${e.amount} on the new hand` : ""}`,
    sell: (h, e) => `${h.str(e.player)} sells the deal to ${h.str(e.buyer)} for ${h.str(e.amount)}`,
    bid: (h, e) => `${h.str(e.player)} bids ${h.str(e.amount)} for the farm`,
    sold: () => "The farm is sold to the highest bidder",
    shuffle: () => "The cards are shuffled",
    redeal: () => "The cards are dealt again",
    pocket: (h, e) => `${capital(ballName(h, e.ball))} in ${pocketWords(h, e.pocket)}`,
    off: (h, e) => `${capital(ballName(h, e.ball))} off the table`,
    foul: (h, e) => `Foul: ${spaced(h, e.kind) || "called by the referee"}`,
    call: (h, e) => `Call: the ${ballName(h, e.ball)}${e.pocket ? ` in ${pocketWords(h, e.pocket)}`
      : ""}`,
    private: privateDraw,
    stroke,
    count,
    star: (h, e) => `${h.str(e.player)} ${e.buy === true ? "stars (buys back in)"
      : "does not star"}`,
    spot: (h, e) => `${h.str(e.player)} spots the ${ballName(h, e.ball)}`,
  };

  // A field's value spelled out for the fallback: lists with commas, yes or no, none.
  function spelled(h, value) {
    if (value === null || value === undefined) return "none";
    if (typeof value === "boolean") return value ? "yes" : "no";
    if (Array.isArray(value)) {
      return value.length ? value.map((item) => spelled(h, item)).join(", ") : "none";
    }
    if (h.isObject(value)) return fields(h, value) || "none";
    return h.str(value);
  }

  function fields(h, data) {
    return Object.entries(data).filter(([key]) => key !== "type")
      .map(([key, value]) => `${spaced(h, key)} ${spelled(h, value)}`).join(", ");
  }

  // The event in words; `rulings` (what the entry made the game rule) and `game` (the
  // game's view) tell a strike from a spare and name a stroke's striker.
  function event(h, data, rulings, game) {
    if (!h.isObject(data)) return "nothing";
    const type = h.str(data.type);
    const said = Object.hasOwn(EVENTS, type) ? EVENTS[type]
      : Object.hasOwn(ACTS, type) && data.player ? act : null;
    if (said) return said(h, data, h.list(rulings).filter(h.isObject), game || null);
    const rest = fields(h, data);
    return `${h.words(type || "event")}${rest ? `: ${rest}` : ""}`;
  }

  // The name of the game a `start` entry started, from the game's view when it is that game.
  function gameName(h, id, game) {
    return game && h.str(game.id) === id && game.name ? h.str(game.name) : id;
  }

  // The log entry in words, with who made it and why when the log says.
  function entry(h, record, game) {
    const body = h.isObject(record.body) ? record.body : {};
    const rulings = h.list(record.rulings);
    const reason = body.reason ? ` · why: ${h.str(body.reason)}` : "";
    const by = record.source ? ` · by ${h.str(record.source)}` : "";
    switch (record.kind) {
      case "start":
        return `Game started: ${gameName(h, h.str(body.game), game)} for `
          + `${h.joinNames(h.list(body.players).map(h.str))}${by}`;
      case "event":
        return `${event(h, body.event, rulings, game)}${by}`;
      case "flag":
        return `Read held for the operator: ${h.str(body.why)}: `
          + `${event(h, body.reading, [], game)}${by}`;
      case "resolve":
        return `${body.event ? `Read #${h.str(body.flag)} confirmed as `
          + `${event(h, body.event, rulings, game)}` : `Read #${h.str(body.flag)} voided`}`
          + `${by}${reason}`;
      case "correct":
        return `${body.event ? `Entry #${h.str(body.target)} replaced: `
          + `${event(h, body.event, [], game)}` : `Entry #${h.str(body.target)} voided`}`
          + `${by}${reason}`;
      case "device":
        return device(h, body);
      case "abandon":
        return `Game abandoned${by}${reason}`;
      case "note":
        return `${h.str(body.text || body.what)}${by}`;
      default:
        return `${h.words(record.kind)}${by}`;
    }
  }

  // "The camera is unavailable: no frame for 5 s", "The pockets are working".
  function device(h, body) {
    const name = spaced(h, body.device) || "a device";
    const verb = name.endsWith("s") ? "are" : "is";
    const detail = body.detail ? `: ${h.str(body.detail)}` : "";
    return `The ${name} ${verb} ${spaced(h, body.state) || "in an unknown state"}${detail}`;
  }

  return { entry, event };
})();
