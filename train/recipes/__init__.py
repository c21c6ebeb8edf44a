"""From a training config to a trained bot: which trainer a config (or a checkpoint's config) names, the dispatcher of
``spades train`` and ``spades recipe`` (``trainers``), and a recipe's stages run in order, each a training config
started from an earlier stage's network, resumable stage by stage (``recipe``). Above the trainers (``ppo``,
``expert_iteration``, ``values``), which it imports on demand."""
