"""tilewise's language server (pygls): one module per LSP feature, all thin adapters over analysis/device/search."""
