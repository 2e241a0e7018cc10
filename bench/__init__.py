"""The ci-service benchmarks: ``python -m bench [--quick] [--json]`` runs the suite.

The suite's modules: ``run`` (the driver and the table), ``rest`` (the REST and search
figures, in alternating rounds), ``wrk`` (drives a server with wrk, else with ``load``),
``seed`` (fills a temp database in its own process), ``load`` (the Python load generator,
its own process), ``baseline_app`` (the bare Flask app the REST and search figures are
compared with), ``site`` (the generated fixture site for the pipeline figures), ``procs``
(starting and stopping those processes), ``scale`` (the ``--postgresql`` processes
section).

Quality benchmarks: ``quality`` (with ``quality_facts``) and ``claims``. Focused ones, each
run as ``python -m bench.NAME``: ``reads``, ``deal_writes``, ``data_version_triggers``,
``search``, ``search_hot``, ``search_http``, ``search_window``, ``fts_segments``,
``intel_search``, ``vector_index``, ``vector_recall``, ``static_vs_minilm``
(docs/benchmarks.md lists what each measures).
"""
