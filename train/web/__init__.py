"""The web table of ``spades serve`` (issue 16, hardened in issue 51): play against the bots and replay records.

``create_app`` (``train.web.app``) builds the FastAPI app; ``guard`` caps bodies, checks the Host, runs heavy
requests apart and makes every error JSON; the store (``train.web.store``) keeps every game's settings and
decisions in SQLite (``storage``) and the games in use in memory (``sessions``), with their bots bounded and
their networks shared (``bots``); the server sends each seat only what it may see (``train.web.views``) and
turns records and tournament logs into full-information frames (``train.web.replay``), reading no file on a
client's word. The API is described in ``train/web/API.md``. ``spades_env`` never imports this package.
"""
