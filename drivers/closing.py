"""`Closeable`: the one context-manager protocol of devices, links and logs.

A class that has `close()` inherits this so that `with Thing(...) as thing:` closes it
on the way out, however the block ends.
"""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closeable:
    """Base for anything with a `close()`: usable in a `with` block."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
