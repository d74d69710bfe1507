# Running a node on a Raspberry Pi Pico: pins with pull-ups and edge counters, the
# USB CDC link, the watchdog and the main loop. Each node folder's main.py calls run().
#
# `machine` and `rp2` are imported inside functions so that mpy-cross and the unix
# port can load this module; only run() needs a board.

import os
import sys
import time

import micropython

import link
import wire
from node import Clock, Node

# The watchdog resets the board if the loop stalls this long.
WATCHDOG_MS = 2000
# Pressing BOOTSEL while the node runs restarts it into the REPL once (for mpremote):
# this file marks that restart.
STOP_FLAG = "/stop"
BUTTON_EVERY_MS = 250


class EdgeCounter:
    """Counts a pin's edges in a hard interrupt, so oscillation faster than the loop
    polls is still seen."""

    def __init__(self, pin):
        import machine
        self.count = 0
        # Bound once here: a hard interrupt handler must not allocate.
        self._handler = self._edge
        pin.irq(handler=self._handler, trigger=machine.Pin.IRQ_RISING | machine.Pin.IRQ_FALLING,
                hard=True)

    def _edge(self, pin):
        self.count += 1

    def take(self):
        """Edges since the last take()."""
        import machine
        state = machine.disable_irq()
        count = self.count
        self.count = 0
        machine.enable_irq(state)
        return count


class PicoBoard:
    """What a node type's build() asks for, on real hardware.

    gpio: input number -> GPIO number; uarts: name -> (UART id, tx GPIO, rx GPIO).
    """

    def __init__(self, gpio, uarts):
        self.gpio = gpio
        self.uarts = uarts

    def pin(self, number):
        """Input `number`'s GPIO as an input with the internal pull-up."""
        import machine
        return machine.Pin(self.gpio[number], machine.Pin.IN, machine.Pin.PULL_UP)

    def counter(self, pin):
        return EdgeCounter(pin)

    def uart(self, name, baudrate):
        """The UART called `name`, its read() returning at once (None when nothing came)."""
        import machine
        uart_id, tx, rx = self.uarts[name]
        return machine.UART(uart_id, baudrate=baudrate, tx=machine.Pin(tx), rx=machine.Pin(rx),
                            timeout=0)


def _stop_requested():
    try:
        os.remove(STOP_FLAG)
    except OSError:
        return False
    return True


def run(kind, gpio, uarts=None, stream=None):
    """Run a node of `kind` (a node-type module: NODE_TYPE, build(board, now_ms)) wired
    as `gpio` and `uarts` say (PicoBoard), over `stream` (USB CDC unless given)."""
    import machine
    import rp2

    if _stop_requested():
        print("hoyle node stopped for the REPL; reset the board to run it again")
        return
    watchdog_reset = machine.reset_cause() == machine.WDT_RESET
    if hasattr(micropython, "alloc_emergency_exception_buf"):  # absent on the unix port
        micropython.alloc_emergency_exception_buf(100)
    # Frames carry 0x03 (ACK's type, CRC bytes), which would otherwise raise
    # KeyboardInterrupt; the BOOTSEL button is the way out instead.
    micropython.kbd_intr(-1)
    if stream is None:
        stream = link.PolledStream(sys.stdin.buffer, sys.stdout.buffer)
    clock = Clock(time.ticks_ms, time.ticks_diff)
    inputs, rules = kind.build(PicoBoard(gpio, uarts or {}), clock.now())
    node = Node(stream, kind.NODE_TYPE, inputs, clock.now(), rules)
    if watchdog_reset:
        node.enter_shutdown(wire.SHUTDOWN_WATCHDOG, "watchdog reset", clock.now())
    watchdog = machine.WDT(timeout=WATCHDOG_MS)
    button_due = 0
    while True:
        stream.wait(1)
        now = clock.now()
        try:
            node.poll(now)
        except OSError:
            pass  # USB gone mid-write: the host re-identifies and retransmission recovers
        watchdog.feed()
        if now >= button_due:
            button_due = now + BUTTON_EVERY_MS
            if rp2.bootsel_button():
                with open(STOP_FLAG, "w") as flag:
                    flag.write("1")
                machine.reset()
