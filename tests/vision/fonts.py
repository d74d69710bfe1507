"""Marks tests that typeset card indices, which need the machine's fonts."""

from __future__ import annotations

import pytest

from vision.scenes.card_indices import NoFonts, fonts


def _has_fonts() -> bool:
    try:
        fonts()
    except NoFonts:
        return False
    return True


needs_fonts = pytest.mark.skipif(not _has_fonts(), reason="no fonts: apt install "
                                 "fonts-dejavu-core (tools/bootstrap.sh installs it)")
