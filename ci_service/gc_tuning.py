"""The garbage collector while a process starts, and the objects start-up leaves behind.

Loading the command line, the services and the web app makes about 110,000 objects (the
modules, the app, its routes, schemas and models), nearly all of which live until the
process ends; a cycle among them is rare (about 2,000 objects of garbage in all). With
the collector on, start-up pays for some 150 young collections that walk what is new and
a full one that walks everything, to free almost nothing (issue 31: `serve` started
about a tenth sooner without them, docs/benchmarks.md). After start-up, every full
collection, a pause for all the server's threads, would walk those objects again.

So: no collection while a command loads (``collection_paused``), and before a long-running
process starts its jobs and serves, what start-up made moves where collections never look
(``keep_start_up_out_of_collections``, ``gc.freeze``, the use the Python documentation
gives it); the collector then walks only what requests and jobs make. Only then: an
object frozen is never collected, so a job's or a request's cycle frozen in flight (a
generator whose ``finally`` releases something, say) would never be finalized.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collection_paused() -> Iterator[None]:
    """No automatic collection inside; the collector as it was afterwards, an exception
    included (a command that fails to start must not leave a test process without one)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def keep_start_up_out_of_collections() -> None:
    """Every object made so far leaves the collector's generations for good: call once
    start-up is over, before the process starts any job or serves (its few cycles of
    garbage stay too, once; collecting them first would pause start-up for longer than
    they weigh)."""
    gc.freeze()
