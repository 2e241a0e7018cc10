"""The development corpus: real company websites kept as static files in public repositories.

``bench/corpus/sites/<site>.json`` says where each site's built files are (repository,
commit, folder, the public host they were served from); ``bench/corpus/facts/<site>.json``
lists what a person learns from reading it, each fact with the page that states it.
``python -m bench.corpus build`` makes local copies from the snapshots the search tool's
``fetch`` brought (the sites themselves never enter the repository); ``bench.quality``
serves and scores them. Which group a site belongs to (tuning or check) is decided by its
host alone (:mod:`bench.corpus.split`), before anyone reads its pages.
"""
