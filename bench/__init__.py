"""The ci-service benchmark suite: ``python -m bench [--quick] [--json]``.

Modules: ``run`` (the driver and the table), ``seed`` (fills a temp database in its own
process), ``load`` (the load generator, its own process), ``baseline_app`` (the bare Flask
app the REST and search figures are compared with), ``site`` (the generated fixture site
for the pipeline figures), ``procs`` (starting and stopping those processes).
"""
