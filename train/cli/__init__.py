"""The ``spades`` command line: the app and the commands of the installation and the web table (``app``, its entry
point ``train.cli.app:app``), the commands that make bots (``training``), those that play bots against each other
(``evaluation``), the options several share (``options``) and ``spades warmup`` (``warmup``). Each command imports what
it runs when it runs, so ``spades --help`` loads no torch, Ray or FastAPI."""
