"""Stable ids of names in any alphabet (``pipeline.taxonomy.stable_id``)."""

from __future__ import annotations


def test_ids_of_names_in_other_alphabets_stay_apart():
    from ci_service.pipeline.taxonomy import stable_id

    assert stable_id("feature", "Zašto Pratilac") == "feature-zasto-pratilac"
    assert stable_id("feature", "Größe") == "feature-grosse"
    assert stable_id("feature", "单点登录") != stable_id("feature", "数据报告")
    assert stable_id("feature", "Single Sign-On!") == "feature-single-sign-on"
