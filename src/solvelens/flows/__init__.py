"""Prefect flows and their plain building blocks.

- :mod:`solvelens.flows.fetch`: plain async fetch steps (platform HTTP -> staging directory), no Prefect.
- :mod:`solvelens.flows.snapshot`: ``snapshot_flow`` (Prefect): fetch tasks + one atomic store write.
- :mod:`solvelens.flows.deployments`: scheduled deployments (snapshots, daily report) served by one process.
- :mod:`solvelens.flows.report`: ``report_flow`` (the leaderboard history report).

Import the submodules directly; this package imports nothing so ``import solvelens.flows`` stays cheap.
"""
