"""The command line, by audience: the language commands, the game commands and the board commands."""
