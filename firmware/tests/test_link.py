# The link stream (common/link.py) on stand-in file objects that select.poll can poll.

import io
import select

from helpers import check, equal
from link import PolledStream

_POLL = 3  # MP_STREAM_POLL
_GET_FILENO = 10  # answered with -1: no file descriptor, poll through ioctl


class _End(io.IOBase):
    """One end of a link: bytes to be read, bytes written, and what poll reports."""

    def __init__(self, data=b"", hangup=False, writable=True):
        self.data = bytearray(data)
        self.hangup = hangup
        self.writable = writable
        self.written = bytearray()

    def ioctl(self, request, arg):
        if request != _POLL:
            return -1
        ready = 0
        if self.data or self.hangup:
            ready |= select.POLLIN
        if self.writable:
            ready |= select.POLLOUT
        if self.hangup:
            ready |= select.POLLHUP
        return ready & (arg | select.POLLHUP | select.POLLERR)

    def read(self, count):
        taken = bytes(self.data[:count])
        self.data = self.data[count:]
        return taken

    def write(self, data):
        self.written.extend(data)
        return len(data)


def test_read_returns_what_is_there_without_blocking():
    end = _End(b"\x07\x06\x00")
    stream = PolledStream(end, end)
    equal(stream.read(), b"\x07\x06\x00", "bytes")
    equal(stream.read(), None, "nothing more")
    check(not stream.closed, "still open")


def test_end_of_file_closes_the_stream():
    end = _End(b"\x7e", hangup=True)
    stream = PolledStream(end, end)
    equal(stream.read(), b"\x7e", "the last byte is still read")
    check(stream.closed, "closed at end of file")


def test_write_drops_bytes_the_far_end_does_not_take():
    end = _End(writable=False)
    stream = PolledStream(end, end)
    stream.write(b"\x07\x00\x00\x03\xe5\x8e\x7e")
    equal((bytes(end.written), stream.dropped), (b"", 7), "dropped, not blocked")
    end.writable = True
    stream.write(b"\x7e")
    equal(bytes(end.written), b"\x7e", "written once writable")
