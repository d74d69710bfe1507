"""A dice table: the camera watches the bed, and each settled throw goes to the table.

`DiceRunner` opens the configured camera, feeds every frame to a `ThrowWatcher` with the
dice recogniser, and records what each settled throw showed:

- a throw read surely: an `event` `{"type": "throw", "dice": [...]}` (through
  `Table.reading`, so a throw the game cannot take now is flagged, not lost);
- a die cocked or off the table: a `note` `{"what": "rethrow", "reason", "law", "text"}`:
  no throw, the caster throws again (backgammon laws 5-6); the engine never sees it;
- a die read unsurely, or the wrong number of dice: a `flag` with the faces read (None
  where unsure): the table pauses until the operator confirms the faces. Beside the
  reading (never inside it: the reading is the event the operator confirms) the flag
  keeps `crops`, the camera's picture of each die read, in the reading's order (a small
  JPEG, base64), and `game_dice`, how many dice the game throws (None if it does not say),
  so the operator's form shows what the camera saw beside each face, and the croupier can
  drop a die the camera imagined or add one it missed.

Each entry keeps what the camera saw (`vision`: boxes, confidences, states). On the
simulated table (`camera.source = "sim"`) seated players bet from the game's legal bets
and every throw is rendered into a folder that the camera then replays; a simulated
croupier confirms the faces the camera was unsure of, as he sees them.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import shutil
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from controller.config import Config
from controller.runner import Runner
from controller.table import Table
from engine.core import JSON
from engine.dice.core import RETHROW_REASONS
from vision.camera import Camera, CameraEnded, CameraUnavailable, FolderCamera, open_camera
from vision.core import BadFrameError, Box, Frame, VisionError
from vision.scenes.dice import Scene, render_throw
from vision.settle import DieRead, ThrowRead, ThrowWatcher

log = logging.getLogger(__name__)

#: Seconds between attempts to reopen a camera that went away.
REOPEN_EVERY = 2.0
NEW_GAME_PAUSE = 3.0
#: The simulated players: chance one of them bets before a throw.
SIM_BET = 0.3
#: The simulated table: chance that a die comes to rest cocked.
SIM_COCKED = 0.02
#: A die's picture for the operator: its box widened by this share of its size on each
#: side (a die read off its centre still shows whole), at most CROP_SIDE pixels a side,
#: kept as a JPEG of this quality: about 2-4 KB of base64 a die.
CROP_MARGIN = 0.25
CROP_SIDE = 96
CROP_QUALITY = 80


class DiceRunner(Runner):
    """Opens the dice table's camera and reads throws; on the simulated table, plays too."""

    def __init__(self, config: Config, table: Table) -> None:
        super().__init__(config, table)
        self.simulated = config.camera.source == "sim"
        self.sim_folder = config.data_dir / f"{config.table_id}-sim-camera"
        self.throws = 0
        #: The simulated throw as it really fell, for the simulated croupier.
        self.truth: Scene | None = None

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._spawn(self._run, "hoyle-dice-camera")

    # -- the camera thread ---------------------------------------------------------------

    def _run(self) -> None:
        from vision.dice import DiceReader

        camera_config = self.config.camera
        try:
            reader = DiceReader(bed=camera_config.bed, threshold=camera_config.threshold)
        except VisionError as error:
            self._call(self.table.device("camera", "unavailable",
                                         f"the dice recogniser cannot be loaded: {error}"))
            return
        watcher = ThrowWatcher(reader, bed=camera_config.bed, threshold=camera_config.threshold,
                               still_frames=camera_config.still_frames,
                               agree=camera_config.agree)
        while not self.stop.is_set():
            camera = self._open()
            if camera is None:
                continue
            with camera:
                self._watch(camera, watcher)

    def _open(self) -> Camera | None:
        """The camera, or None (after saying why and waiting) when it cannot be opened."""
        try:
            if self.simulated:
                if not self._play_before_throw():
                    return None
                camera: Camera = FolderCamera(self._render_throw(),
                                              interval=self.config.camera.interval)
                detail = f"simulated camera replaying {self.sim_folder}"
            else:
                size = (self.config.camera.width, self.config.camera.height)
                camera = open_camera(self.config.camera.source, size=size)
                detail = camera.name
        except VisionError as error:
            self._call(self.table.device("camera", "unavailable", str(error)))
            self.stop.wait(REOPEN_EVERY)
            return None
        self._call(self.table.device("camera", "working", detail))
        return camera

    def _watch(self, camera: Camera, watcher: ThrowWatcher) -> None:
        interval = self.config.camera.interval if isinstance(camera, FolderCamera) else 0.0
        while not self.stop.is_set():
            try:
                time, frame = camera.read()
                watcher.dice = self._dice_wanted()
                read = watcher.feed(time, frame)
            except CameraEnded:
                if not self.simulated:
                    self._call(self.table.device("camera", "unavailable",
                                                 f"{camera.name}: the replay ended"))
                    self.stop.wait(REOPEN_EVERY)
                return
            except CameraUnavailable as error:
                self._call(self.table.device("camera", "unavailable", str(error)))
                self.stop.wait(REOPEN_EVERY)
                return
            except BadFrameError as error:  # a frame file gone or corrupt: the next may do
                log.warning("skipped a frame: %s", error)
                continue
            if read is not None:
                crops = die_crops(frame, read.dice) if read.verdict == "confirm" else []
                self._call(self.record(read, crops))
            if interval:
                self.stop.wait(interval)

    # -- what a read becomes ---------------------------------------------------------------

    async def record(self, read: ThrowRead, crops: Sequence[str] = ()) -> None:
        """Log what one settled throw showed (see the module docstring); `crops`: the
        camera's picture of each die, kept beside a reading the operator must confirm."""
        seen = {"vision": read.to_json()}
        if read.verdict == "throw":
            event = {"type": "throw", "dice": [d.value for d in read.dice]}
            await self.table.reading(event, "camera", seen)
        elif read.verdict == "rethrow":
            law = RETHROW_REASONS[read.reason]
            which = "cocked" if read.reason == "cocked" else "off the table"
            await self.table.record("note", "camera", {
                "what": "rethrow", "reason": read.reason, "law": law.to_json(),
                "text": f"No throw: a die came to rest {which}; the caster throws again.",
                **seen})
        else:
            await self.table.record("flag", "camera", {
                "reading": {"type": "throw", "dice": [d.value for d in read.dice]},
                "why": read.reason, "game_dice": self._dice_wanted(), "crops": list(crops),
                **seen})

    def _dice_wanted(self) -> int | None:
        """How many dice the game throws next, from its legal events; None if it says not."""
        engine = self.table.state.engine
        if engine is None:
            return None
        for event in engine.legal_events():
            data = event.to_json()
            if data["type"] == "throw":
                return len(data["dice"])
        return None

    # -- the simulated table ---------------------------------------------------------------

    def _play_before_throw(self) -> bool:
        """Start a game if none runs, and let the seated players bet; False to wait."""
        view = self._view()
        if view is not None and view["flags"] and self.truth is not None:
            self._croupier_confirms(view["flags"][0])
            return False
        if view is None or view["status"] == "paused":
            self.stop.wait(1.0)
            return False
        if view["game"] is None or view["game"]["over"]:
            self._new_game(NEW_GAME_PAUSE)
            return False
        engine = self.table.state.engine
        if engine is not None:
            bets = [e for e in engine.legal_events() if e.type not in ("throw", "rethrow")]
            if bets and self.rng.random() < SIM_BET:
                bet = self.rng.choice(bets)
                self._call(self.table.record("event", "sim", {"event": bet.to_json()}))
                return False
        self.stop.wait(self.config.sim.pace)
        return not self.stop.is_set()

    def _croupier_confirms(self, flag: JSON) -> None:
        """The simulated croupier looks at the dice the camera was unsure of, and says."""
        assert self.truth is not None
        if self.stop.wait(self.config.sim.pace):
            return
        dice = sorted(self.truth.dice, key=lambda die: die.box[0])
        if any(die.state != "flat" for die in dice):
            body: JSON = {"flag": flag["seq"], "event": None,
                          "reason": "the croupier saw a die cocked or off the table"}
        else:
            body = {"flag": flag["seq"], "event": {**flag["reading"],
                                                   "dice": [die.value for die in dice]},
                    "reason": "faces confirmed by the croupier"}
        self._call(self.table.record("resolve", "sim", body))
        self.truth = None

    def _render_throw(self) -> Path:
        """One throw's frames, rendered into the simulated camera's folder."""
        count = self._dice_wanted() or 2
        self.throws += 1
        scenes = render_throw(np.random.default_rng([self.config.sim.seed, self.throws]),
                              count=count, cocked=SIM_COCKED)
        shutil.rmtree(self.sim_folder, ignore_errors=True)
        self.sim_folder.mkdir(parents=True)
        for number, scene in enumerate(scenes):
            cv2.imwrite(str(self.sim_folder / f"frame_{number:03d}.png"), scene.image)
        self.truth = scenes[-1]
        return self.sim_folder


def die_crops(frame: Frame, dice: Sequence[DieRead]) -> list[str]:
    """Each die's picture from `frame`, in order: a small JPEG, base64 ("" where its box
    lies outside the frame), for the operator to see beside the face he confirms."""
    return [_crop_jpeg(frame, die.box) for die in dice]


def _crop_jpeg(frame: Frame, box: Box) -> str:
    x, y, w, h = box
    margin = CROP_MARGIN * max(w, h)
    height, width = frame.shape[:2]
    left, top = max(0, round(x - margin)), max(0, round(y - margin))
    right, bottom = min(width, round(x + w + margin)), min(height, round(y + h + margin))
    if right <= left or bottom <= top:
        return ""
    crop = frame[top:bottom, left:right]
    scale = CROP_SIDE / max(crop.shape[:2])
    if scale < 1:
        size = (max(1, round(crop.shape[1] * scale)), max(1, round(crop.shape[0] * scale)))
        crop = np.asarray(cv2.resize(crop, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)
    ok, data = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, CROP_QUALITY])
    return base64.b64encode(data.tobytes()).decode("ascii") if ok else ""
