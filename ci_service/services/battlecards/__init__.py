"""Battlecards: why we win, why we lose, objections and kill shot, every claim cited.

Public: ``cards`` (generate, refresh, read, delete), ``edits`` (the hand-edit rules),
``editing`` (store a hand edit), ``export`` (Markdown, HTML, PDF), ``facts`` (the compared
facts and price wording), ``jobs`` (the generate-battlecard job and the collect job's
build steps, registered when ``ci_service.services`` loads). Inside: ``content`` (writing a
card from facts), ``objections``.
"""

__all__ = [
    "cards",
    "editing",
    "edits",
    "export",
    "facts",
    "jobs",
]
