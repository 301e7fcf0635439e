"""`ruleslang lsp` driven as an editor drives it: JSON-RPC frames over the server's stdin and stdout.

One server process serves the module (start-up is the slow part); each test opens its own buffer.
The buffers are never saved: what the server answers comes from the text sent, with the files on
disk standing in for the rulesets it revises and uses.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from queue import Empty, Queue

import pytest

from ruleslang.base.paths import packaged_root

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "rulesets"
REVISION = SHIPPED / "aar" / "commerce-raiding@2.rules"
FIRST = SHIPPED / "aar" / "commerce-raiding@1.rules"
WAIT = 60  # seconds: a loaded machine may be slow to check a composition


class Client:
    """A minimal LSP client: requests with ids, notifications kept apart by method."""

    def __init__(self, argv, cwd):
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, cwd=cwd, env=env)
        self.next_id = 0
        self.responses: dict[int, Queue] = {}
        self.notes: Queue = Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            message = json.loads(out.read(length))
            if "id" in message and "method" not in message:
                self.responses.setdefault(message["id"], Queue()).put(message)
            elif "method" in message:
                if "id" in message:  # a request of the server (registering capabilities ...): accept it
                    self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                self.notes.put(message)

    def _send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self.responses.setdefault(rid, Queue())
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        reply = self.responses[rid].get(timeout=WAIT)
        assert "error" not in reply, reply
        return reply["result"]

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def diagnostics_for(self, uri):
        """The next diagnostics published for `uri` (other notifications are passed over)."""
        while True:
            try:
                note = self.notes.get(timeout=WAIT)
            except Empty:
                raise AssertionError(f"no diagnostics for {uri} within {WAIT} s") from None
            if note["method"] == "textDocument/publishDiagnostics" and note["params"]["uri"] == uri:
                return note["params"]["diagnostics"]

    def open(self, path: Path, text: str, version=1):
        uri = path.resolve().as_uri()
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "ruleslang",
                                                              "version": version, "text": text}})
        return uri

    def change(self, uri, text, version):
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": [{"text": text}]})

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    c = Client([sys.executable, "-m", "ruleslang", "lsp"], cwd=tmp_path_factory.mktemp("editor"))
    init = c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    c.notify("initialized", {})
    c.capabilities = init["capabilities"]
    yield c
    c.close()


def at(text: str, needle: str, plus: int = 0) -> dict:
    """The protocol position of the first `needle` in `text` (plus `plus` characters)."""
    offset = text.index(needle) + plus
    line = text.count("\n", 0, offset)
    return {"line": line, "character": offset - (text.rfind("\n", 0, offset) + 1)}


def open_revision(client):
    """Open the shipped revision's text and wait for its check: (its text, its URI)."""
    text = REVISION.read_text()
    uri = client.open(REVISION, text)
    client.diagnostics_for(uri)
    return text, uri


def test_the_server_announces_what_it_answers(client):
    caps = client.capabilities
    for feature in ("hoverProvider", "definitionProvider", "referencesProvider", "completionProvider",
                    "codeLensProvider"):
        assert caps.get(feature), feature
    assert "ruleslang.runTest" in caps["executeCommandProvider"]["commands"]


def test_diagnostics_follow_the_text_as_it_is_typed(client):
    text = REVISION.read_text()
    uri = client.open(REVISION, text)
    assert client.diagnostics_for(uri) == []
    broken = text.replace("= ic_output(t)", "= ic_outptu(t)")
    client.change(uri, broken, 2)
    diags = client.diagnostics_for(uri)
    assert diags, "an unknown name must be reported"
    first = diags[0]
    assert first["code"] and first["source"] == "ruleslang" and first["severity"] == 1
    assert "ic_outptu" in first["message"] and "ic_output" in first["message"]  # did you mean
    assert first["range"]["start"] == at(broken, "ic_outptu")
    client.change(uri, text, 3)
    assert client.diagnostics_for(uri) == []


def test_hover_shows_kind_origin_doc_comment_and_a_constants_value(client):
    text, uri = open_revision(client)
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": at(text, 'raid_cap("UK")', 1)})
    value = hover["contents"]["value"]
    assert "**formula** `raid_cap` from `aar/commerce-raiding@2`" in value
    assert "overrides `aar/commerce-raiding@1`" in value
    comment = next(line for line in text.splitlines() if line.startswith("# The most raiding"))
    assert comment.lstrip("# ") in value
    const = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": at(text, "multiplier =", 2)})
    assert "value: `3`" in const["contents"]["value"]  # evaluated, not read off the text alone
    space = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": at(text, '"UK"', 1)})
    assert "space `United Kingdom`" in space["contents"]["value"]  # an alias resolved by the map


def test_definition_goes_to_the_version_in_force_and_an_override_to_what_it_replaces(client):
    text, uri = open_revision(client)
    use = client.request("textDocument/definition", {"textDocument": {"uri": uri},
                                                     "position": at(text, 'raid_cap("UK")', 2)})
    assert [d["uri"] for d in use] == [uri]
    assert use[0]["range"]["start"] == at(text, "raid_cap(t: territory)")
    own = client.request("textDocument/definition", {"textDocument": {"uri": uri},
                                                     "position": at(text, "raid_cap(t: territory)", 1)})
    first = FIRST.read_text()
    assert own[0]["uri"] == FIRST.resolve().as_uri()
    assert own[0]["range"]["start"]["line"] == at(first, "formula raid_cap(")["line"]
    # a name the revision does not touch is found in the ruleset it revises
    ref = client.request("textDocument/definition", {"textDocument": {"uri": uri},
                                                     "position": at(text, "ic_output(t)", 1)})
    assert ref and ref[0]["uri"] != uri
    # the `revises` reference leads to the file it names
    header = client.request("textDocument/definition", {"textDocument": {"uri": uri},
                                                        "position": at(text, "revises aar/", 10)})
    assert header[0]["uri"] == FIRST.resolve().as_uri()


def test_references_cover_the_revision_and_the_ruleset_it_revises(client):
    text, uri = open_revision(client)
    refs = client.request("textDocument/references", {"textDocument": {"uri": uri}, "context":
                                                      {"includeDeclaration": True},
                                                      "position": at(text, "raid_cap(t: territory)", 1)})
    uris = [r["uri"] for r in refs]
    assert uris.count(uri) == text.count("raid_cap")
    assert uris.count(FIRST.resolve().as_uri()) == FIRST.read_text().count("raid_cap(")


def test_completion_offers_names_and_inside_quotes_spaces_and_table_keys(client):
    text, uri = open_revision(client)
    typing = text + "\nconstant extra = ic_\n"
    client.change(uri, typing, 2)
    client.diagnostics_for(uri)
    names = client.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                       "position": at(typing, "= ic_", 5)})
    labels = {i["label"]: i for i in names["items"]}
    assert "ic_output" in labels and "raid_cap" in labels and "multiplier" in labels
    units = [i for i in names["items"] if i["detail"].startswith("unit ")]
    assert units, "unit types are offered"
    quoted = text + '\nconstant spot = ic_output("\n'
    client.change(uri, quoted, 3)
    client.diagnostics_for(uri)
    inside = client.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                        "position": at(quoted, 'ic_output("\n', 11)})
    kinds = {i["detail"] for i in inside["items"]}
    assert "United Kingdom" in {i["label"] for i in inside["items"]}
    assert {"land space", "sea space"} <= kinds
    assert "raid_cap" not in {i["label"] for i in inside["items"]}


def test_a_code_lens_runs_one_rule_test(client, tmp_path):
    text, uri = open_revision(client)
    lenses = client.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
    assert len(lenses) == text.count('\ntest "')
    lens = lenses[0]
    assert lens["command"]["command"] == "ruleslang.runTest"
    ran = client.request("workspace/executeCommand", {"command": "ruleslang.runTest",
                                                      "arguments": lens["command"]["arguments"]})
    assert [r["status"] for r in ran["results"]] == ["pass"], ran
    assert ran["results"][0]["test"] == lens["command"]["arguments"][1]
    # the buffer, not the file, is what runs: a changed expectation fails
    wrong = text.replace('expect raid_cap("UK") == 24', 'expect raid_cap("UK") == 25', 1)
    client.change(uri, wrong, 2)
    client.diagnostics_for(uri)
    ran = client.request("workspace/executeCommand", {"command": "ruleslang.runTest",
                                                      "arguments": lens["command"]["arguments"]})
    assert ran["results"][0]["status"] == "fail"
    assert ran["results"][0]["actual"] == "24"


def test_a_users_folder_reaches_the_shipped_rulesets(client, tmp_path):
    mine = tmp_path / "mine" / "capital@1.rules"
    mine.parent.mkdir()
    text = ("ruleset mine/capital@1\nuses aar/base@1\n\n# Two more for a capital.\n"
            "formula capital_bonus(t: territory) -> int = placement_limit(t) + 2\n")
    mine.write_text(text)
    uri = client.open(mine, text)
    assert client.diagnostics_for(uri) == []
    found = client.request("textDocument/definition", {"textDocument": {"uri": uri},
                                                       "position": at(text, "placement_limit", 1)})
    # the shipped rulesets of the installed package (site-packages after `pip install .`, the checkout's
    # folder in an editable install)
    assert found[0]["uri"] == (packaged_root() / "aar" / "base@1.rules").resolve().as_uri()
    # a syntax error is located, and the server keeps answering from the last text that composed
    client.change(uri, text + "formula broken(= 1\n", 2)
    diags = client.diagnostics_for(uri)
    assert diags and diags[0]["range"]["start"]["line"] == text.count("\n")
    names = client.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                       "position": {"line": 0, "character": 0}})
    assert "capital_bonus" in {i["label"] for i in names["items"]}


def test_the_vscode_extension_starts_this_server():
    folder = ROOT / "editors" / "vscode"
    package = json.loads((folder / "package.json").read_text())
    main = folder / package["main"]
    assert main.is_file() and "onLanguage:ruleslang" in package["activationEvents"]
    assert "vscode-languageclient" in package["dependencies"]
    script = main.read_text()
    assert '"lsp"' in script and "vscode-languageclient/node" in script and "--rulesets" in script
    setting = package["contributes"]["configuration"]["properties"]["ruleslang.server.command"]
    assert setting["default"] == "ruleslang"
    node = shutil.which("node")
    if node is not None:  # the script at least parses (it is never bundled or run here)
        subprocess.run([node, "--check", str(main)], check=True)
