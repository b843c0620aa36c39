"""Puzzles mined from real play, their attempts and their ratings (docs/puzzles.md)."""
