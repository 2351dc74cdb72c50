"""The Qt user interface."""
