"""The command line: usage errors exit 2 on stderr, --help exits 0 on stdout."""

import subprocess

from helpers import ROOT, START_WAIT


def run(binary, *args):
    return subprocess.run([str(binary), *args], cwd=ROOT, capture_output=True, text=True, timeout=START_WAIT)


def test_an_unknown_flag_exits_2_with_usage_on_stderr(tandem_binary):
    result = run(tandem_binary, "--bogus")
    assert result.returncode == 2
    assert "--bogus" in result.stderr
    assert "usage: tandem" in result.stderr
    assert result.stdout == ""


def test_a_port_out_of_range_exits_2_naming_the_flag(tandem_binary):
    result = run(tandem_binary, "--port", "99999")
    assert result.returncode == 2
    assert "--port" in result.stderr
    assert "99999" in result.stderr


def test_help_exits_0_with_usage_on_stdout(tandem_binary):
    result = run(tandem_binary, "--help")
    assert result.returncode == 0
    assert result.stdout.startswith("usage: tandem")
    for flag in ("--port", "--max-frame", "--idle-timeout", "--data"):
        assert flag in result.stdout
    assert result.stderr == ""


def test_an_unknown_durability_exits_2_naming_the_flag(tandem_binary):
    result = run(tandem_binary, "--durability", "sideways")
    assert result.returncode == 2
    assert "--durability" in result.stderr


def test_a_data_path_that_cannot_be_created_exits_1_naming_it(tandem_binary):
    result = run(tandem_binary, "--port", "0", "--data", "/dev/null/x/tandem.db")
    assert result.returncode == 1
    assert "/dev/null/x" in result.stderr


def test_a_flag_without_its_value_exits_2(tandem_binary):
    result = run(tandem_binary, "--port")
    assert result.returncode == 2
    assert "--port" in result.stderr


def test_a_flag_may_be_given_with_an_equals_sign(start_server):
    server = start_server("--max-frame=2048", "--log-level=debug")
    assert server.port > 0


def test_a_port_in_use_exits_1_saying_it_cannot_listen(readonly_server, tandem_binary):
    result = run(tandem_binary, "--port", str(readonly_server.port), "--data", ":memory:")
    assert result.returncode == 1
    assert "cannot listen" in result.stderr
