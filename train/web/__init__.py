"""The web table of ``spades serve`` (issue 16): play against the bots and replay records in a browser.

``create_app`` (``train.web.app``) builds the FastAPI app; the server holds every game
(``train.web.sessions``), sends each seat only what it may see (``train.web.views``) and
turns records and tournament logs into full-information frames (``train.web.replay``).
The API is described in ``train/web/API.md``. ``spades_env`` never imports this package.
"""
