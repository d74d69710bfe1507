# The Pico glue (common/pico.py) on stand-ins for the `machine` and `rp2` modules, so the
# board's start-up, pin set-up, watchdog and BOOTSEL stop are exercised off the board.

import binascii
import os
import sys
import time

import micropython

import foulline
import pockets
import wire
from helpers import FakeStream, check, equal

FLAG = "/tmp/hoyle-firmware-test-stop-" + binascii.hexlify(os.urandom(6)).decode()


class _Reset(Exception):
    pass


class _Pin:
    IN = 0
    PULL_UP = 1
    IRQ_RISING = 4
    IRQ_FALLING = 8

    def __init__(self, gpio, mode=None, pull=None):
        self.gpio = gpio
        self.mode = mode
        self.pull = pull
        self.irq_args = None
        machine.pins.append(self)

    def value(self):
        return 1

    def irq(self, handler=None, trigger=0, hard=False):
        self.irq_args = (handler, trigger, hard)


class _Uart:
    def __init__(self, uart_id, baudrate=0, tx=None, rx=None, timeout=None):
        machine.uarts.append((uart_id, baudrate, tx.gpio, rx.gpio, timeout))

    def read(self):
        return None


class _Wdt:
    def __init__(self, timeout):
        machine.wdt_timeout = timeout

    def feed(self):
        machine.feeds += 1


class _Machine:
    """Stands in for the `machine` module."""

    Pin = _Pin
    UART = _Uart
    WDT = _Wdt
    WDT_RESET = 3

    def __init__(self):
        self.pins = []
        self.uarts = []
        self.feeds = 0
        self.wdt_timeout = None
        self.cause = 1

    def reset_cause(self):
        return self.cause

    def reset(self):
        raise _Reset()

    def disable_irq(self):
        return 0

    def enable_irq(self, state):
        pass


class _Rp2:
    """Stands in for `rp2`: BOOTSEL reads pressed on the given check."""

    def __init__(self, pressed_on):
        self.checks = 0
        self.pressed_on = pressed_on

    def bootsel_button(self):
        self.checks += 1
        return 1 if self.checks >= self.pressed_on else 0


class _Stream(FakeStream):
    def wait(self, timeout_ms):
        time.sleep_ms(timeout_ms)


machine = _Machine()


def _run(kind, gpio, uarts=None, cause=1, stream=None):
    """Run pico.run until BOOTSEL stops it; the stream it used."""
    global machine
    import pico

    machine = _Machine()
    machine.cause = cause
    sys.modules["machine"] = machine
    sys.modules["rp2"] = _Rp2(pressed_on=2)
    pico.STOP_FLAG = FLAG
    pico.BUTTON_EVERY_MS = 10
    stream = stream or _Stream()
    try:
        pico.run(kind, gpio, uarts, stream=stream)
        raise AssertionError("run() returned instead of resetting")
    except _Reset:
        pass
    finally:
        micropython.kbd_intr(3)
        del sys.modules["machine"]
        del sys.modules["rp2"]
    return stream


def _frames(stream):
    return [wire.unpack(f.type, f.payload) for f in wire.Receiver().feed(bytes(stream.sent))]


def test_pico_sets_up_pins_watchdog_and_answers_on_the_link():
    stream = _Stream()
    stream.incoming.extend(wire.frame("IDENTIFY_REQ", 1, {"host_protocol": 1}))
    _run(foulline, {1: 2}, stream=stream)
    os.remove(FLAG)
    pin = machine.pins[0]
    equal((pin.gpio, pin.mode, pin.pull), (2, _Pin.IN, _Pin.PULL_UP), "pin with pull-up")
    handler, trigger, hard = pin.irq_args
    equal((trigger, hard), (_Pin.IRQ_RISING | _Pin.IRQ_FALLING, True), "edge counter irq")
    check(machine.feeds > 0 and machine.wdt_timeout == 2000, "watchdog fed")
    equal(_frames(stream)[0][0], "IDENTIFY", "answered")


def test_pico_pockets_reader_uart_does_not_block():
    _run(pockets, {1: 2, 2: 3, 3: 4, 4: 5, 5: 6, 6: 7}, {"reader": (1, 8, 9)})
    os.remove(FLAG)
    equal(machine.uarts, [(1, 9600, 8, 9, 0)], "UART1 at 9600, timeout 0")
    equal([p.gpio for p in machine.pins], [2, 3, 4, 5, 6, 7, 8, 9], "pins")


def test_pico_starts_in_shutdown_after_a_watchdog_reset():
    stream = _run(foulline, {1: 2}, cause=_Machine.WDT_RESET)
    os.remove(FLAG)
    equal(_frames(stream)[0], ("SHUTDOWN", {"code": 3, "text": "watchdog reset"}), "shutdown")


def test_pico_bootsel_stop_leaves_the_next_start_to_the_repl():
    _run(foulline, {1: 2})
    import pico

    sys.modules["machine"] = _Machine()
    sys.modules["rp2"] = _Rp2(pressed_on=1)
    try:
        equal(pico.run(foulline, {1: 2}, stream=_Stream()), None, "returns at once")
    finally:
        del sys.modules["machine"]
        del sys.modules["rp2"]
    try:
        os.stat(FLAG)
    except OSError:
        return
    raise AssertionError("the stop flag is used up")
