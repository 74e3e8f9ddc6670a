"""An admin breaks a claim over HTTP with auth on: `DELETE /api/rooms/{room}/controls/{control}/claim`
needs an admin token covering the room (docs/protocol.md, "Claims")."""

from helpers import Client
from test_auth import api, auth_server, secret_file, token  # noqa: F401 (fixtures)
from test_claims import claim_is, send


def test_only_an_admin_of_the_room_breaks_a_claim(auth_server, open_ws):
    ann = Client(open_ws(auth_server.ws_url("demo", token=token("editor", sub="ann", name="Ann"))))
    ann.expect_ack(send(ann, "claim", "gain"))
    path = "/api/rooms/demo/controls/gain/claim"
    for jwt, why in ((None, "no token"), (token("editor"), "an editor"), (token("viewer"), "a viewer")):
        answer = api(auth_server, "DELETE", path, jwt)
        assert answer.status in (401, 403), (why, answer.status, answer.body)
    elsewhere = api(auth_server, "DELETE", path, token("admin", room="other"))
    assert elsewhere.status == 403 and "does not cover" in elsewhere.json()["message"]
    mark = ann.mark()
    broken = api(auth_server, "DELETE", path, token("admin", sub="boss"))
    assert broken.status == 200, broken.body
    ann.expect(claim_is(None), since=mark, what="Ann's claim broken by the admin")
