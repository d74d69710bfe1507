"""A link's host commands: the one command in flight, its SEQ, retries and the node's answer.

A command goes out with a fresh SEQ and is sent again with the same SEQ every
``retry_interval`` until answered, ``tries`` times in all; a node that already has it
answers again rather than acting twice. One command is in flight at a time. The link's
reader thread sends its own (the handshake, the pings) and reads the port while it
waits; any other thread waits for the link to be ready and the slot free, then for the
reader thread to hand it the answer.

:class:`Commands` belongs to a :class:`~drivers.wire.link.NodeLink` and is guarded by the
link's condition, so that a thread can wait for the link's state and the slot at once.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from drivers.errors import DeviceUnavailable, DriverError, LinkTimeout
from drivers.serial_ports import PORT_ERRORS
from drivers.wire.frame import SEQ_MOD, WireError
from drivers.wire.messages import (
    CONFIG_BOUNDS,
    CommandRefused,
    Config,
    ConfigKey,
    Message,
    Nack,
    NackCode,
    code_name,
    encode_message,
    response_type,
)

__all__ = ["Blocked", "Commands", "Pending"]

_R = TypeVar("_R", bound=Message)


@dataclass(frozen=True, slots=True)
class Blocked:
    """Why no command can be sent now, as the link tells it."""

    error: DriverError
    """What a waiting sender raises if the link is still not ready when its wait ends."""
    final: bool
    """True if waiting cannot help (the node was refused, the link is closing)."""


class Pending:
    """The one command in flight and its answer."""

    __slots__ = ("error", "expect", "received_at", "response", "sent_at", "seq", "tries")

    def __init__(self, seq: int, expect: type[Message]) -> None:
        """Command ``seq`` in flight, answered by an ``expect`` (or a NACK)."""
        self.seq = seq
        self.expect = expect
        self.response: Message | None = None
        self.error: DriverError | None = None
        self.sent_at = 0.0
        self.received_at = 0.0
        self.tries = 0


class Commands:
    """Sends a link's commands one at a time, retrying, and matches the node's answers.

    The link provides ``cond`` (its condition: every method here that says so is called
    with it held), ``write(raw)`` (to the port), ``read_once()`` (read the port and
    handle its frames, on the reader thread), ``blocked()`` (with the condition held:
    None when the node is ready for other threads' commands), ``on_nack(nack)`` (a
    :meth:`request` was refused) and its ``reader`` thread and ``stopping`` event.
    """

    def __init__(
        self,
        port: str,
        *,
        cond: threading.Condition,
        clock: Callable[[], float],
        tries: int,
        retry_interval: float,
        write: Callable[[bytes], None],
        read_once: Callable[[], None],
        blocked: Callable[[], Blocked | None],
        on_nack: Callable[[Nack], None],
        reader: threading.Thread,
        stopping: threading.Event,
    ) -> None:
        """No command in flight yet; SEQs start at a random number."""
        self._port = port
        self._cond = cond
        self._clock = clock
        self._tries = tries
        self._retry_interval = retry_interval
        self._write = write
        self._read_once = read_once
        self._blocked = blocked
        self._on_nack = on_nack
        self._reader = reader
        self._stopping = stopping
        self._pending: Pending | None = None
        # A fresh random start makes it unlikely that a node still caching the last
        # command of an earlier host process answers ours from that cache.
        self._next_seq = random.randrange(SEQ_MOD)
        self.retries = 0
        """Commands sent again for want of an answer (read with the condition held)."""

    def request(self, command: Message, answer: type[_R], *, inline: bool) -> _R:
        """Send ``command`` and return its answer; CommandRefused if the node sends NACK."""
        response, _pending = self.exchange(command, inline=inline)
        if isinstance(response, Nack):
            self._on_nack(response)
            raise self._refused(command, response)
        if not isinstance(response, answer):
            raise WireError(
                f"{command.NAME} answered with {type(response).__name__}", reason="type"
            )
        return response

    def exchange(self, command: Message, *, inline: bool) -> tuple[Message, Pending]:
        """Send ``command`` until answered (at most ``tries`` times): the answer, its slot.

        ``inline`` is the reader thread's own call: it reads the port while it waits.
        Other threads wait for the reader thread to hand them the answer.
        """
        if inline:
            pending = self._claim_inline(command)
        elif threading.current_thread() is self._reader:
            raise RuntimeError(
                f"{self._port}: commands cannot be sent from the link's own callbacks"
            )
        else:
            pending = self._claim_waiting(command)
        return self._transact(pending, command, inline=inline)

    def exchange_if_idle(self, command: Message) -> tuple[Message, Pending] | None:
        """The reader thread's :meth:`exchange`, unless a command is already in flight."""
        with self._cond:
            if self._pending is not None:
                return None
            pending = self._take_slot(command)
        return self._transact(pending, command, inline=True)

    def took_response(self, seq: int, message: Message) -> bool:
        """Hand ``message`` to the command in flight it answers; False if it answers none."""
        with self._cond:
            pending = self._pending
            if (
                pending is not None
                and pending.seq == seq
                and pending.response is None
                and isinstance(message, (pending.expect, Nack))
            ):
                pending.response = message
                pending.received_at = self._clock()
                self._cond.notify_all()
                return True
        return False

    def fail(self, error: DriverError) -> None:
        """Fail the command in flight (call with the condition held)."""
        if self._pending is not None:
            self._pending.error = error
            self._pending = None
            self._cond.notify_all()

    def _transact(
        self, pending: Pending, command: Message, *, inline: bool
    ) -> tuple[Message, Pending]:
        """Send the claimed command until answered; free the slot whatever happens."""
        try:
            raw = encode_message(command, pending.seq)
            for attempt in range(self._tries):
                if attempt:
                    with self._cond:
                        self.retries += 1
                pending.tries = attempt + 1
                pending.sent_at = self._clock()
                self._send(pending, raw, inline=inline)
                deadline = pending.sent_at + self._retry_interval
                answer = self._await(pending, deadline, inline=inline)
                if answer is not None:
                    return answer, pending
            raise LinkTimeout(
                f"{self._port}: no answer to {command.NAME} after "
                f"{self._tries} tries {self._retry_interval * 1000:.0f} ms apart"
            )
        finally:
            with self._cond:
                if self._pending is pending:
                    self._pending = None
                    self._cond.notify_all()

    def _claim_waiting(self, command: Message) -> Pending:
        """Take the one command slot for another thread, once free and the node ready."""

        def ready_or_hopeless() -> bool:
            blocked = self._blocked()
            if blocked is None:
                return self._pending is None
            return blocked.final

        with self._cond:
            self._cond.wait_for(ready_or_hopeless, timeout=self._tries * self._retry_interval)
            blocked = self._blocked()
            if blocked is not None:
                raise blocked.error
            if self._pending is not None:
                raise LinkTimeout(f"{self._port}: another command kept the link busy")
            return self._take_slot(command)

    def _claim_inline(self, command: Message) -> Pending:
        """Take the slot for the reader thread at once.

        While the node is not ready no other thread can hold it, so the handshake's
        commands always get it (the reader's ping checks for itself).
        """
        with self._cond:
            if self._stopping.is_set():
                raise DeviceUnavailable(f"link to {self._port} is closing")
            return self._take_slot(command)

    def _take_slot(self, command: Message) -> Pending:
        """Claim the slot with a new SEQ (call with the condition held)."""
        seq, self._next_seq = self._next_seq, (self._next_seq + 1) % SEQ_MOD
        self._pending = Pending(seq, response_type(type(command)))
        return self._pending

    def _send(self, pending: Pending, raw: bytes, *, inline: bool) -> None:
        if inline:
            self._write(raw)
            return
        with self._cond:
            if pending.error is not None:
                # The port was lost meanwhile: not a frame for the next connection.
                raise pending.error
        try:
            self._write(raw)
        except DeviceUnavailable:
            raise
        except PORT_ERRORS as exc:
            # The reader thread sees the same fault on its next read and reconnects.
            raise DeviceUnavailable(f"{self._port}: write failed: {exc}") from exc

    def _await(self, pending: Pending, deadline: float, *, inline: bool) -> Message | None:
        """Wait for the answer until ``deadline``; the answer, or None on timeout."""
        while True:
            with self._cond:
                if pending.error is not None:
                    raise pending.error
                if pending.response is not None:
                    return pending.response
                left = deadline - self._clock()
                if left <= 0:
                    return None
                if not inline:
                    self._cond.wait(left)
                    continue
            if self._stopping.is_set():
                raise DeviceUnavailable(f"link to {self._port} is closing")
            self._read_once()

    def _refused(self, command: Message, nack: Nack) -> CommandRefused:
        """The error for a NACK, naming the command (and a CONFIG's key and host bounds)."""
        what = command.NAME
        if isinstance(command, Config):
            key = ConfigKey(command.key)
            bounds = CONFIG_BOUNDS[key]
            what = (
                f"CONFIG {key.name.lower()}={command.value} "
                f"(host bounds {bounds.low}..{bounds.high})"
            )
        return CommandRefused(
            f"{self._port}: node refused {what}: NACK {code_name(NackCode, nack.code)}: "
            f"{nack.text}",
            code=nack.code,
            text=nack.text,
        )
