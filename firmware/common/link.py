# The node's serial link over a pair of file objects: USB CDC on the Pico
# (sys.stdin.buffer / sys.stdout.buffer), a pseudo-terminal under the unix port.
# Gives the UART-like interface node.Node expects: read() never blocks.

import select

# At most this many bytes per read(), so one busy link cannot starve the inputs.
READ_MAX = 256


class PolledStream:
    """Non-blocking reads via select.poll; closed becomes True when the far end hangs up.

    dropped counts bytes not sent because the far end was not taking any.
    """

    def __init__(self, infile, outfile):
        self.infile = infile
        self.outfile = outfile
        self.closed = False
        self.dropped = 0
        self.poller = select.poll()
        self.poller.register(infile, select.POLLIN)
        self.out_poller = select.poll()
        self.out_poller.register(outfile, select.POLLOUT)

    def wait(self, timeout_ms):
        """Block until bytes arrive or timeout_ms passes."""
        self.poller.poll(timeout_ms)

    def read(self):
        """The bytes available now (None if there are none)."""
        data = bytearray()
        while not self.closed and len(data) < READ_MAX:
            events = self.poller.poll(0)
            if not events:
                break
            if events[0][1] & select.POLLIN:
                # One byte at a time: a longer read() blocks until it is filled.
                byte = self.infile.read(1)
                if byte:
                    data.extend(byte)
                else:
                    self.closed = True
            else:
                self.closed = True
        return bytes(data) if data else None

    def write(self, data):
        """Send data, or drop it when the far end is not taking bytes (a host that stopped
        reading, USB not connected): lost reports come again by retransmission, and the
        loop must not block (the watchdog would reset the board)."""
        if not self.out_poller.poll(0):
            self.dropped += len(data)
            return
        self.outfile.write(data)
        flush = getattr(self.outfile, "flush", None)
        if flush is not None:
            flush()
