"""The game runtime: the core (game loop, decisions, saves, the capability table), the kit of procedures and the agents."""
