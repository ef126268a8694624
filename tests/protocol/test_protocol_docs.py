"""docs/protocol.md and the protocol's structs cannot drift apart.

Every JSON example of the document is read with the structs: client messages with the
server's own validation (``protocol.decode``), server messages with
``protocol.decode_server`` and, re-encoded, must give the example back exactly (same
keys, same values, same omissions); HTTP bodies with their struct of
``protocol.HTTP_BODIES``.  And every message struct, every action and every event has at
least one example in the document.  The HTTP errors shown in the table of
``POST /api/tables`` are error bodies, every error code an example shows has its row in
the table of error codes, and the table of refusals is the engine's ``Reason`` with its
texts.

The document abbreviates long lists with a string item that starts with ``...``
(``"..."``, ``"... as above ..."``) and a rule set with ``{"...": "..."}``; such list
items are dropped before decoding, which only ever shortens a list.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest

from ligretto import protocol
from ligretto.engine.events import Reason

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
BLOCK = re.compile(r"^```json\n(.*?)^```", re.DOTALL | re.MULTILINE)
CLIENT_TAGS = {cls.__struct_config__.tag: cls for cls in protocol.CLIENT_MESSAGES}
QUEUE_TAGS = {cls.__struct_config__.tag: cls for cls in protocol.QUEUE_MESSAGES}
"""The messages a client sends on ``/ws/queue`` (read by ``protocol.decode_queue``)."""
SERVER_TAGS = {cls.__struct_config__.tag: cls for cls in protocol.SERVER_MESSAGES}
FRAGMENTS: tuple[type[msgspec.Struct], ...] = (protocol.SeatEntry, protocol.SheetChange)
"""Parts of a message the document shows on their own."""


def examples(text: str) -> list[Any]:
    """Every JSON value in the document's ```json blocks (one block may hold several)."""
    decoder = json.JSONDecoder()
    values = []
    for block in BLOCK.findall(text):
        index = 0
        while True:
            while index < len(block) and block[index].isspace():
                index += 1
            if index == len(block):
                break
            value, index = decoder.raw_decode(block, index)
            values.append(value)
    return values


def unabbreviated(value: Any) -> Any:
    """The example without its ``"..."`` list items."""
    if isinstance(value, list):
        return [unabbreviated(v) for v in value if not (isinstance(v, str) and v.startswith("..."))]
    if isinstance(value, dict):
        return {k: unabbreviated(v) for k, v in value.items()}
    return value


def read(example: dict[str, Any]) -> list[type[msgspec.Struct]]:
    """Decode one example with the structs; the structs it showed (nested ones included)."""
    text = json.dumps(example)
    kind = example.get("type")
    if kind in CLIENT_TAGS:
        message: Any = protocol.decode(text)
        shown = [type(message)]
        if isinstance(message, protocol.Act):
            shown.append(type(message.action))
        return shown
    if kind in QUEUE_TAGS:
        return [type(protocol.decode_queue(text))]
    if kind in SERVER_TAGS:
        message = protocol.decode_server(text)
        again = json.loads(protocol.encode(message))
        assert again == example, f"the {kind} struct writes {again}, the document shows {example}"
        shown = [type(message)]
        if isinstance(message, protocol.Events):
            shown += [type(event) for event in message.events]
        return shown
    assert kind is None, f"no message has type {kind!r}: {example}"
    fits = []
    for body in (*protocol.HTTP_BODIES, *FRAGMENTS):
        try:
            msgspec.json.decode(text, type=body)
        except msgspec.ValidationError:
            continue
        fits.append(body)
    assert fits, f"no HTTP body or message part reads {example}"
    return fits


def test_the_document_has_examples() -> None:
    found = examples(DOC.read_text())
    assert len(found) > 100
    assert all(isinstance(example, dict) for example in found)


def test_every_example_in_the_document_is_read_by_the_structs() -> None:
    problems = []
    for example in examples(DOC.read_text()):
        try:
            read(unabbreviated(example))
        except (AssertionError, protocol.ProtocolError, msgspec.ValidationError) as error:
            problems.append(str(error))
    assert not problems, "\n".join(problems)


def test_every_struct_has_an_example_in_the_document() -> None:
    shown: set[type[msgspec.Struct]] = set()
    for example in examples(DOC.read_text()):
        shown.update(read(unabbreviated(example)))
    every = (
        *protocol.CLIENT_MESSAGES,
        *protocol.QUEUE_MESSAGES,
        *protocol.ACTION_MESSAGES,
        *protocol.SERVER_MESSAGES,
        *protocol.EVENT_MESSAGES,
        *protocol.HTTP_BODIES,
    )
    missing = [cls.__name__ for cls in every if cls not in shown]
    assert not missing, f"docs/protocol.md shows no example of {missing}"


@pytest.mark.parametrize(
    ("example", "wrong"),
    [
        ('```json\n{"type": "go", "round": 1, "seq": 3}\n```', "an unknown field"),
        ('```json\n{"type": "ack", "id": 1, "applied": false, "reason": null}\n```', "an omission not kept"),
        ('```json\n{"type": "welcome", "v": 1, "code": "x", "seat": 0}\n```', "a field missing"),
        ('```json\n{"type": "dance"}\n```', "an unknown type"),
        ('```json\n{"type": "events", "round": 1, "seq": 0, "by": 0, "events": [{"type": "flew"}]}\n```', "an event"),
        ('```json\n{"type": "hello", "v": 1}\n```', "a client message missing its code"),
        ('```json\n{"tables": 3}\n```', "no HTTP body"),
    ],
)
def test_a_wrong_example_is_caught(example: str, wrong: str) -> None:
    (value,) = examples(example)
    with pytest.raises((AssertionError, protocol.ProtocolError, msgspec.ValidationError)):
        read(value)


def test_a_struct_without_example_is_caught() -> None:
    text = DOC.read_text().replace('{"type": "go", "round": 1}', '{"type": "ping", "t": 1.0}')
    shown: set[type[msgspec.Struct]] = set()
    for example in examples(text):
        shown.update(read(unabbreviated(example)))
    assert protocol.Go not in shown
    assert protocol.Reaction in shown


HTTP_ERROR_ROW = re.compile(r"^\| (\d{3}) \| `(\{.*\})`", re.MULTILINE)


def table_rows(text: str, header: str) -> list[list[str]]:
    """The cells of the Markdown table under ``header`` (its first line), header excluded."""
    lines = text[text.index(header) :].splitlines()[2:]
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def test_every_http_error_the_document_shows_is_an_error_body() -> None:
    rows = HTTP_ERROR_ROW.findall(DOC.read_text())
    assert len(rows) >= 10
    for status, body in rows:
        error = msgspec.json.decode(body, type=protocol.HttpError)
        assert json.loads(protocol.encode(error)) == json.loads(body)
        assert status in ("400", "404", "405", "413", "429", "500", "503")


def test_every_error_code_shown_is_in_the_table_of_error_codes() -> None:
    text = DOC.read_text()
    listed = {row[0].strip("`") for row in table_rows(text, "| `code` | when |")}
    shown = {example["code"] for example in examples(text) if example.get("type") == "error"}
    assert shown <= listed, f"error codes without a row: {shown - listed}"
    assert len(listed) > 30


def test_the_table_of_refusals_is_the_engines() -> None:
    rows = table_rows(DOC.read_text(), "| `reason` | `message` | when |")
    assert {row[0].strip("`"): row[1] for row in rows} == {reason.value: reason.text for reason in Reason}
