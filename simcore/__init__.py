"""simcore: fast network simulation for the interactive networking lab."""
