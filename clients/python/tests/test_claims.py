"""Claims from the Python SDK: claim(), release(), claimed_by and the typed Claimed error."""

from __future__ import annotations

import pytest

import tandem
from test_conformance import join, until


def test_a_claim_refuses_others_with_claimed_naming_the_holder(server, rooms):
    ann = join(rooms, server.url, name="Ann")
    ben = join(rooms, server.url, name="Ben")
    heard = []
    ben.on_change("gain")(lambda change: heard.append(change.value))
    ann["gain"].claim()
    until(lambda: ben["gain"].claimed_by == ann.client, what="Ben sees Ann's claim")
    with pytest.raises(tandem.Claimed) as refused:
        ben["gain"].set(0.9)
    assert isinstance(refused.value, tandem.Busy)
    assert refused.value.holder == ann.client and refused.value.holder_name == "Ann"
    assert ann["gain"].set(0.7) == {"value": 0.7}
    ann["gain"].release()
    until(lambda: ben["gain"].claimed_by is None, what="the claim gone")
    assert ben["gain"].set(0.2) == {"value": 0.2}
    until(lambda: heard == [0.7, 0.2], what="Ben's handler heard the two commits and nothing of the claim")
