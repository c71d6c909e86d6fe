"""LSP features, one module each, each with a `register(server)` function."""
