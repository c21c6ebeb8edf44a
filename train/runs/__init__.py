"""The scaffold every trainer shares: a run's directory, name and seeds, resume (``checkpoint``: checkpoints, RNG
states, slim networks), the YAML config files and their checks (``config_file``), where a run writes its outputs
(``output_paths``) and the progress bar and echo lines of its rounds (``round_progress``)."""
