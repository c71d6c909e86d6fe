"""tilewise: a language server, CPU emulator and tiling optimiser for AscendC operators.

The package's rooms import one way (docs/ARCHITECTURE.md): `cli` and `lsp` -> `session` and `report` -> `search`
-> `device` -> `analysis`.
"""
