"""The collector while a process starts (ci_service/gc_tuning.py): paused while the command
line and the app load, restored after (an error included), and start-up's objects frozen
before ``serve`` answers."""

from __future__ import annotations

import gc

import pytest

from ci_service.gc_tuning import collection_paused
from tests.test_imports import fresh_interpreter


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_collection_is_paused_inside_and_restored_after(collector_on):
    with collection_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_an_error_inside_restores_the_collector(collector_on):
    with pytest.raises(RuntimeError), collection_paused():
        raise RuntimeError("a command that fails to start")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off(collector_on):
    gc.disable()
    with collection_paused():
        pass
    assert not gc.isenabled()


# Loading the command line pauses the collector and turns it back on; serve answers with
# the collector on and start-up's objects frozen (waitress's loop replaced by a probe).
SERVE_PROBE = """
import gc, sys
from unittest import mock
from waitress.server import BaseWSGIServer
import ci_service.cli as cli_module
loaded = gc.isenabled()
seen = {}
def probe(self):
    seen["enabled"], seen["frozen"] = gc.isenabled(), gc.get_freeze_count()
    raise KeyboardInterrupt
with mock.patch.object(BaseWSGIServer, "run", probe):
    cli_module.cli(
        ["--database", sys.argv[1], "serve", "--port", "0", "--no-scheduler", "--no-jobs"],
        standalone_mode=False,
    )
print(loaded, seen["enabled"], seen["frozen"] > 20000, gc.isenabled())
"""


def test_serve_answers_with_start_up_frozen_and_the_collector_on(tmp_path):
    code = SERVE_PROBE.replace("sys.argv[1]", repr(str(tmp_path / "ci.db")))
    assert fresh_interpreter(code, tmp_path).splitlines()[-1] == "True True True True"
