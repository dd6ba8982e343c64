"""Chapter wiring: what each notebook calls (panels, tables, static figures)."""
