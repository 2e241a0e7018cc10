"""The suite's one polling helper (tests/waiting.py)."""

from __future__ import annotations

import itertools

import pytest

from tests.waiting import wait_for


def test_returns_the_first_truthy_value():
    values = iter([None, 0, [], "ready"])
    assert wait_for(lambda: next(values), timeout=5, interval=0) == "ready"


def test_until_decides_and_the_value_is_returned():
    counter = itertools.count()
    assert wait_for(lambda: next(counter), 5, 0, until=lambda n: n >= 3) == 3


def test_a_timeout_names_what_was_awaited_and_the_last_value():
    with pytest.raises(AssertionError, match=r"waiting for the job to end; last value: 'running'"):
        wait_for(lambda: "running", 0.05, 0.01, "the job to end", until=lambda s: s == "done")


def test_an_exception_of_the_condition_ends_the_wait_at_once():
    def dead():
        raise RuntimeError("the process exited")

    with pytest.raises(RuntimeError, match="exited"):
        wait_for(dead, timeout=60)


def test_the_given_sleep_waits_between_calls():
    slept = []
    values = iter([False, False, True])
    assert wait_for(lambda: next(values), 5, 0.25, sleep=slept.append) is True
    assert slept == [0.25, 0.25]
