"""What the CLI and the language server both build before they run, tune or optimise: the case a command line or
an editor request describes, and the session around it."""
