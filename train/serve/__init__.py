"""The web table of ``spades serve`` (issue 16, hardened in issue 51): play against the bots and replay records.

``create_app`` (``train.serve.app``) builds the FastAPI app; ``guard`` caps bodies, checks the Host, runs heavy
requests apart and makes every error JSON; the store (``train.serve.store``) keeps every game's settings and
decisions in SQLite (``storage``) and the games in use in memory (``sessions``), with their bots bounded and
their networks shared (``bots``); the server sends each seat only what it may see (``train.serve.views``) and
turns records and tournament logs into full-information frames (``train.serve.replay``), reading no file on a
client's word; the rules in words of its preset list (``rules_text``) are those ``spades presets`` prints. The API is
described in ``train/serve/API.md``. ``spades_env`` never imports this package.
"""
