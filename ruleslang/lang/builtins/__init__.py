"""The built-in functions: core (numbers, collections, dice), board queries and battle queries, each with its type and its implementation."""
