"""A banking card table: every card the dealer shoe reads goes to the table, in order.

`CardRunner` opens the shoe (docs/shoe.md) and records each card it reads before the
shoe is told the card is taken, so a card is never lost or doubled across a crash:

- the game waits for a card to one hand (its legal card events all go there): the event
  `{"type": "card", "to": <hand>, "card": "10H"}`, through `Table.reading`, so a card
  the game cannot take now (a copy too many for the shoe's packs) is flagged, not lost;
- the game waits for a card to one of several hands, or for no card at all (bets are
  being placed): a `flag` with the card and why; the operator says where it went.

If the shoe stops at a card it cannot give (a number it skipped, a code that is no card),
the table pauses and a `flag` asks the operator for that card, as the dealer shows it:
named (card and hand) or voided (no card was drawn), it is the table's, the shoe's position
moves past it (a `device` entry with `nodes.shoe`) and the cards behind it flow again.

Each entry carries the shoe's position (`nodes.shoe`: boot id and card sequence), so a
restarted service tells the shoe the last card it holds and carries on from the next.
With a shuffler, each pack it reads is verified before it is dealt: a missing, extra or
duplicated card makes the shuffler unavailable, which pauses the table with the report.

With a camera over the table, the cards it reads face up are held against the shoe's
record every LOOK_EVERY seconds, and each settled change is noted (`camera check`): the
cards it confirms, and any card it is sure of that the shoe has not dealt in this game
(controller/card_camera.py); once those cards have left the table, a check that vouches
for none, so that the view's `camera` no longer speaks for cards gone. The camera never
changes the record.

On the simulated table (`shoe.port = "sim"`) a simulated shoe speaks the same protocol
on a pseudo-terminal, a simulated shuffler fills it with verified packs, the seated
players bet and play from the game's legal events, the dealer draws when the game
waits for a card, and a simulated camera draws the cards of every hand face up.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

import numpy as np

from controller.card_camera import CameraLook, check_cards
from controller.config import Config
from controller.fold import CAMERA_CHECK, CARD_CAMERA
from controller.runner import RECORD_TIMEOUT, Runner
from controller.table import Table
from drivers.errors import DriverError
from drivers.shoe.fake import FakeShoe
from drivers.shoe.link import DrawnCard, ShoeHealth
from drivers.shoe.shoe import DealerShoe
from drivers.shoe.shuffler import FakeShuffler, PackRejected, Shuffler
from engine.core import JSON
from engine.registry import get_game
from vision.camera import Camera, CameraEnded, CameraUnavailable, open_camera
from vision.cards import CardReader
from vision.core import BadFrameError, Frame, VisionError

log = logging.getLogger(__name__)

NEW_GAME_PAUSE = 3.0
#: The simulated camera draws at most this many cards (the renderer's limit).
MAX_DRAWN = 20
#: Seconds between the overhead camera's looks at the cards.
LOOK_EVERY = 0.5
#: Seconds between attempts to reopen a camera that went away.
REOPEN_EVERY = 2.0
#: The simulated players: chance a player acts (bets, stands, draws) before the next card.
SIM_ACT = 0.5


class CardRunner(Runner):
    """Opens the card table's shoe (and shuffler); on the simulated table, deals too."""

    def __init__(self, config: Config, table: Table) -> None:
        super().__init__(config, table)
        self.shoe: DealerShoe | None = None
        self.fake: FakeShoe | None = None
        self.fake_shuffler: FakeShuffler | None = None
        self.shuffler: Shuffler | None = None
        self.cards_taken = 0
        self.packs = config.shoe.packs
        self.verified: list[tuple[str, ...]] = []
        #: Where the shoe stopped for the dealer (boot id, card number) that a thread awaits.
        self.stops: set[tuple[int, int]] = set()

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        try:
            await asyncio.to_thread(self._open)
        except (DriverError, OSError) as error:
            log.error("the card table's shoe could not be opened: %s", error)
            await self.table.device("shoe", "unavailable", str(error))
            return
        if self.shuffler is not None:
            self._spawn(self._verify_packs, "hoyle-shuffler")
        if self.fake is not None:
            self._spawn(lambda: self._play(self._step, "dealer"), "hoyle-sim-dealer")
        if self.fake is not None or self.config.camera.source != "sim":
            # "sim" is the simulated table's camera: a real table has one only if named.
            self._spawn(self._watch_cards, "hoyle-card-camera")

    def _open(self) -> None:
        shoe = self.config.shoe
        port = shoe.port
        self.packs = shoe.packs
        if port == "sim":
            # The simulated shoe holds as many packs as the game deals from.
            trial = get_game(self.config.game).new_state(list(self.config.sim.players))
            self.packs = int((trial.snapshot().get("shoe") or {}).get("packs") or shoe.packs)
            self.fake = FakeShoe([], packs=self.packs, seed=self.config.sim.seed)
            self.fake_shuffler = FakeShuffler(seed=self.config.sim.seed)
            port = self.fake.port
            shuffler_port: str | None = self.fake_shuffler.port
        else:
            shuffler_port = shoe.shuffler_port
        resume = self.table.state.nodes.get("shoe")
        self.shoe = DealerShoe(port, on_card=self._on_card, on_health=self._on_health,
                               resume=(resume[0], resume[1]) if resume else None)
        if shuffler_port is not None:
            self.shuffler = Shuffler(shuffler_port, packs=self.packs)

    def close(self) -> None:
        super().close()
        for device in (self.shoe, self.shuffler, self.fake, self.fake_shuffler):
            if device is not None:
                device.close()

    # -- what the shoe reads -----------------------------------------------------------------

    def _on_card(self, card: DrawnCard) -> None:
        """The shoe's thread: the card is acknowledged once this returns (made durable)."""
        self._call(self.take(card.code, {"nodes": {"shoe": [card.boot_id, card.seq]}}))
        with self.taken:
            self.cards_taken += 1
            self.taken.notify_all()

    async def take(self, code: str, extra: JSON) -> None:
        """Record one card the shoe read (see the module docstring)."""
        hands = self.hands_waiting()
        if len(hands) == 1:
            await self.table.reading({"type": "card", "to": hands[0], "card": code}, "shoe",
                                     extra)
            return
        if hands:
            why = f"{code} was drawn: which hand is it for ({', '.join(hands)})?"
        else:
            why = f"{code} was drawn while the game waits for no card"
        await self.table.record("flag", "shoe", {
            "reading": {"type": "card", "to": None, "card": code, "hands": hands},
            "why": why, **extra})

    def hands_waiting(self) -> list[str]:
        """The hands the game's next card may go to, from its legal card events."""
        engine = self.table.state.engine
        if engine is None or self.table.state.flags:
            return []
        hands: list[str] = []
        for event in engine.legal_events():
            data = event.to_json()
            if data["type"] == "card" and data["to"] not in hands:
                hands.append(str(data["to"]))
        return hands

    def _on_health(self, health: ShoeHealth) -> None:
        if self.stop.is_set() or health.state in ("connecting", "closed"):
            return
        state = "working" if health.state == "running" else "unavailable"
        detail = health.reason or (f"{health.identity.maker} {health.identity.serial} on "
                                   f"{health.port}" if health.identity else health.port)
        self._tell("shoe", state, detail)
        if health.stopped_at is not None and health.identity is not None:
            at = (health.identity.boot_id, health.stopped_at)
            with self.taken:
                if at in self.stops:
                    return
                self.stops.add(at)
            self._spawn(lambda: self._await_dealer(at, health.reason), "hoyle-shoe-stop")

    def _await_dealer(self, at: tuple[int, int], why: str) -> None:
        """The shoe stopped at a card: flag it (once, across restarts), wait until the
        operator has settled it, then move the shoe's position past it and carry on."""
        try:
            flag = self._call(self.stopped(at, why))
            if flag is None:
                return
            while self._call(self._flag_open(flag)):
                if self.stop.wait(0.2):
                    return
            boot, seq = at
            self._call(self.table.record("device", "shoe", {
                "device": "shoe", "state": "working",
                "detail": f"carrying on after card {seq}, which the operator settled",
                "nodes": {"shoe": [boot, seq]}}))
            if self.shoe is not None:
                self.shoe.go_on_after(seq)
        except (ValueError, DriverError) as error:
            log.error("the shoe could not carry on after the stop at %s: %s", at, error)
        finally:
            with self.taken:
                self.stops.discard(at)

    async def stopped(self, at: tuple[int, int], why: str) -> int:
        """The open flag asking for the card the shoe stopped at; flagged now if none is."""
        for seq, flag in self.table.state.flags.items():
            if flag["reading"].get("shoe") == list(at):
                return seq
        hands = self.hands_waiting()
        change = await self.table.record("flag", "shoe", {
            "reading": {"type": "card", "to": None, "card": None, "hands": hands,
                        "shoe": list(at)},
            "why": (f"the shoe stopped at card {at[1]} ({why}): name the card the dealer "
                    "shows and its hand, or void it if no card was drawn")})
        return change.seq

    async def _flag_open(self, seq: int) -> bool:
        return seq in self.table.state.flags

    def _verify_packs(self) -> None:
        """Each pack the shuffler reads is verified; a bad one pauses the table with why."""
        assert self.shuffler is not None
        while not self.stop.is_set():
            try:
                pack = self.shuffler.wait_pack(1.0)
            except PackRejected as error:
                self._call(self.table.device("shuffler", "unavailable",
                                             f"pack rejected: {error}"))
                continue
            except DriverError:
                continue  # no pack yet, or the line is down (its health says so)
            self._call(self.table.device("shuffler", "working",
                                         f"{len(pack.cards)} cards verified"))
            with self.taken:
                self.verified.append(pack.cards)
                self.taken.notify_all()

    # -- the overhead camera ---------------------------------------------------------------

    def _watch_cards(self) -> None:
        """The camera's thread: look at the cards every LOOK_EVERY seconds and note each
        settled change of what the camera vouches for (controller/card_camera.py)."""
        try:
            wanted = self.config.camera.card_threshold
            reader = CardReader() if wanted is None else CardReader(threshold=wanted)
        except VisionError as error:
            self._tell(CARD_CAMERA, "unavailable", f"the card recogniser cannot be loaded: {error}")
            return
        look = CameraLook(self.config.camera.agree)
        while not self.stop.is_set():
            try:
                camera = self._open_camera()
            except VisionError as error:
                self._tell(CARD_CAMERA, "unavailable", str(error))
                self.stop.wait(REOPEN_EVERY)
                continue
            self._tell(CARD_CAMERA, "working",
                       f"{camera.name}; vouches for a card read at least {reader.threshold} sure")
            with camera:
                self._look(camera, reader, look)

    def _open_camera(self) -> Camera:
        if self.config.camera.source == "sim":
            return SimCardCamera(self._cards_on_table, self.config.sim.seed)
        camera = self.config.camera
        return open_camera(camera.source, size=(camera.width, camera.height))

    def _look(self, camera: Camera, reader: CardReader, look: CameraLook) -> None:
        game = None
        while not self.stop.wait(LOOK_EVERY):
            try:
                _, frame = camera.read()
                reads = reader(frame)
            except (CameraEnded, CameraUnavailable) as error:
                self._tell(CARD_CAMERA, "unavailable", str(error))
                self.stop.wait(REOPEN_EVERY)
                return
            except BadFrameError as error:
                log.warning("skipped a frame: %s", error)
                continue
            except VisionError as error:  # anything else the camera or the models say
                self._tell(CARD_CAMERA, "unavailable", str(error))
                self.stop.wait(REOPEN_EVERY)
                return
            table = self._call(self._cards())
            if table is None or table[0] is None:
                continue  # no game: nothing to hold the cards against
            started, hands, dealt = table
            if started != game:
                game = started
                look.forget()
            check = look.feed(check_cards(reads, hands, dealt, reader.threshold))
            if check is not None and (check.vouches() or self._call(self._camera_vouched())):
                self._call(self.table.record("note", "camera", {
                    "what": CAMERA_CHECK, **check.to_json(), "text": check.text(),
                    "vision": [read.to_json() for read in reads]}))

    async def _camera_vouched(self) -> bool:
        """Whether the camera's last check noted in this game vouches for a card: a check
        that vouches for none is noted only then (its cards left the table), so an empty
        table at a game's start is not noted at all."""
        noted = self.table.state.camera
        return bool(noted and (noted.get("confirmed") or noted.get("unexpected")))

    async def _cards(self) -> tuple[int | None, dict[str, list[str]], list[str]]:
        """The log entry that started the game (None: no game), its cards by hand, and every
        card dealt in it."""
        state = self.table.state
        if state.engine is None or state.game is None:
            return None, {}, []
        hands = state.engine.snapshot().get("hands") or {}
        dealt = [str(data["card"]) for _, data in state.game.events
                 if data.get("type") == "card" and data.get("card")]
        return (state.game.start_seq, {str(k): [str(c) for c in v] for k, v in hands.items()},
                dealt)

    def _cards_on_table(self) -> list[str]:
        """The simulated camera's subject: every card of every hand, face up."""
        table = self._call(self._cards())
        return [] if table is None else [code for cards in table[1].values() for code in cards]

    # -- the simulated table ---------------------------------------------------------------

    def _step(self) -> None:
        """The simulated dealer and players: play while a game runs, start one when none."""
        assert self.fake is not None
        view = self._view()
        if view is None or view["status"] == "paused":
            self.stop.wait(0.5)
            return
        if view["game"] is None or view["game"]["over"]:
            if self._new_game(NEW_GAME_PAUSE) is not None:
                self._fill_shoe()
            return
        engine = self.table.state.engine
        assert engine is not None
        acts = [e for e in engine.legal_events() if e.type != "card"]
        if acts and (not self.hands_waiting() or self.rng.random() < SIM_ACT):
            act = self.rng.choice(acts)
            self._call(self.table.record("event", "sim", {"event": act.to_json()}))
            self.stop.wait(self.config.sim.pace)
            return
        if not self.hands_waiting():
            self.stop.wait(0.5)
            return
        if self.fake.remaining == 0:
            self._call(self.table.record("abandon", "sim", {"reason": "the shoe ran out"}))
            return
        with self.taken:
            before = self.cards_taken
            self.fake.draw(1)
            self.taken.wait_for(lambda: self.cards_taken > before or self.stop.is_set(),
                                RECORD_TIMEOUT)
        self.stop.wait(self.config.sim.pace)

    def _fill_shoe(self) -> None:
        """A new shoe: packs shuffled by the simulated shuffler, verified, then loaded."""
        assert self.fake is not None and self.fake_shuffler is not None
        with self.taken:
            self.verified.clear()
        self.fake_shuffler.shuffle(packs=self.packs)
        with self.taken:
            self.taken.wait_for(lambda: bool(self.verified) or self.stop.is_set(),
                                RECORD_TIMEOUT)
            if self.verified:
                self.fake.load(list(self.verified.pop()), packs=self.packs)


class SimCardCamera(Camera):
    """The simulated card table's camera: the cards `cards()` names, rendered face up with
    one of Debian's card designs (the same one all session), redrawn when they change, as a
    camera mounted still and in focus takes them (docs/deployment.md)."""

    def __init__(self, cards: Callable[[], list[str]], seed: int) -> None:
        from vision.scenes.cards import installed_decks

        decks = installed_decks()
        if not decks:
            raise CameraUnavailable("simulated card camera: no card designs are installed "
                                    "(gnome-cards-data, kdegames-card-data-kf5)")
        self.deck = decks[seed % len(decks)]
        self.name = f"simulated camera ({self.deck.name} cards)"
        self.cards = cards
        self.seed = seed
        self._drawn: tuple[list[str], Frame] | None = None

    def read(self) -> tuple[float, Frame]:
        from vision.scenes.cards import render_scene

        codes = self.cards()[:MAX_DRAWN]
        if self._drawn is None or self._drawn[0] != codes:
            if codes:
                rng = np.random.default_rng([self.seed, len(codes)])
                try:
                    frame = render_scene(rng, codes=codes, decks=[self.deck],
                                         overlap=0.3, still_camera=True).image
                except VisionError as error:  # the design's files, or rsvg-convert, gone
                    raise CameraUnavailable(f"{self.name}: {error}") from error
            else:
                frame = np.full((480, 640, 3), (40, 110, 30), np.uint8)
            self._drawn = (codes, frame)
        return time.monotonic(), self._drawn[1]

    def close(self) -> None:
        self._drawn = None
