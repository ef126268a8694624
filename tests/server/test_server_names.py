"""Display names with emoji sequences and joiners reaching the other people at the table
unchanged over real WebSockets (what ``protocol.check_name`` accepts and refuses:
tests/protocol/test_protocol_names.py).
"""

from __future__ import annotations

from typing import Any

from ligretto.protocol import MAX_NAME_LENGTH
from sample_names import ENGLAND, FAMILY, HEART, PERSIAN, ZWJ, tags


def test_names_with_joiners_reach_everyone_unchanged(server: Any, arun: Any) -> None:
    async def scenario() -> None:
        code = server.create_table(4)
        names = [FAMILY, PERSIAN, HEART * MAX_NAME_LENGTH, f"Ann {ENGLAND}"]
        clients = [await server.client(f"player{i}").join(code, name) for i, name in enumerate(names)]
        watcher = await server.client("watcher").watch(code)
        for client in (*clients, watcher):
            await client.wait_for(lambda m: m["type"] == "table" and m["seats"][3] is not None)
            seats = client.all("table")[-1]["seats"]
            assert [seat["name"] for seat in seats] == names, client.label
        status, summary = server.http("GET", f"/api/tables/{code}")
        assert status == 200 and summary["host"] == FAMILY

        for name in ("Ann\u202eevil", ZWJ * 2, HEART * (MAX_NAME_LENGTH + 1), f"Ann{tags('gbeng')}"):
            refused = server.client("refused")
            await refused.connect()
            answer = await refused.hello(code, name)
            assert answer["type"] == "error" and answer["code"] == "bad_name", answer
            await refused.close()
        status, summary = server.http("GET", f"/api/tables/{code}")
        assert summary["taken"] == 4, "a refused name took a seat"
        for client in (*clients, watcher):
            await client.close()

    arun(scenario())
