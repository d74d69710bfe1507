"""Cheap static checks on the table page; the real browser tests drive it live elsewhere."""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "controller" / "static"
HTML = (STATIC / "table.html").read_text(encoding="utf-8")
#: The page's scripts, in the order it loads them: each family's view, the history's words,
#: then the page itself.
SCRIPTS = ("dice.js", "cards.js", "billiards.js", "words.js", "table.js")
JS = "\n".join((STATIC / name).read_text(encoding="utf-8") for name in SCRIPTS)
CSS = (STATIC / "table.css").read_text(encoding="utf-8")


class _Page(HTMLParser):
    """Collects what the page refers to and the ids it declares."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self.inline_handlers: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if "id" in values:
            self.ids.append(values["id"])
        if tag == "script":
            self.scripts.append(values.get("src", ""))
        if tag == "link" and values.get("rel") == "stylesheet":
            self.styles.append(values.get("href", ""))
        self.inline_handlers += [name for name in values if name.startswith("on")]


@pytest.fixture(scope="module")
def page() -> _Page:
    parsed = _Page()
    parsed.feed(HTML)
    return parsed


def test_page_loads_its_own_script_and_stylesheet(page: _Page) -> None:
    assert page.scripts == [f"/static/{name}" for name in SCRIPTS]
    assert page.styles == ["/static/table.css"]


def test_every_element_the_script_looks_up_is_on_the_page(page: _Page) -> None:
    wanted = set(re.findall(r'\$\("([^"]+)"\)', JS))
    assert wanted, "the script looks nothing up by id"
    assert wanted <= set(page.ids), sorted(wanted - set(page.ids))
    assert len(page.ids) == len(set(page.ids)), "duplicate ids"


def test_nothing_from_the_server_is_parsed_as_html(page: _Page) -> None:
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                 "new Function", "DOMParser", "createContextualFragment"):
        assert sink not in JS, sink
    assert page.inline_handlers == []


def test_page_works_offline() -> None:
    svg_namespace = "http://www.w3.org/2000/svg"
    for name, text in (("html", HTML), ("js", JS.replace(svg_namespace, "")), ("css", CSS)):
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", text, re.I), name
        assert "@import" not in text, name


def test_script_talks_to_the_service_routes() -> None:
    for route in ("/ws", "/api/games", "/api/game", "/api/dead-ball", "/api/flags/",
                  "/api/session", "/api/session/end", "X-CSRF-Token", "/api/history?after=",
                  "/api/rulings/"):
        assert route in JS, route


def test_the_operators_controls_wait_for_sign_in_and_the_pin_is_not_kept() -> None:
    hidden = re.search(r'<div id="operator-controls"[^>]*>', HTML)
    assert hidden and " hidden" in hidden.group(0)
    for form in ("flag-forms", "billiards-referee", "dead-ball", "new-game"):
        assert HTML.index('id="operator-controls"') < HTML.index(f'id="{form}"'), form
    for store in ("sessionStorage", "localStorage", "document.cookie", "X-Operator-Pin"):
        assert store not in JS, store


def test_family_views_send_changes_only_through_the_shared_helper() -> None:
    for name in ("dice.js", "cards.js", "billiards.js"):
        text = (STATIC / name).read_text(encoding="utf-8")
        posts = re.findall(r'fetch\([^)]*\)', text)
        assert all("method" not in call for call in posts), name
        assert "X-CSRF-Token" not in text and "h.act(" in text, name


@pytest.mark.parametrize("name", SCRIPTS)
def test_script_parses(name: str) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed; the browser tests parse the script instead")
    result = subprocess.run([node, "--check", str(STATIC / name)], capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
