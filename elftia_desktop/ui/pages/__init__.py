"""Pages shown in the main window's stack."""
