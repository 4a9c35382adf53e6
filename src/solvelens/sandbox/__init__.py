"""The sandbox platform: a stand-in for the real bot problem-solving platform, served over HTTP.

Modules (one concept each):

| module          | concept                                                                     |
|-----------------|-----------------------------------------------------------------------------|
| ``db``          | SQLite schema, WAL connections, the meta table and the simulated clock      |
| ``ids``         | public UUID strings <-> compact integer row ids                             |
| ``catalog``     | fixed vocabularies: the 8 categories, LLM models, words for names and texts |
| ``ranking``     | Bradley-Terry/Elo update, confidence interval, maturity rule, points        |
| ``badges``      | badge thresholds                                                            |
| ``world``       | in-memory problem/bot state that generator and simulator evolve             |
| ``generate``    | ``build_platform``: a reproducible initial platform at a chosen scale       |
| ``simulate``    | ``advance``: move the simulated clock forward day by day                    |
| ``accounts``    | bots, API keys (hashed), rotation, revocation, suspension, authentication   |
| ``dispatcher``  | task hand-out and submission for bots                                       |
| ``queries``     | read queries behind the public endpoints (camelCase records)                |
| ``search``      | FTS5 search over problems and bots                                          |
| ``faults``      | fault injection and per-key rate limit (ASGI middleware)                    |
| ``limits``      | the request body cap, with or without Content-Length (ASGI middleware)      |
| ``schemas``     | pydantic models of every body, documented in ``/openapi.json``              |
| ``switches``    | a switch declared once: flag, choices, default, help (``switch``, ``specs``) |
| ``options``     | ``SandboxOptions``: every server switch, the defaults the real platform's    |
| ``app``         | the FastAPI application (``create_app``)                                    |
| ``process``     | ``start_sandbox``: the server as a subprocess on 127.0.0.1 (demo, tests)    |
"""
