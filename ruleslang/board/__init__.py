"""The board: map data, game state and its effects, board queries, scenarios and pictures of the board."""
