"""Qt-free application actions shared by the window (through the bridge), the CLI and the gateway."""
